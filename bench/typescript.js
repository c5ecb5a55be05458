'use strict';
// The test harness is TypeScript: benchmarks compile it on require with the project's own compiler (no extra
// tooling). `.ts` goes first so that e.g. `Storefront.node` finds Storefront.node.ts, not the codex .node.json.
const fs = require('fs');
const ts = require('typescript');

const later = ['.js', '.json', '.node'].map((ext) => [ext, require.extensions[ext]]);
for (const [ext] of later) delete require.extensions[ext];
require.extensions['.ts'] = (module, filename) => {
	const source = fs.readFileSync(filename, 'utf8');
	const { outputText } = ts.transpileModule(source, {
		compilerOptions: {
			module: ts.ModuleKind.CommonJS,
			target: ts.ScriptTarget.ES2021,
			esModuleInterop: true,
		},
		fileName: filename,
	});
	module._compile(outputText, filename);
};
for (const [ext, loader] of later) require.extensions[ext] = loader;

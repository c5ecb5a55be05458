/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// What `npm publish` would ship, listed by `npm pack --dry-run --json` (the list npm itself computes from
// package.json `files`): the package files and, under dist/, exactly what the build makes of nodes/ and
// credentials/ — compiled modules, icons, codex files. No test, source map, declaration, sandbox, bench, dev or docs
// file; nothing of nodes/ or credentials/ missing. Needs `npm run build` (npm test does it).
import { execFileSync } from 'child_process';
import { readFileSync, readdirSync } from 'fs';
import path from 'path';

const root = path.resolve(__dirname, '../..');

type Pack = {
	size: number;
	unpackedSize: number;
	entryCount: number;
	files: Array<{ path: string }>;
};
let pack: Pack;
let shipped: string[];

beforeAll(() => {
	const out = execFileSync('npm', ['pack', '--dry-run', '--json'], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	pack = (JSON.parse(out) as Pack[])[0];
	shipped = pack.files.map((f) => f.path).sort();
}, 60_000);

/** The files of nodes/ and credentials/ that the build turns into shipped files, as their dist/ paths. */
function builtFromSources(): string[] {
	const walk = (dir: string): string[] =>
		readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
			e.isDirectory() ? walk(path.posix.join(dir, e.name)) : [path.posix.join(dir, e.name)],
		);
	return ['nodes', 'credentials']
		.flatMap(walk)
		.flatMap((file) => {
			if (/\.test\.ts$|\.d\.ts$/.test(file)) return [];
			if (file.endsWith('.ts')) return [`dist/${file.replace(/\.ts$/, '.js')}`]; // tsc
			if (/\.svg$|\.node\.json$/.test(file)) return [`dist/${file}`]; // gulp build:icons: icons and codex files
			return [];
		})
		.sort();
}

const PACKAGE_FILES = ['CHANGELOG.md', 'LICENSE.md', 'README.md', 'index.js', 'package.json'];

test('the tarball holds the package files and exactly what the build makes of nodes/ and credentials/', () => {
	const expected = [...PACKAGE_FILES, ...builtFromSources()].sort();
	expect(expected.filter((f) => f.endsWith('.node.js'))).toHaveLength(3);
	expect(shipped).toEqual(expected);
	expect(pack.entryCount).toBe(expected.length);
});

test('nothing but package files, compiled modules, icons and codex files: no test, map, sandbox, bench, dev or docs', () => {
	const unexpected = shipped.filter(
		(f) =>
			!PACKAGE_FILES.includes(f) &&
			!/^dist\/(nodes|credentials)\/.+\.(js|svg)$/.test(f) &&
			!/^dist\/nodes\/.+\.node\.json$/.test(f),
	);
	expect(unexpected).toEqual([]);
	expect(
		shipped.filter((f) =>
			/\.map$|\.d\.ts$|\.test\.|(^|\/)(test|sandbox|bench|dev|docs|examples|scripts)\//.test(f),
		),
	).toEqual([]);
	// package.json `files` is what keeps the rest out; CHANGELOG.md is not one of the files npm always adds.
	const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
	expect([...manifest.files].sort()).toEqual(['CHANGELOG.md', 'dist', 'index.js']);
});

test("docs/releasing.md's tarball figures match what npm pack measures (within 10%)", () => {
	const releasing = readFileSync(path.join(root, 'docs', 'releasing.md'), 'utf8');
	const m = releasing.match(
		/The packed tarball is about (\d+) kB \((\d+) kB unpacked, (\d+) files/,
	);
	expect(m).not.toBeNull();
	const [packed, unpacked, files] = m!.slice(1).map(Number);
	const near = (stated: number, measured: number) => Math.abs(stated - measured) <= measured * 0.1;
	const measured = {
		packed: pack.size / 1000,
		unpacked: pack.unpackedSize / 1000,
		files: pack.entryCount,
	};
	expect({
		packed,
		unpacked,
		files,
		fits: [
			near(packed, measured.packed),
			near(unpacked, measured.unpacked),
			near(files, measured.files),
		],
	}).toEqual({
		packed,
		unpacked,
		files,
		fits: [true, true, true],
	});
});

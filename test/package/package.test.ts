/* eslint-disable @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The published artefact as n8n sees it: what `npm pack` ships, what n8n's static analyser says of it, and what
// `require('n8n-nodes-storefront')` and the manifest's n8n section point at. Needs `npm run build` (npm test does it).
import { execFileSync } from 'child_process';
import { existsSync, readFileSync } from 'fs';
import path from 'path';

const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

type ScanResult = {
	source: { passed: boolean; details?: string };
	tarball: { passed: boolean; details?: string };
	files: string[];
	runtimeDependencies: string[];
};

let scan: ScanResult;

beforeAll(() => {
	// Without jest's NODE_ENV=test: eslint-plugin-n8n-nodes-base switches its file-name rules to a test mode then.
	const env = { ...process.env };
	delete env.NODE_ENV;
	const out = execFileSync(process.execPath, [path.join(root, 'scripts/scan.mjs'), '--json'], {
		cwd: root,
		env,
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
	});
	scan = JSON.parse(out) as ScanResult;
}, 240_000);

test("n8n's community-package analyser finds zero errors in the source tree", () => {
	expect(scan.source.details ?? '').toBe('');
	expect(scan.source.passed).toBe(true);
});

test("n8n's community-package analyser finds zero errors in the packed tarball", () => {
	expect(scan.tarball.details ?? '').toBe('');
	expect(scan.tarball.passed).toBe(true);
});

test('the tarball has no runtime dependencies', () => {
	expect(scan.runtimeDependencies).toEqual([]);
	expect(manifest.dependencies).toBeUndefined();
	expect(manifest.overrides).toBeUndefined();
});

test('every node and credential in the n8n section is in the tarball with its icons and codex', () => {
	const listed: string[] = [...manifest.n8n.nodes, ...manifest.n8n.credentials];
	expect(manifest.n8n.nodes).toHaveLength(3);
	for (const file of listed) {
		expect(scan.files).toContain(file);
		const source = readFileSync(path.join(root, file), 'utf8');
		for (const [, icon] of source.matchAll(/file:([\w.-]+\.svg)/g)) {
			expect(scan.files).toContain(path.posix.join(path.posix.dirname(file), icon));
		}
	}
	for (const node of manifest.n8n.nodes as string[]) {
		expect(scan.files).toContain(node.replace(/\.js$/, '.json'));
	}
});

test("require('n8n-nodes-storefront') gives the node and credential classes", () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const pkg = require(root);
	expect(new pkg.StorefrontApi().name).toBe('storefrontApi');
	expect(new pkg.Storefront().description.name).toBe('storefront');
	expect(new pkg.StorefrontTrigger().description.name).toBe('storefrontTrigger');
	expect(new pkg.StorefrontPollingTrigger().description.name).toBe('storefrontPollingTrigger');
	expect(existsSync(path.join(root, manifest.main))).toBe(true);
});

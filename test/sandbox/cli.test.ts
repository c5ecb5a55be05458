/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// `npm run sandbox` (sandbox/cli.js) as a real child process: prints what n8n's credentials need, serves the
// API, and saves its snapshot when stopped.
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { request } from '../helpers/sandbox';

const cli = path.join(__dirname, '..', '..', 'sandbox', 'cli.js');

/** What the CLI prints until it is ready (its last line says how to stop it). */
async function banner(child: ReturnType<typeof spawn>): Promise<string> {
	let out = '';
	return await new Promise<string>((resolve, reject) => {
		child.stdout?.on('data', (c: Buffer) => {
			out += c.toString();
			if (out.includes('Press Ctrl+C')) resolve(out);
		});
		child.once('exit', (code) => reject(new Error(`exited early (${code}): ${out}`)));
	});
}

test('starts on the given port, prints base URL, key, secret and admin URL, stops cleanly on SIGTERM', async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sf-cli-'));
	const snapshot = path.join(dir, 'state.json');
	const child = spawn(
		process.execPath,
		[
			cli,
			'--port',
			'0',
			'--products',
			'25',
			'--orders',
			'5',
			'--customers',
			'3',
			'--webhook-secret',
			'whsec_cli',
			'--snapshot',
			snapshot,
			'--quiet',
		],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	try {
		const out = await banner(child);
		const baseUrl = /Base URL +(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out)![1];
		expect(out).toMatch(/API key +sf_test_demo/);
		expect(out).toMatch(/Webhook secret +whsec_cli/);
		expect(out).toContain(`Admin URL       ${baseUrl.replace(/\/v1$/, '/__admin')}`);
		expect(out).toContain('25 products, 5 orders, 3 customers');
		expect(out).not.toContain('Profile'); // the contract, the default, goes unmentioned

		const res = await request('GET', `${baseUrl}/products?limit=100`, {
			headers: { Authorization: 'Bearer sf_test_demo' },
		});
		expect(res.json.products).toHaveLength(25);
		await request('POST', `${baseUrl}/products`, {
			headers: { Authorization: 'Bearer sf_test_demo' },
			body: { name: 'From CLI test', price: 1 },
		});

		const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
		child.kill('SIGTERM');
		expect(await exited).toBe(0);
		const saved = JSON.parse(fs.readFileSync(snapshot, 'utf8'));
		expect(saved.products.map((p: { name: string }) => p.name)).toContain('From CLI test');
		expect(saved.webhook.secret).toBe('whsec_cli');
	} finally {
		if (child.exitCode === null) child.kill('SIGKILL');
		fs.rmSync(dir, { recursive: true, force: true });
	}
});

test('a bad flag prints the usage and exits with 2', async () => {
	const child = spawn(process.execPath, [cli, '--products', 'many'], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let err = '';
	child.stderr.on('data', (c: Buffer) => (err += c.toString()));
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	expect(code).toBe(2);
	expect(err).toContain('--products must be a whole number');
});

test('--rate-window-ms, --no-rate-headers and --latency-ms set the rate-limit and latency settings', async () => {
	const child = spawn(
		process.execPath,
		[
			cli,
			'--port',
			'0',
			'--products',
			'5',
			'--orders',
			'2',
			'--customers',
			'2',
			'--rate-window-ms',
			'12000',
			'--no-rate-headers',
			'--latency-ms',
			'30',
			'--quiet',
		],
		{
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	try {
		const out = await banner(child);
		expect(out).toContain(
			'Rate limits     Starter 100, Pro 500 per 12000 ms window, no X-RateLimit-* headers',
		);
		expect(out).toContain('Latency         30 ms per API request');
		const adminUrl = /Admin URL +(\S+)/.exec(out)![1];
		expect((await request('GET', `${adminUrl}/ratelimit`)).json).toEqual({
			window_ms: 12_000,
			limits: { starter: 100, pro: 500, business: null },
			headers: false,
		});
		expect((await request('GET', `${adminUrl}/latency`)).json).toEqual({ ms: 30 });
		const started = Date.now();
		const res = await request('GET', `${adminUrl.replace(/\/__admin$/, '/v1')}/stores/store_001`, {
			headers: { Authorization: 'Bearer sf_test_starter' },
		});
		expect(Date.now() - started).toBeGreaterThanOrEqual(25);
		expect(res.status).toBe(200);
		expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit-'))).toEqual([]);
	} finally {
		child.kill('SIGKILL');
	}
});

test('--profile spec-literal: printed at startup, shown by the admin API, answers in the spec-literal shapes', async () => {
	const child = spawn(
		process.execPath,
		[
			cli,
			'--port',
			'0',
			'--products',
			'3',
			'--orders',
			'2',
			'--customers',
			'2',
			'--profile',
			'spec-literal',
			'--quiet',
		],
		{
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	try {
		const out = await banner(child);
		expect(out).toMatch(/Profile +spec-literal/);
		expect(out).not.toContain('Rate limits');
		const adminUrl = /Admin URL +(\S+)/.exec(out)![1];
		expect((await request('GET', adminUrl)).json.profile).toBe('spec-literal');
		const res = await request('GET', `${adminUrl.replace(/\/__admin$/, '/v1')}/products`, {
			headers: { Authorization: 'Bearer sf_test_starter' },
		});
		expect(res.json.data.map((p: { product_id: string }) => p.product_id)).toEqual([
			'prod_00001',
			'prod_00002',
			'prod_00003',
		]);
		expect(res.json.meta).toEqual({ page: 1, limit: 20, total: 3, total_pages: 1 });
		expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit-'))).toEqual([]);
	} finally {
		child.kill('SIGKILL');
	}
});

test('a rate window, latency or profile out of range prints the range and exits with 2', async () => {
	for (const [flag, value, range] of [
		['--rate-window-ms', '500', 'a whole number 1000-3600000'],
		['--latency-ms', '10001', 'a whole number 0-10000'],
		['--profile', 'literal', 'one of: contract, spec-literal'],
	]) {
		const child = spawn(process.execPath, [cli, flag, value], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let err = '';
		child.stderr.on('data', (c: Buffer) => (err += c.toString()));
		const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
		expect(code).toBe(2);
		expect(err).toContain(`${flag} must be ${range} (got "${value}")`);
	}
});

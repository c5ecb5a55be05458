// Rate limits per plan (contract row 15) and faults on demand (admin /__admin/faults).
import { api, request, startSandbox, type Sandbox } from '../helpers/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { RateLimiter } = require('../../sandbox/ratelimit') as {
	RateLimiter: new () => {
		take(key: string, plan: string, now?: number): Record<string, string> | undefined;
	};
};

let sb: Sandbox;
beforeEach(async () => {
	sb = await startSandbox({ sizes: { products: 30, orders: 10, customers: 5 } });
});
afterEach(() => sb.stop());

/** n requests in parallel batches; resolves to the results in order. */
async function burst(n: number, key: string) {
	const results = [];
	for (let i = 0; i < n; i += 50) {
		results.push(
			...(await Promise.all(
				Array.from({ length: Math.min(50, n - i) }, () =>
					api(sb, 'GET', '/stores/store_001', undefined, key),
				),
			)),
		);
	}
	return results;
}

describe('rate limits', () => {
	test('Starter: 100 per minute, then 429 with Retry-After, counted per key', async () => {
		const ok = await burst(100, 'sf_test_starter');
		expect(ok.every((r) => r.status === 200)).toBe(true);
		expect(ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b)).toEqual(
			Array.from({ length: 100 }, (_, i) => i),
		);
		expect(ok.every((r) => r.headers['x-ratelimit-limit'] === '100')).toBe(true);
		const reset = Number(ok[0].headers['x-ratelimit-reset']);
		expect(reset).toBeGreaterThan(0);
		expect(reset).toBeLessThanOrEqual(60);

		for (let i = 0; i < 3; i++) {
			const over = await api(sb, 'GET', '/stores/store_001', undefined, 'sf_test_starter');
			expect(over.status).toBe(429);
			expect(over.json).toEqual({
				error: {
					code: 'rate_limited',
					message: 'Rate limit of 100 requests per minute exceeded (Starter plan)',
				},
			});
			expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
			expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
			expect(over.headers['x-ratelimit-remaining']).toBe('0');
		}
		// Counted per key: another key (and another plan) is unaffected.
		expect((await api(sb, 'GET', '/stores/store_001', undefined, 'sf_test_pro')).status).toBe(200);
		const secondStarter = ['sf', 'test', 'starter', '2'].join('_');
		expect((await sb.admin('POST', '/keys', { key: secondStarter, plan: 'starter' })).status).toBe(
			201,
		);
		const second = await api(sb, 'GET', '/stores/store_001', undefined, secondStarter);
		expect(second.status).toBe(200);
		expect(second.headers['x-ratelimit-remaining']).toBe('99');
	});

	test('Pro: 500 per minute', async () => {
		const results = await burst(501, 'sf_test_pro');
		expect(results.filter((r) => r.status === 200)).toHaveLength(500);
		expect(results.filter((r) => r.status === 429)).toHaveLength(1);
		const over = results.find((r) => r.status === 429)!;
		expect(over.json.error.message).toBe(
			'Rate limit of 500 requests per minute exceeded (Pro plan)',
		);
	});

	test('Business: unlimited, no rate-limit headers', async () => {
		const results = await burst(600, 'sf_test_demo');
		expect(results.every((r) => r.status === 200)).toBe(true);
		expect(results[0].headers['x-ratelimit-limit']).toBeUndefined();
	});

	test('the window is fixed: it opens with the first request and reopens a minute later', () => {
		const limiter = new RateLimiter();
		const t0 = 1_000_000;
		for (let i = 0; i < 100; i++) limiter.take('k', 'starter', t0 + i);
		expect(() => limiter.take('k', 'starter', t0 + 59_999)).toThrow('Rate limit of 100');
		let rejected: unknown;
		try {
			limiter.take('k', 'starter', t0 + 30_000);
		} catch (err) {
			rejected = err;
		}
		expect(rejected).toMatchObject({
			status: 429,
			headers: { 'Retry-After': '30', 'X-RateLimit-Remaining': '0' },
		});
		expect(limiter.take('k', 'starter', t0 + 60_000)).toEqual({
			'X-RateLimit-Limit': '100',
			'X-RateLimit-Remaining': '99',
			'X-RateLimit-Reset': '60',
		});
	});

	test('a revoked key gets 401 (rotation: both keys work until the old one is revoked)', async () => {
		await sb.admin('POST', '/keys', { key: 'sf_test_rotated', plan: 'business' });
		expect((await api(sb, 'GET', '/stores/store_001', undefined, 'sf_test_rotated')).status).toBe(
			200,
		);
		expect((await sb.admin('DELETE', '/keys/sf_test_rotated')).status).toBe(204);
		expect((await api(sb, 'GET', '/stores/store_001', undefined, 'sf_test_rotated')).status).toBe(
			401,
		);
		expect((await sb.admin('DELETE', '/keys/sf_test_rotated')).status).toBe(404);
		expect(
			(await sb.admin('POST', '/keys', { key: 'short', plan: 'gold' })).body.error.details.map(
				(d: { field: string }) => d.field,
			),
		).toEqual(['key', 'plan']);
	});
});

describe('faults', () => {
	test('status faults: the next N requests fail, then the service recovers; the write is not applied', async () => {
		expect((await sb.admin('POST', '/faults', { count: 2, status: 503 })).status).toBe(201);
		const before = sb.state.products.size;
		const first = await api(sb, 'POST', '/products', { name: 'x', price: 1 });
		expect(first.status).toBe(503);
		expect(first.json).toEqual({
			error: { code: 'service_unavailable', message: 'Service unavailable (injected fault)' },
		});
		expect(first.headers['retry-after']).toBeUndefined();
		expect((await api(sb, 'GET', '/products')).status).toBe(503);
		expect((await api(sb, 'GET', '/products')).status).toBe(200);
		expect(sb.state.products.size).toBe(before);
		expect((await sb.admin('GET', '/faults')).body).toEqual([]);
	});

	test.each([500, 502, 504])('status %i', async (status) => {
		await sb.admin('POST', '/faults', { status });
		expect((await api(sb, 'GET', '/orders')).status).toBe(status);
	});

	test('429 faults: Retry-After 1 s by default, an HTTP date, or none', async () => {
		const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
		await sb.admin('POST', '/faults', { status: 429 });
		await sb.admin('POST', '/faults', { status: 429, retry_after: date });
		await sb.admin('POST', '/faults', { status: 429, retry_after: null });
		const [a, b, c] = [
			await api(sb, 'GET', '/orders'),
			await api(sb, 'GET', '/orders'),
			await api(sb, 'GET', '/orders'),
		];
		expect([a.status, b.status, c.status]).toEqual([429, 429, 429]);
		expect(a.headers['retry-after']).toBe('1');
		expect(b.headers['retry-after']).toBe(date);
		expect(c.headers['retry-after']).toBeUndefined();
	});

	test('path and method filters', async () => {
		await sb.admin('POST', '/faults', { path: '/orders', method: 'get', count: 5 });
		expect((await api(sb, 'GET', '/products')).status).toBe(200);
		expect(
			(await api(sb, 'PUT', '/orders/ord_00001/status', { status: 'cancelled' })).status,
		).not.toBe(503);
		expect((await api(sb, 'GET', '/orders/ord_00001')).status).toBe(503);
		expect((await sb.admin('GET', '/faults')).body[0]).toMatchObject({
			remaining: 4,
			path: '/orders',
			method: 'GET',
		});
		expect((await sb.admin('DELETE', '/faults')).status).toBe(204);
		expect((await api(sb, 'GET', '/orders')).status).toBe(200);
	});

	test('faults come after the key check: a bad key still gets 401 and does not consume the fault', async () => {
		await sb.admin('POST', '/faults', { status: 502 });
		expect((await api(sb, 'GET', '/orders', undefined, 'sf_bad_key')).status).toBe(401);
		expect((await api(sb, 'GET', '/orders')).status).toBe(502);
	});

	test('slow: the response is delayed, then normal', async () => {
		await sb.admin('POST', '/faults', { type: 'slow', delay_ms: 150 });
		const started = Date.now();
		const res = await api(sb, 'GET', '/products?limit=1');
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
		expect(res.status).toBe(200);
		expect(res.json.products).toHaveLength(1);
	});

	test('drop: the connection is closed without a response', async () => {
		await sb.admin('POST', '/faults', { type: 'drop' });
		await expect(api(sb, 'GET', '/products')).rejects.toThrow(/socket hang up|ECONNRESET/);
		expect((await api(sb, 'GET', '/products')).status).toBe(200);
		const log = (await sb.admin('GET', '/requests')).body;
		expect(log.map((r: { status: unknown }) => r.status)).toEqual(['dropped', 200]);
	});

	test('lost: the request is served (a POST creates), then the connection is closed without a response', async () => {
		const before = sb.state.products.size;
		await sb.admin('POST', '/faults', { type: 'lost', method: 'POST' });
		await expect(
			api(sb, 'POST', '/products', { name: 'Answer Lost', price: 3, sku: 'LOST-1' }),
		).rejects.toThrow(/socket hang up|ECONNRESET/);
		expect(sb.state.products.size).toBe(before + 1);
		expect([...sb.state.products.values()].filter((p) => p.sku === 'LOST-1')).toHaveLength(1);
		const log = (await sb.admin('GET', '/requests')).body;
		expect(
			log.map((r: { method: string; status: unknown }) => `${r.method} ${String(r.status)}`),
		).toEqual(['POST dropped']);
	});

	test('malformed: 200 with a JSON content type and a body that does not parse', async () => {
		await sb.admin('POST', '/faults', { type: 'malformed' });
		const res = await api(sb, 'GET', '/products');
		expect(res.status).toBe(200);
		expect(res.headers['content-type']).toBe('application/json');
		expect(() => JSON.parse(res.text)).toThrow();
	});

	test('fault settings are validated', async () => {
		const res = await sb.admin('POST', '/faults', {
			count: 0,
			status: 418,
			type: 'explode',
			retry_after: -1,
			delay_ms: 'x',
			path: '',
			colour: 1,
		});
		expect(res.status).toBe(422);
		expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(
			['colour', 'count', 'delay_ms', 'path', 'retry_after', 'status', 'type'].sort(),
		);
		expect((await sb.admin('GET', '/faults')).body).toEqual([]);
	});
});

test('the request log records method, path, query, status and time, never the key', async () => {
	await api(sb, 'GET', '/products?limit=2&category=Books');
	await request('GET', `${sb.baseUrl}/orders`);
	const log = (await sb.admin('GET', '/requests')).body;
	expect(log).toEqual([
		{
			at: expect.any(String),
			method: 'GET',
			path: '/v1/products',
			query: { limit: '2', category: 'Books' },
			status: 200,
			ms: expect.any(Number),
		},
		{
			at: expect.any(String),
			method: 'GET',
			path: '/v1/orders',
			query: {},
			status: 401,
			ms: expect.any(Number),
		},
	]);
	expect(JSON.stringify(log)).not.toContain(sb.apiKey);
	expect((await sb.admin('DELETE', '/requests')).status).toBe(204);
	expect((await sb.admin('GET', '/requests')).body).toEqual([]);
});

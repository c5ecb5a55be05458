// Rate limits and transient faults: what is retried (429 always; 502/503/504 and dropped connections only for
// GET, PUT and DELETE), what is not (POST after it may have reached the service), and the final errors.
import { sleep } from 'n8n-workflow';

import { useSandbox, httpCodeOf } from './context';

const ctx = useSandbox();
const getProducts = { resource: 'product', operation: 'getAll', limit: 5 };
const statuses = async () => (await ctx.requests()).map((r) => `${r.method} ${r.status}`);

describe('429 rate limit', () => {
	test('waits for Retry-After (seconds) and then succeeds', async () => {
		await ctx.admin('POST', '/faults', {
			status: 429,
			retry_after: 1,
			count: 1,
			path: '/products',
		});
		const { items, error } = await ctx.run({ parameters: getProducts });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(5);
		expect(await statuses()).toEqual(['GET 429', 'GET 200']);
	});

	test('waits for Retry-After given as an HTTP date', async () => {
		await ctx.admin('POST', '/faults', {
			status: 429,
			retry_after: new Date(Date.now() + 1000).toUTCString(),
			count: 1,
		});
		const { items } = await ctx.run({ parameters: getProducts });
		expect(items).toHaveLength(5);
		expect(await statuses()).toEqual(['GET 429', 'GET 200']);
	});

	test('backs off on its own when Retry-After is absent', async () => {
		await ctx.admin('POST', '/faults', { status: 429, retry_after: null, count: 3 });
		const { items } = await ctx.run({ parameters: getProducts });
		expect(items).toHaveLength(5);
		expect(await statuses()).toEqual(['GET 429', 'GET 429', 'GET 429', 'GET 200']);
	});

	test('a POST refused with 429 was not processed, so it is sent again', async () => {
		const before = ctx.sb.state.products.size;
		await ctx.admin('POST', '/faults', {
			status: 429,
			retry_after: null,
			count: 1,
			method: 'POST',
		});
		const { items } = await ctx.run({
			parameters: { resource: 'product', operation: 'create', name: 'Once', price: 1 },
		});
		expect(items[0].json).toMatchObject({ name: 'Once' });
		expect(ctx.sb.state.products.size).toBe(before + 1);
		expect(await statuses()).toEqual(['POST 429', 'POST 201']);
	});

	test("past Max Wait for Rate Limit it fails naming the rate limit, the plans and the service's words", async () => {
		await ctx.admin('POST', '/faults', { status: 429, retry_after: null, count: 10 });
		const { error } = await ctx.run({
			parameters: { ...getProducts, options: { maxRateLimitWait: 0, retryDelay: 1 } },
		});
		expect(httpCodeOf(error)).toBe('429');
		expect(error?.message).toContain('rate limit');
		expect(error?.message).toContain('Starter 100/min');
		expect(error?.message).toContain('Pro 500/min');
		expect(error?.message).toContain('Too many requests (injected fault)');
		expect(await statuses()).toEqual(['GET 429']);
	});

	test('the real per-key limit of a Starter key is reported the same way', async () => {
		await ctx.admin('POST', '/keys', { key: 'sf_test_tiny', plan: 'starter' });
		// Use up the Starter window directly, then let the node meet the limit with no time left to wait.
		for (let i = 0; i < 100; i++)
			await fetch(`${ctx.sb.baseUrl}/analytics/summary`, {
				headers: { Authorization: 'Bearer sf_test_tiny' },
			});
		const { error } = await ctx.run({
			credentials: { baseUrl: ctx.sb.baseUrl, apiKey: 'sf_test_tiny' },
			parameters: { ...getProducts, options: { maxRateLimitWait: 0 } },
		});
		expect(httpCodeOf(error)).toBe('429');
		expect(error?.message).toMatch(
			/Rate limit of 100 requests per minute exceeded \(Starter plan\)/,
		);
		expect(error?.message).toContain('Starter 100/min');
	});
});

describe('502/503/504 and dropped connections', () => {
	test.each([502, 503, 504])('GET is retried after %i', async (status) => {
		await ctx.admin('POST', '/faults', { status, count: 2 });
		const { items } = await ctx.run({ parameters: getProducts });
		expect(items).toHaveLength(5);
		expect(await statuses()).toEqual([`GET ${status}`, `GET ${status}`, 'GET 200']);
	});

	test('PUT is retried after a 503', async () => {
		await ctx.admin('POST', '/faults', { status: 503, count: 1, method: 'PUT' });
		const { items } = await ctx.run({
			parameters: {
				resource: 'product',
				operation: 'update',
				productId: { __rl: true, mode: 'id', value: 'prod_00001' },
				updateFields: { stock: 9 },
			},
		});
		expect(items[0].json).toMatchObject({ id: 'prod_00001', stock: 9 });
		expect(await statuses()).toEqual(['PUT 503', 'PUT 200']);
	});

	test('DELETE is retried after a 502', async () => {
		await ctx.admin('POST', '/faults', { status: 502, count: 1, method: 'DELETE' });
		const { items } = await ctx.run({
			parameters: {
				resource: 'product',
				operation: 'delete',
				productId: { __rl: true, mode: 'id', value: 'prod_00004' },
			},
		});
		expect(items[0].json).toEqual({ deleted: true, id: 'prod_00004' });
		expect(await statuses()).toEqual(['DELETE 502', 'DELETE 204']);
	});

	test('order status change (an idempotent PUT) is retried after a 504', async () => {
		const pending = [...ctx.sb.state.orders.values()].find((o) => o.status === 'pending')!;
		await ctx.admin('POST', '/faults', { status: 504, count: 1, method: 'PUT' });
		const { items } = await ctx.run({
			parameters: {
				resource: 'order',
				operation: 'updateStatus',
				orderId: { __rl: true, mode: 'id', value: pending.id },
				status: 'cancelled',
			},
		});
		expect(items[0].json).toMatchObject({ id: pending.id, status: 'cancelled' });
		expect(await statuses()).toEqual(['PUT 504', 'PUT 200']);
	});

	test('a dropped connection on GET is retried', async () => {
		await ctx.admin('POST', '/faults', { type: 'drop', count: 1 });
		const { items, error } = await ctx.run({ parameters: getProducts });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(5);
		expect((await ctx.requests()).filter((r) => r.status === 200)).toHaveLength(1);
	});

	test('a POST is never retried after a 503', async () => {
		const before = ctx.sb.state.products.size;
		await ctx.admin('POST', '/faults', { status: 503, count: 1, method: 'POST' });
		const { error } = await ctx.run({
			parameters: { resource: 'product', operation: 'create', name: 'Once', price: 1 },
		});
		expect(httpCodeOf(error)).toBe('503');
		expect(await statuses()).toEqual(['POST 503']);
		expect(ctx.sb.state.products.size).toBe(before);
	});

	test('a POST is never retried after a dropped connection', async () => {
		await ctx.admin('POST', '/faults', { type: 'drop', count: 1, method: 'POST' });
		const { error } = await ctx.run({
			parameters: { resource: 'product', operation: 'create', name: 'Once', price: 1 },
		});
		expect(error?.message).toContain('Could not reach the Storefront API');
		expect(await ctx.requests()).toHaveLength(1);
	});

	test('a 500 is not retried (a service bug, not a transient fault)', async () => {
		await ctx.admin('POST', '/faults', { status: 500, count: 1 });
		const { error } = await ctx.run({ parameters: getProducts });
		expect(httpCodeOf(error)).toBe('500');
		expect(error?.message).toContain('Internal server error (injected fault)');
		expect(await statuses()).toEqual(['GET 500']);
	});

	test('retries stop at Max Retries', async () => {
		await ctx.admin('POST', '/faults', { status: 503, count: 5 });
		const { error } = await ctx.run({
			parameters: { ...getProducts, options: { maxRetries: 1, retryDelay: 1 } },
		});
		expect(httpCodeOf(error)).toBe('503');
		expect(await statuses()).toEqual(['GET 503', 'GET 503']);
	});
});

test('a 200 with a body that is not JSON is reported, not passed on', async () => {
	await ctx.admin('POST', '/faults', { type: 'malformed', count: 1 });
	const { error } = await ctx.run({ parameters: getProducts });
	expect(error?.message).toContain('unexpected body');
	expect(error?.message).toContain('"trunc');
});

test('Max Requests per Minute paces the requests and still completes', async () => {
	const { items } = await ctx.run({
		parameters: {
			resource: 'product',
			operation: 'getAll',
			returnAll: true,
			options: { maxRequestsPerMinute: 6000 },
		},
	});
	expect(items).toHaveLength(250);
	expect(await ctx.requests()).toHaveLength(3);
});

describe('a service that accepts the connection and does not answer', () => {
	test('a read that gets no answer within Timeout is tried again, and succeeds', async () => {
		await ctx.admin('POST', '/faults', {
			type: 'slow',
			delay_ms: 3_000,
			count: 1,
			path: '/products',
		});
		const { items, error } = await ctx.run({
			parameters: { ...getProducts, options: { timeout: 1 } },
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(5);
		// The held request is answered (and logged) once its three seconds are over; the node had sent its retry by then.
		await sleep(2_500);
		expect(await statuses()).toEqual(['GET 200', 'GET 200']);
	});

	test('a Create that gets no answer is never sent again: the error says it may have reached the service', async () => {
		const before = ctx.sb.state.products.size;
		await ctx.admin('POST', '/faults', { type: 'slow', delay_ms: 3_000, count: 1, method: 'POST' });
		const { error } = await ctx.run({
			parameters: {
				resource: 'product',
				operation: 'create',
				name: 'Maybe',
				price: 1,
				options: { timeout: 1 },
			},
		});
		expect(error?.message).toContain('no answer within 1 s');
		expect((error as { description?: string }).description).toContain(
			'may have reached the service',
		);
		await sleep(2_500);
		// One request reached the service, and no second: whatever it made of it, there is never a second product.
		expect((await statuses()).filter((s) => s.startsWith('POST'))).toHaveLength(1);
		expect(ctx.sb.state.products.size).toBeLessThanOrEqual(before + 1);
	});
});

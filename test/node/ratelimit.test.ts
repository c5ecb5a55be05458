/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; the runs' counts are printed */
// The rate governor and concurrent items, through n8n-core against the sandbox's real per-key limits (shortened
// windows at the plan's kind of rate, with and without X-RateLimit-* headers). Counts are asserted: runs failed,
// 429 answers, records written, requests in flight at once; no timing is.
import { randomUUID } from 'crypto';
import type { INodeParameters } from 'n8n-workflow';

import { windowsOf } from '../helpers/sandbox';
import { httpCodeOf, jsonOf, useSandbox, type LoggedRequest } from './context';

// Runs wait out real (shortened) rate windows.
jest.setTimeout(60_000);

const ctx = useSandbox({ products: 120, orders: 60, customers: 10 });

interface Logged extends LoggedRequest {
	at: string;
	ms: number;
}

/** A fresh key on the given plan: each test gets its own governor (one per key and base URL in a process). */
async function freshKey(
	plan: 'starter' | 'pro' | 'business',
): Promise<{ baseUrl: string; apiKey: string }> {
	const apiKey = `sf_test_${plan}_${randomUUID().slice(0, 8)}`;
	await ctx.admin('POST', '/keys', { key: apiKey, plan });
	return { baseUrl: ctx.sb.baseUrl, apiKey };
}

const logged = async () => (await ctx.requests()) as Logged[];

/** Most requests the sandbox was serving at one moment, from each request's end time and duration. */
function maxInFlight(requests: Logged[]): number {
	const edges = requests.flatMap((r) => {
		const end = Date.parse(r.at);
		return [
			{ t: end - r.ms, d: 1 },
			{ t: end, d: -1 },
		];
	});
	edges.sort((a, b) => a.t - b.t || a.d - b.d);
	let now = 0;
	let most = 0;
	for (const edge of edges) {
		now += edge.d;
		most = Math.max(most, now);
	}
	return most;
}

afterEach(async () => {
	await ctx.admin('DELETE', '/ratelimit');
	await ctx.admin('DELETE', '/latency');
});

describe('many runs at once on one limited key (a flash sale)', () => {
	const WINDOW_MS = 1000;
	const LIMIT = 4;
	const RUNS = 24;

	const getOrder = (n: number) => ({
		resource: 'order',
		operation: 'get',
		orderId: { __rl: true, mode: 'id', value: `ord_${String(n + 1).padStart(5, '0')}` },
	});

	test.each([
		['with X-RateLimit-* headers', true],
		['without X-RateLimit-* headers (Retry-After only)', false],
	])('%s: every run succeeds, in windows of the plan', async (_label, headers) => {
		await ctx.admin('PUT', '/ratelimit', {
			window_ms: WINDOW_MS,
			limits: { starter: LIMIT },
			headers,
		});
		const credentials = await freshKey('starter');
		const results = await Promise.all(
			Array.from(
				{ length: RUNS },
				async (_, n) => await ctx.run({ credentials, parameters: getOrder(n) }),
			),
		);
		const failed = results.filter((r) => r.error);
		expect(failed.map((r) => r.error?.message)).toEqual([]);
		expect(results.map((r) => r.items[0].json.id)).toEqual(
			Array.from({ length: RUNS }, (_, n) => getOrder(n).orderId.value),
		);

		const requests = await logged();
		const refused = requests.filter((r) => r.status === 429);
		const served = requests.filter((r) => r.status === 200);
		expect(served).toHaveLength(RUNS);
		const windows = windowsOf(
			served.map((r) => Date.parse(r.at) - r.ms),
			WINDOW_MS,
		);
		process.stdout.write(
			`${_label}: ${RUNS} runs, ${served.length} served in ${windows} windows, ${refused.length} refused (429)\n`,
		);
		if (headers) {
			// Only one request goes before the first answer, whose headers say what the window takes: nothing is sent
			// that it cannot take, not even in the cold burst.
			expect(refused).toHaveLength(0);
		} else {
			// Before the first refusal nothing is known, so the requests already in flight then are refused too (at most
			// all but the window's worth); after it, about one a window: the single request that finds where it ends.
			const firstWindowRefusals = RUNS - LIMIT;
			expect(refused.length).toBeLessThanOrEqual(firstWindowRefusals + windows + 1);
		}
	});

	test('a request that cannot get a slot within Max Wait for Rate Limit fails saying so, and is not sent', async () => {
		await ctx.admin('PUT', '/ratelimit', { window_ms: 60_000, limits: { starter: 1 } });
		const credentials = await freshKey('starter');
		const first = await ctx.run({ credentials, parameters: getOrder(0) });
		expect(first.error).toBeUndefined();
		const second = await ctx.run({
			credentials,
			parameters: { ...getOrder(1), options: { maxRateLimitWait: 1 } },
		});
		expect(httpCodeOf(second.error)).toBe('429');
		expect(second.error?.message).toMatch(
			/^Storefront rate limit: this request waited 1 s and was not sent/,
		);
		expect(second.error?.message).toContain('"Max Wait for Rate Limit" of 1 s');
		expect(second.error?.message).toContain(
			"1 request per window, as the service's X-RateLimit-Limit says",
		);
		expect(second.error?.message).toContain('Starter 100/min');
		expect((second.error as { description?: string }).description).toContain(
			'N8N_CONCURRENCY_PRODUCTION_LIMIT',
		);
		expect(ctx.sb.apiKey).not.toBe(credentials.apiKey);
		expect(JSON.stringify(second.error)).not.toContain(credentials.apiKey);
		// Only the first request reached the service.
		expect((await logged()).map((r) => `${r.method} ${r.status}`)).toEqual(['GET 200']);
	});

	test('a Business key (no limit, no headers) is not held back: a cold start doubles each round trip, then all items of a run go together', async () => {
		// Requests overlap at the service only if each lasts longer than sending all 60 takes: on a loaded CI machine
		// that took more than 40 ms (47 of 60 overlapped), so each lasts 400 ms.
		await ctx.admin('PUT', '/latency', { ms: 400 });
		const credentials = await freshKey('business');
		const items = Array.from({ length: 60 }, (_, n) => ({
			id: `prod_${String(n + 1).padStart(5, '0')}`,
			price: n + 1,
		}));
		const cold = await ctx.run({
			credentials,
			items,
			parameters: updatePrice({ maxConcurrency: 60 }),
		});
		expect(cold.error).toBeUndefined();
		expect(cold.items).toHaveLength(60);
		// 1, 2, 4, 8, 16, then the other 29: the slow start of a key nothing is known of yet, in this process.
		const coldLog = await logged();
		expect(maxInFlight(coldLog)).toBeGreaterThanOrEqual(16);
		expect(maxInFlight(coldLog)).toBeLessThan(60);
		const warm = await ctx.run({
			credentials,
			items,
			parameters: updatePrice({ maxConcurrency: 60 }),
		});
		expect(warm.error).toBeUndefined();
		expect(warm.items).toHaveLength(60);
		expect(maxInFlight((await logged()).slice(coldLog.length))).toBe(60);
	});
});

function updatePrice(options: INodeParameters = {}) {
	return {
		resource: 'product',
		operation: 'update',
		productId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
		updateFields: { price: '={{ $json.price }}' },
		options,
	};
}

describe('items of one run', () => {
	beforeEach(async () => {
		await ctx.admin('PUT', '/latency', { ms: 25 });
	});

	test('are sent concurrently up to Max Concurrent Requests; output order and pairedItem are the input order', async () => {
		const items = Array.from({ length: 40 }, (_, n) => ({
			id: `prod_${String(n + 1).padStart(5, '0')}`,
			price: 100 + n,
		}));
		const { items: out, error } = await ctx.run({
			items,
			parameters: updatePrice({ maxConcurrency: 8 }),
		});
		expect(error).toBeUndefined();
		expect(jsonOf(out).map((p) => [p.id, p.price])).toEqual(items.map((i) => [i.id, i.price]));
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		const inFlight = maxInFlight(await logged());
		expect(inFlight).toBeGreaterThanOrEqual(2);
		expect(inFlight).toBeLessThanOrEqual(8);
	});

	test('Max Concurrent Requests 1 sends one item after the other', async () => {
		const items = Array.from({ length: 12 }, (_, n) => ({
			id: `prod_${String(n + 1).padStart(5, '0')}`,
			price: 7 + n,
		}));
		await ctx.admin('DELETE', '/requests');
		const { error } = await ctx.run({ items, parameters: updatePrice({ maxConcurrency: 1 }) });
		expect(error).toBeUndefined();
		expect(maxInFlight(await logged())).toBe(1);
	});

	test('items naming the same product go one after another in input order: the last price wins', async () => {
		const items = [
			{ id: 'prod_00001', price: 1 },
			{ id: 'prod_00002', price: 2 },
			{ id: 'prod_00001', price: 3 },
			{ id: 'prod_00003', price: 4 },
			{ id: 'prod_00001', price: 5 },
			{ id: 'prod_00002', price: 6 },
		];
		const { items: out, error } = await ctx.run({
			items,
			parameters: updatePrice(),
		});
		expect(error).toBeUndefined();
		expect(jsonOf(out).map((p) => p.price)).toEqual([1, 2, 3, 4, 5, 6]);
		expect(ctx.sb.state.products.get('prod_00001')?.price).toBe(5);
		expect(ctx.sb.state.products.get('prod_00002')?.price).toBe(6);
		const requests = await logged();
		// The three writes of prod_00001 never overlapped, while different products did.
		const ofFirst = requests.filter((r) => r.path.endsWith('/prod_00001'));
		expect(ofFirst).toHaveLength(3);
		expect(maxInFlight(ofFirst)).toBe(1);
		expect(maxInFlight(requests)).toBeGreaterThanOrEqual(2);
	});

	test('order status changes of one order keep their order too', async () => {
		const order = [...ctx.sb.state.orders.values()].find((o) => o.status === 'pending') as {
			id: string;
		};
		const items = ['processing', 'shipped', 'delivered'].map((status) => ({
			id: order.id,
			status,
		}));
		const { items: out, error } = await ctx.run({
			items,
			parameters: {
				resource: 'order',
				operation: 'updateStatus',
				orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				status: '={{ $json.status }}',
			},
		});
		expect(error).toBeUndefined();
		expect(jsonOf(out).map((o) => o.status)).toEqual(['processing', 'shipped', 'delivered']);
	});

	test('continue-on-fail: failed items keep their place and pairedItem among concurrent ones', async () => {
		const items = Array.from({ length: 20 }, (_, n) => ({
			id: n % 5 === 3 ? `prod_missing_${n}` : `prod_${String(n + 1).padStart(5, '0')}`,
			price: n,
		}));
		const { items: out, error } = await ctx.run({
			items,
			continueOnFail: true,
			parameters: updatePrice(),
		});
		expect(error).toBeUndefined();
		expect(out.map((o) => o.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		out.forEach((o, n) => {
			if (n % 5 === 3)
				expect(o.json.error).toBe(
					`Product "prod_missing_${n}" was not found: Product prod_missing_${n} not found`,
				);
			else expect(o.json).toMatchObject({ id: items[n].id, price: n });
		});
	});

	test('without continue-on-fail the node fails with the first failing item, and starts no item after it', async () => {
		const items = Array.from({ length: 30 }, (_, n) => ({
			id: n === 4 || n === 9 ? `prod_missing_${n}` : `prod_${String(n + 1).padStart(5, '0')}`,
			price: 500 + n,
		}));
		const { error } = await ctx.run({
			items,
			parameters: updatePrice({ maxConcurrency: 3 }),
		});
		expect(error?.message).toBe(
			'Product "prod_missing_4" was not found: Product prod_missing_4 not found',
		);
		const sent = (await logged()).length;
		// At most the items already claimed when item 4 failed (3 at once) ran; the last items never started.
		expect(sent).toBeLessThan(items.length);
		expect(ctx.sb.state.products.get('prod_00030')?.price).not.toBe(529);
	});
});

describe('a wait for the rate limit, where n8n users look', () => {
	const hintsOf = (result: Awaited<ReturnType<typeof ctx.run>>) =>
		(result.run.data.resultData.runData.Storefront?.[0]?.hints ?? []).map((h) => h.message);

	test('a run the rate limit held back says how long in the output panel; a run it did not, says nothing', async () => {
		// 6 writes at 2 per 1 s window: the last two wait for the third window.
		await ctx.admin('PUT', '/ratelimit', { window_ms: 1000, limits: { starter: 2 } });
		const items = Array.from({ length: 6 }, (_, n) => ({
			id: `prod_${String(n + 1).padStart(5, '0')}`,
			price: 40 + n,
		}));
		const held = await ctx.run({
			credentials: await freshKey('starter'),
			items,
			parameters: updatePrice(),
		});
		expect(held.error).toBeUndefined();
		expect(hintsOf(held)).toEqual([
			expect.stringMatching(/^Waited \d+ s for Storefront's rate limit$/),
		]);

		const free = await ctx.run({
			credentials: await freshKey('business'),
			items: items.slice(0, 1),
			parameters: updatePrice(),
		});
		expect(free.error).toBeUndefined();
		expect(hintsOf(free)).toEqual([]);
	});

	test("a new key's slow start is not a wait for the rate limit: a plan without one gets no hint, however slow the service", async () => {
		// Nothing is known of a new key's limit, so its first requests go one, two, three… at a time, each round a
		// round trip (500 ms here): 8 concurrent items hold back longer than the hint's 1 s without meeting any limit.
		await ctx.admin('PUT', '/latency', { ms: 500 });
		const items = Array.from({ length: 8 }, (_, n) => ({
			id: `prod_${String(n + 1).padStart(5, '0')}`,
			price: 50 + n,
		}));
		const free = await ctx.run({
			credentials: await freshKey('business'),
			items,
			parameters: updatePrice(),
		});
		expect(free.error).toBeUndefined();
		expect(hintsOf(free)).toEqual([]);
	});
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The sandbox's rate-limit settings (window length, Starter and Pro limits, X-RateLimit-* headers on or off) and its
// latency setting: what tests of the node's rate governor and the benchmarks rely on. Timings are lower bounds.
import { api, startSandbox, type HttpResult, type Sandbox } from '../helpers/sandbox';

const STARTER = 'sf_test_starter';
const PRO = 'sf_test_pro';
const DEMO = 'sf_test_demo'; // Business
const CONTRACT = {
	window_ms: 60_000,
	limits: { starter: 100, pro: 500, business: null },
	headers: true,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const getStore = (sb: Sandbox, key: string) => api(sb, 'GET', '/stores/store_001', undefined, key);
const rateHeaders = (answer: HttpResult) =>
	Object.keys(answer.headers).filter((h) => h.startsWith('x-ratelimit-'));
const fields = (answer: { body: { error: { details: Array<{ field: string }> } } }) =>
	answer.body.error.details.map((d) => d.field).sort();

async function sequence(sb: Sandbox, key: string, n: number) {
	const answers = [];
	for (let i = 0; i < n; i++) answers.push(await getStore(sb, key));
	return answers;
}

describe('rate-limit settings', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({
			sizes: { products: 20, orders: 5, customers: 5 },
			rateLimit: { windowMs: 1500, limits: { starter: 3 } },
		});
	});
	afterAll(async () => sb.stop());
	// Back to the start options' settings, with fresh windows (DELETE would restore the contract's defaults).
	afterEach(async () => {
		await sb.admin('PUT', '/ratelimit', {
			window_ms: 1500,
			limits: { starter: 3, pro: 500 },
			headers: true,
		});
	});

	test('the start options are the settings: Starter 3 per 1.5 s, Pro its own 500, Business unlimited', async () => {
		expect((await sb.admin('GET', '/ratelimit')).body).toEqual({
			window_ms: 1500,
			limits: { starter: 3, pro: 500, business: null },
			headers: true,
		});
		expect((await sb.admin('GET', '/')).body.ratelimit).toEqual({
			window_ms: 1500,
			limits: { starter: 3, pro: 500, business: null },
			headers: true,
		});
		expect((await sb.admin('GET', '/')).body.endpoints).toContain(
			'GET|PUT|DELETE /__admin/ratelimit {window_ms?, limits?: {starter?, pro?}, headers?}',
		);
	});

	test('the 4th Starter request in a 1.5 s window is refused with Retry-After to the window end, then served again', async () => {
		const answers = await sequence(sb, STARTER, 4);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
		expect(answers.map((a) => a.headers['x-ratelimit-limit'])).toEqual(['3', '3', '3', '3']);
		expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
		for (const a of answers) expect(['1', '2']).toContain(a.headers['x-ratelimit-reset']);
		const refused = answers[3];
		expect(['1', '2']).toContain(refused.headers['retry-after']);
		expect(refused.json).toEqual({
			error: {
				code: 'rate_limited',
				message: 'Rate limit of 3 requests per 1.5 s exceeded (Starter plan)',
			},
		});
		// Refused requests do not count, and Retry-After (whole seconds, rounded up) is enough to wait.
		expect((await getStore(sb, STARTER)).status).toBe(429);
		await sleep(Number(refused.headers['retry-after']) * 1000);
		const again = await getStore(sb, STARTER);
		expect(again.status).toBe(200);
		expect(again.headers['x-ratelimit-remaining']).toBe('2');
	});

	test('counted per key: a full Starter window does not touch Pro; Business is never limited', async () => {
		await sequence(sb, STARTER, 3);
		expect((await getStore(sb, STARTER)).status).toBe(429);
		const pro = await getStore(sb, PRO);
		expect(pro.status).toBe(200);
		expect(pro.headers['x-ratelimit-limit']).toBe('500');
		const business = await Promise.all(Array.from({ length: 50 }, () => getStore(sb, DEMO)));
		expect(business.map((a) => a.status)).toEqual(Array(50).fill(200));
		expect(business.flatMap(rateHeaders)).toEqual([]);
	});

	test('the message names the window: seconds, or "minute" for 60000 ms; "request" for a limit of one', async () => {
		await sb.admin('PUT', '/ratelimit', { window_ms: 12_000, limits: { starter: 1, pro: 2 } });
		expect((await sequence(sb, STARTER, 2))[1].json.error.message).toBe(
			'Rate limit of 1 request per 12 s exceeded (Starter plan)',
		);
		expect((await sequence(sb, PRO, 3))[2].json.error.message).toBe(
			'Rate limit of 2 requests per 12 s exceeded (Pro plan)',
		);
		await sb.admin('PUT', '/ratelimit', { window_ms: 60_000, limits: { starter: 2 } });
		const refused = (await sequence(sb, STARTER, 3))[2];
		expect(refused.json.error.message).toBe(
			'Rate limit of 2 requests per minute exceeded (Starter plan)',
		);
		expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50);
		expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
	});

	test('headers off: no X-RateLimit-* on answers or on the 429, which keeps Retry-After', async () => {
		expect((await sb.admin('PUT', '/ratelimit', { headers: false })).body).toEqual({
			window_ms: 1500,
			limits: { starter: 3, pro: 500, business: null },
			headers: false,
		});
		const answers = await sequence(sb, STARTER, 4);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
		expect(answers.flatMap(rateHeaders)).toEqual([]);
		expect(['1', '2']).toContain(answers[3].headers['retry-after']);
		expect(answers[3].json.error.message).toBe(
			'Rate limit of 3 requests per 1.5 s exceeded (Starter plan)',
		);
		expect(rateHeaders(await getStore(sb, PRO))).toEqual([]);
	});

	test('PUT merges, and clears the windows so a change takes effect at once; null = unlimited', async () => {
		await sequence(sb, STARTER, 3);
		expect((await getStore(sb, STARTER)).status).toBe(429);
		expect((await sb.admin('PUT', '/ratelimit', { limits: { pro: 7 } })).body).toEqual({
			window_ms: 1500,
			limits: { starter: 3, pro: 7, business: null },
			headers: true,
		});
		expect((await getStore(sb, STARTER)).headers['x-ratelimit-remaining']).toBe('2');
		expect((await sb.admin('PUT', '/ratelimit', { window_ms: 2000 })).body.limits).toEqual({
			starter: 3,
			pro: 7,
			business: null,
		});
		expect(
			(await sb.admin('PUT', '/ratelimit', { limits: { starter: null } })).body.limits,
		).toEqual({ starter: null, pro: 7, business: null });
		const unlimited = await sequence(sb, STARTER, 10);
		expect(unlimited.map((a) => a.status)).toEqual(Array(10).fill(200));
		expect(unlimited.flatMap(rateHeaders)).toEqual([]);
	});

	test('PUT validates every field (422 in the contract shape) and changes nothing when it fails', async () => {
		const before = (await sb.admin('GET', '/ratelimit')).body;
		const bad = await sb.admin('PUT', '/ratelimit', {
			window_ms: 999,
			limits: { starter: 0, pro: 2.5, business: 5, gold: 5 },
			headers: 'no',
			extra: 1,
		});
		expect(bad.status).toBe(422);
		expect(bad.body.error.code).toBe('validation_failed');
		expect(fields(bad)).toEqual([
			'extra',
			'headers',
			'limits.business',
			'limits.gold',
			'limits.pro',
			'limits.starter',
			'window_ms',
		]);
		expect(fields(await sb.admin('PUT', '/ratelimit', { window_ms: 3_600_001 }))).toEqual([
			'window_ms',
		]);
		expect(fields(await sb.admin('PUT', '/ratelimit', { window_ms: 1500.5 }))).toEqual([
			'window_ms',
		]);
		expect(fields(await sb.admin('PUT', '/ratelimit', { limits: [3] }))).toEqual(['limits']);
		expect(fields(await sb.admin('PUT', '/ratelimit', { limits: { starter: '3' } }))).toEqual([
			'limits.starter',
		]);
		expect(
			(await sb.admin('PUT', '/ratelimit', { window_ms: 1000, limits: { pro: 1 } })).status,
		).toBe(200);
		expect(
			(
				await sb.admin('PUT', '/ratelimit', {
					window_ms: 3_600_000,
					limits: { pro: 9 },
					headers: 1,
				})
			).status,
		).toBe(422);
		expect((await sb.admin('GET', '/ratelimit')).body).toEqual({
			...before,
			window_ms: 1000,
			limits: { ...before.limits, pro: 1 },
		});
	});

	test('DELETE restores the contract (one-minute windows, 100 and 500, headers on) and clears the windows', async () => {
		await sb.admin('PUT', '/ratelimit', { headers: false });
		await sequence(sb, STARTER, 3);
		expect((await sb.admin('DELETE', '/ratelimit')).body).toEqual(CONTRACT);
		expect((await sb.admin('GET', '/')).body.ratelimit).toEqual(CONTRACT);
		const answer = await getStore(sb, STARTER);
		expect(answer.headers['x-ratelimit-limit']).toBe('100');
		expect(answer.headers['x-ratelimit-remaining']).toBe('99');
		expect(Number(answer.headers['x-ratelimit-reset'])).toBeGreaterThan(50);
	});

	test('POST /__admin/reset keeps the settings and clears the windows', async () => {
		await sb.admin('PUT', '/ratelimit', { headers: false, limits: { starter: 2 } });
		await sequence(sb, STARTER, 2);
		expect((await getStore(sb, STARTER)).status).toBe(429);
		expect((await sb.admin('POST', '/reset', {})).status).toBe(200);
		expect((await sb.admin('GET', '/ratelimit')).body).toEqual({
			window_ms: 1500,
			limits: { starter: 2, pro: 500, business: null },
			headers: false,
		});
		expect((await getStore(sb, STARTER)).status).toBe(200);
	});
});

describe('start options', () => {
	test("rateLimit.headers false: a Starter and a Pro key get no X-RateLimit-* headers at the plans' limits", async () => {
		const sb = await startSandbox({
			sizes: { products: 5, orders: 2, customers: 2 },
			rateLimit: { headers: false },
		});
		try {
			expect((await sb.admin('GET', '/ratelimit')).body).toEqual({ ...CONTRACT, headers: false });
			const answers = [await getStore(sb, STARTER), await getStore(sb, PRO)];
			expect(answers.map((a) => a.status)).toEqual([200, 200]);
			expect(answers.flatMap(rateHeaders)).toEqual([]);
		} finally {
			await sb.stop();
		}
	});

	test('invalid settings are refused before the sandbox starts, naming each option', async () => {
		await expect(startSandbox({ rateLimit: { windowMs: 999 } })).rejects.toThrow(
			'rateLimit.windowMs must be an integer 1000-3600000',
		);
		await expect(startSandbox({ rateLimit: { limits: { starter: 0 } } })).rejects.toThrow(
			'rateLimit.limits.starter must be a positive integer',
		);
		await expect(startSandbox({ rateLimit: { limits: { business: 5 } as never } })).rejects.toThrow(
			'rateLimit.limits.business is not a plan with a limit',
		);
		await expect(startSandbox({ latencyMs: 10_001 })).rejects.toThrow(
			'latencyMs must be an integer 0-10000',
		);
		await expect(startSandbox({ latencyMs: 2.5 })).rejects.toThrow(
			'latencyMs must be an integer 0-10000',
		);
	});
});

describe('latency', () => {
	const LATENCY = 400;
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({
			sizes: { products: 20, orders: 5, customers: 5 },
			latencyMs: LATENCY,
			rateLimit: { windowMs: 60_000, limits: { starter: 1 } },
		});
	});
	afterAll(async () => sb.stop());

	const timed = async <T>(call: () => Promise<T>) => {
		const started = Date.now();
		const result = await call();
		return { result, ms: Date.now() - started };
	};

	test('every API answer (a 429 too) comes at least the latency later, and the request log shows it; the admin API does not wait', async () => {
		expect((await sb.admin('GET', '/latency')).body).toEqual({ ms: LATENCY });
		expect((await sb.admin('GET', '/')).body.latency_ms).toBe(LATENCY);
		await sb.admin('DELETE', '/requests');
		const [ok, created, refused] = await Promise.all([
			timed(() => getStore(sb, DEMO)),
			timed(() => api(sb, 'POST', '/products', { name: 'Late', price: 1 })),
			(async () => {
				await getStore(sb, STARTER);
				return timed(() => getStore(sb, STARTER));
			})(),
		]);
		expect([ok.result.status, created.result.status, refused.result.status]).toEqual([
			200, 201, 429,
		]);
		for (const { ms } of [ok, created, refused]) expect(ms).toBeGreaterThanOrEqual(LATENCY - 5);
		const logged = (await sb.admin('GET', '/requests')).body as Array<{ ms: number }>;
		expect(logged).toHaveLength(4);
		for (const entry of logged) expect(entry.ms).toBeGreaterThanOrEqual(LATENCY - 5);
		// Generous: an admin call takes a few milliseconds, nowhere near the API's latency.
		expect((await timed(() => sb.admin('GET', '/ratelimit'))).ms).toBeLessThan(LATENCY - 100);
	});

	test('PUT sets it (integer 0-10000 ms, 422 otherwise), DELETE sets 0', async () => {
		try {
			for (const body of [{ ms: -1 }, { ms: 10_001 }, { ms: 1.5 }, { ms: '20' }, {}]) {
				const bad = await sb.admin('PUT', '/latency', body);
				expect(bad.status).toBe(422);
				expect(fields(bad)).toEqual(['ms']);
			}
			expect(fields(await sb.admin('PUT', '/latency', { ms: 5, extra: true }))).toEqual(['extra']);
			expect((await sb.admin('GET', '/latency')).body).toEqual({ ms: LATENCY });
			expect((await sb.admin('PUT', '/latency', { ms: 800 })).body).toEqual({ ms: 800 });
			expect((await timed(() => getStore(sb, DEMO))).ms).toBeGreaterThanOrEqual(795);
			expect((await sb.admin('DELETE', '/latency')).body).toEqual({ ms: 0 });
			expect((await sb.admin('GET', '/')).body.latency_ms).toBe(0);
		} finally {
			await sb.admin('PUT', '/latency', { ms: LATENCY });
		}
	});
});

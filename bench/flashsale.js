#!/usr/bin/env node
// @ts-check
// A flash sale on the Starter plan in a real n8n (pinned 2.41.1, one process, n8n's defaults): a burst of orders
// placed at once, each delivered by the sandbox as order.created to
//   Storefront Trigger (order.created, deliveries only) → Storefront Order › Get ({{ $json.data.order_id }})
//                                                       → Storefront Order › Update Status (processing)
// on a Starter key, every call of every execution going through the node's one rate governor per key. The sandbox
// enforces the plan: by default its rate in 12 s windows (20 a window, i.e. 100 a minute), once with its
// X-RateLimit-* headers and once without them (Retry-After on a 429 only); `--real-minutes` uses true one-minute
// windows (100 a minute; with `--orders 500` that run takes about 11 minutes). Each run uses a new Starter key
// (POST /__admin/keys) so that it starts with a governor that knows nothing, and a new workflow. The sandbox
// answers every API request 20 ms late (--latency) and delivers webhooks 20 at a time with a 30 s timeout: far
// faster than the plan lets the orders be worked off (the delivery span is printed to show it).
// Measured from the sandbox's state and request log:
//   drain        first checkout sent → the last successful PUT /v1/orders/{id}/status answered
//   calls        successful API calls (2 per order: the Get and the Update), 429s, other errors; where the drain
//                goes: the first call's delay, the mean gap between window openings, the last window's calls
//   failed executions (n8n's list), orders changed to processing exactly once / more than once / never (events)
//   drain ÷ (calls ÷ plan rate), plan rate = limit ÷ window: the figure the goal is set on (≤ 1.10)
//   drain ÷ ideal, ideal = (ceil(calls ÷ limit) − 1) × window: the stricter figure. The first window's `limit` calls
//                go at once (t ≈ 0) and the last window's calls at its opening, so C calls need ceil(C ÷ limit)
//                windows of which only ceil(C ÷ limit) − 1 are waited out whole; a perfect node drains 200 calls at
//                20 per 12 s in 108 s (not the 120 s of calls ÷ rate, against which it would score 0.90).
// Prints figures, asserts nothing (it stops when the sale does not finish: an order never set, executions never done).
// Run after `npm run build` and `node dev/n8n/prepare.js`:
//   node bench/flashsale.js [--orders 100] [--headers both|on|off] [--latency 20]
//   node bench/flashsale.js --real-minutes --orders 500 [--headers on]
'use strict';

const crypto = require('node:crypto');
const os = require('node:os');

const runtime = require('../dev/n8n/runtime');
const setup = require('../dev/n8n/instance');
const { numberArg, stringArg, flag } = require('./args');
const { startInN8n } = require('./inN8n');

const REAL_MINUTES = flag('real-minutes');
const ORDERS = numberArg('orders', 100);
const LATENCY_MS = numberArg('latency', 20);
const WINDOW_MS = REAL_MINUTES ? 60_000 : 12_000;
const LIMIT = REAL_MINUTES ? 100 : 20; // Starter: 100 a minute, or the same rate in 12 s windows
/** @type {Record<string, boolean[]>} */
const HEADER_RUNS = { both: [true, false], on: [true], off: [false] };
const HEADERS = HEADER_RUNS[stringArg('headers', REAL_MINUTES ? 'on' : 'both')];
if (!HEADERS) throw new Error('--headers is both, on or off');
const CREDENTIAL = 'Storefront sandbox';

/** When the sandbox opened its windows for requests arriving at these times: a new one whenever `windowMs` has passed. */
function windowOpenings(/** @type {number[]} */ starts, /** @type {number} */ windowMs) {
	/** @type {number[]} */
	const openings = [];
	for (const start of [...starts].sort((a, b) => a - b)) {
		if (!openings.length || start >= openings[openings.length - 1] + windowMs) openings.push(start);
	}
	return openings;
}

/** Wait until `check()` returns something other than undefined. @template T */
async function eventually(
	/** @type {() => Promise<T | undefined> | T | undefined} */ check,
	/** @type {string} */ what,
	/** @type {number} */ timeoutMs,
) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** @param {boolean} headers @param {{id: string, name: string}} credential */
function workflow(headers, credential) {
	const credentials = { storefrontApi: credential };
	const steps = setup.orderIntakeSteps(runtime.TYPES.action, credentials);
	return {
		name: `bench flash sale ${headers ? 'with' : 'without'} rate headers`,
		nodes: [
			{
				id: crypto.randomUUID(),
				name: 'Storefront Trigger',
				type: runtime.TYPES.trigger,
				typeVersion: 2,
				position: [0, 0],
				webhookId: crypto.randomUUID(),
				// Deliveries only: a catch-up's readings would add calls to the 2 an order the sale counts.
				parameters: { events: ['order.created'], options: { catchUp: false } },
				credentials,
			},
			...steps.nodes,
		],
		connections: steps.connections,
		settings: { executionOrder: 'v1' },
	};
}

async function main() {
	const { sandbox, n8n, client, admin, stop } = await startInN8n('flashsale', {
		sizes: { products: 50, orders: 10, customers: 20 },
		delivery: { attempts: 5, baseDelayMs: 1000, timeoutMs: 30_000, concurrency: 20 },
		latencyMs: LATENCY_MS,
	});
	try {
		await admin('POST', '/simulate/stock', { product_id: 'prod_00001', stock: 10_000_000 });
		console.log(
			`Flash sale in n8n ${n8n.version} (pid ${n8n.child.pid}): ${ORDERS} orders at once on Starter, ${LIMIT} calls per ${WINDOW_MS / 1000} s window, sandbox latency ${LATENCY_MS} ms (load average ${os.loadavg()[0].toFixed(1)})`,
		);
		/** @type {string[]} */
		const rows = [];
		/** @type {string[]} */
		const summary = [];
		let keys = 0;
		for (const headers of HEADERS) {
			const apiKey = `sf_test_starter_flash_${++keys}`;
			await admin('POST', '/keys', { key: apiKey, plan: 'starter' });
			await admin('PUT', '/ratelimit', {
				window_ms: WINDOW_MS,
				limits: { starter: LIMIT },
				headers,
			});
			const credential = await setup.ensureCredential(client, {
				name: CREDENTIAL,
				data: { baseUrl: sandbox.baseUrl, apiKey, webhookSecret: sandbox.webhookSecret },
			});
			const def = workflow(headers, credential);
			const created = await client.createWorkflow(def);
			const url = setup.productionWebhookUrl(n8n.url, created);
			await setup.activate(client, created.id, url);
			await admin('PUT', '/webhook', { url, secret: sandbox.webhookSecret });
			await admin('DELETE', '/requests');
			await admin('DELETE', '/deliveries'); // and the events

			// The sale: every checkout at once; the sandbox delivers each order.created to n8n.
			const started = Date.now();
			const ids = new Set(
				await Promise.all(
					Array.from(
						{ length: ORDERS },
						async () =>
							(
								await admin('POST', '/simulate/checkout', {
									items: [{ product_id: 'prod_00001', quantity: 1 }],
								})
							).id,
					),
				),
			);
			const placedMs = Date.now() - started;
			const budgetMs = Math.ceil((2 * ORDERS) / LIMIT) * WINDOW_MS * 3 + 120_000;
			await eventually(
				() =>
					[...ids].every((id) => sandbox.state.orders?.get(id)?.status === 'processing')
						? true
						: undefined,
				`${ORDERS} orders set to processing`,
				budgetMs,
			);
			const executions = await eventually(
				async () => {
					const list = await client.allExecutions({ workflowId: created.id });
					return list.length >= ORDERS &&
						list.every((e) => !['new', 'running', 'waiting'].includes(e.status))
						? list
						: undefined;
				},
				`${ORDERS} finished executions`,
				180_000,
			);
			await setup.deactivate(client, created.id, url);
			await admin('DELETE', `/keys/${apiKey}`);

			/** @type {Array<{at: string, method: string, path: string, status: number | string, ms: number}>} */
			const log = await admin('GET', '/requests');
			const served = log.filter((r) => r.status === 200);
			const refused = log.filter((r) => r.status === 429).length;
			const otherErrors = log.length - served.length - refused;
			const puts = served.filter((r) => r.method === 'PUT' && r.path.endsWith('/status'));
			const gets = served.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/orders/'));
			const drainMs = Math.max(...puts.map((r) => Date.parse(r.at))) - started;
			/** @type {Map<string, number>} */
			const changes = new Map();
			for (const event of sandbox.events) {
				if (
					event.type === 'order.updated' &&
					event.data.status === 'processing' &&
					ids.has(event.data.order_id)
				) {
					changes.set(event.data.order_id, (changes.get(event.data.order_id) ?? 0) + 1);
				}
			}
			const once = [...changes.values()].filter((n) => n === 1).length;
			const more = [...changes.values()].filter((n) => n > 1).length;
			const never = [...ids].filter((id) => !changes.has(id)).length;
			const failed = executions.filter((e) => e.status !== 'success').length;
			const deliveries = sandbox.deliveries.filter((d) => d.type === 'order.created');
			const delivered = deliveries.filter((d) => d.status === 'delivered');
			const lastDelivered = Math.max(
				...delivered.map((d) => {
					const a = d.attempts[d.attempts.length - 1];
					return Date.parse(a.at) + a.ms;
				}),
			);
			const retried = deliveries.filter((d) => d.attempts.length > 1).length;
			const calls = served.length;
			const openings = windowOpenings(
				served.map((r) => Date.parse(r.at) - r.ms),
				WINDOW_MS,
			);
			const windows = openings.length;
			// Where the drain goes: until the first call, windows opening later than a window length after the one before,
			// and the last window's calls.
			const firstCallMs = openings[0] - started;
			const meanGapMs = windows > 1 ? (openings[windows - 1] - openings[0]) / (windows - 1) : 0;
			const tailMs = drainMs - (openings[windows - 1] - started);
			const byRate = (calls / LIMIT) * WINDOW_MS;
			const ideal = (Math.ceil(calls / LIMIT) - 1) * WINDOW_MS;
			const ratio = drainMs / byRate;
			const label = `${ORDERS} orders, ${LIMIT}/${WINDOW_MS / 1000} s, ${headers ? 'with headers' : 'no headers'}`;
			console.log(`\n${label}:`);
			console.log(
				`  checkouts placed in ${(placedMs / 1000).toFixed(1)} s; ${delivered.length} of ${deliveries.length} order.created delivered, the last ${((lastDelivered - started) / 1000).toFixed(1)} s after the first checkout (${retried} needed a retry)`,
			);
			console.log(
				`  ${executions.length} executions, ${failed} failed; orders set to processing once ${once}, more than once ${more}, never ${never}`,
			);
			console.log(
				`  calls ${calls} (Get ${gets.length}, Update ${puts.length}; ideal ${2 * ORDERS}) in ${windows} windows; ${refused} × 429 (${(refused / windows).toFixed(2)} per window), ${otherErrors} other errors`,
			);
			console.log(
				`  first call ${(firstCallMs / 1000).toFixed(2)} s after the first checkout; windows opened every ${(meanGapMs / 1000).toFixed(2)} s on average (window ${WINDOW_MS / 1000} s); the last window's calls done ${(tailMs / 1000).toFixed(2)} s after it opened`,
			);
			console.log(
				`  drain ${(drainMs / 1000).toFixed(1)} s; calls ÷ plan rate ${(byRate / 1000).toFixed(0)} s → drain ÷ (calls ÷ plan rate) = ${ratio.toFixed(3)} (goal ≤ 1.10: ${ratio <= 1.1 ? 'met' : 'NOT met'}); ideal (ceil(${calls}/${LIMIT}) − 1) × ${WINDOW_MS / 1000} s = ${ideal / 1000} s → drain ÷ ideal = ${(drainMs / ideal).toFixed(3)}`,
			);
			rows.push(
				`| ${label} | ${(drainMs / 1000).toFixed(1)} s | ${calls} (${2 * ORDERS}) | ${refused} | **${ratio.toFixed(3)}** | ${(drainMs / ideal).toFixed(3)} | ${failed} | ${once} / ${more} / ${never} | ${((lastDelivered - started) / 1000).toFixed(1)} s |`,
			);
			summary.push(
				`${label}: drain ÷ (calls ÷ plan rate) ${ratio.toFixed(3)} (goal ≤ 1.10: ${ratio <= 1.1 ? 'met' : 'NOT met'}), drain ÷ ideal ${(drainMs / ideal).toFixed(3)}, ${refused} × 429, ${failed} failed executions, set once ${once} of ${ORDERS}`,
			);
		}
		await admin('DELETE', '/ratelimit');
		console.log(
			'\n| Sale | drain | calls (ideal) | 429s | drain ÷ (calls ÷ plan rate) | drain ÷ ideal | failed executions | orders set once / more / never | all order.created delivered after |',
		);
		console.log('|---|---|---|---|---|---|---|---|---|');
		for (const row of rows) console.log(row);
		console.log(`\n${summary.join('\n')}`);
	} finally {
		await stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

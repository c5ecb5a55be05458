#!/usr/bin/env node
// @ts-check
// Bulk writes in a real n8n (pinned 2.41.1, one process): one execution that sets the price of N products, the way
// this package does it against the way a user would build it without the package, both in the same n8n against the
// same sandbox:
//   storefront  Webhook → Split Out (body.items) → Storefront (Product › Update, price = {{ $json.price }})
//   http        Webhook → Split Out (body.items) → HTTP Request 4.5 (PUT <baseUrl>/products/{{ $json.id }}, JSON body
//               {"price": …}, Storefront API credential), n8n's defaults otherwise: every item's request at once
// Both write nodes are set to "On Error: Continue" so that a failed item is counted (an item with `error`) instead of
// ending the run. The webhook is called with the N {id, price} pairs (products prod_00001…, prices new every run, so
// every write changes a product; the sandbox's prices are checked after each run) and answers when the last node has
// finished (responseMode lastNode).
//
// Part 1, unlimited key (sf_test_demo, Business: no limit, no rate headers), the sandbox answering every API request
// 20 ms and 100 ms late (PUT /__admin/latency): wall time of the webhook call, the write node's own time, failed items,
// the PUTs the sandbox logged. Rounds interleave storefront/http at both latencies; medians. Goal: storefront ÷ http
// wall time ≤ 1.0, 0 failed items, N requests each.
//
// Part 2, paced: the Starter and Pro plans, with the sandbox's X-RateLimit-* headers and without them (Retry-After on
// a 429 only), 20 ms latency. By default the plans' rates in 12 s windows (Starter 20, Pro 100 per window: the
// per-minute limits ÷ 5); `--real-minutes` uses the real one-minute windows (100, 500). Every paced run uses a new
// key of the plan (POST /__admin/keys), so that it starts with a rate governor that knows nothing, as the first run
// after n8n starts does. Figures of the Storefront run:
//   achieved rate = (successful requests − those the first window served) ÷ (arrival of the last successful
//                   request − arrival of the first), expressed per window length; ÷ the plan's limit per window.
//   Leaving out the first window's requests keeps the burst it absorbs at once from flattering the figure; the
//   result cannot exceed 1.0 (every window after the first is at least a window length after the one before), and
//   is 1.0 for a node that fills every window and sends the last window's requests the moment it opens (item counts
//   are whole multiples of the limit by default, so a full last window is possible).
//   Also: 429s the sandbox answered, failed items, wall time against the floor (ceil(N ÷ limit) − 1) windows.
// Goals: achieved ÷ plan rate ≥ 0.95, 0 failed items. For reference, one run of the http workflow on each paced
// configuration (n8n's defaults send all N at once: what fails without a governor).
// Prints figures, asserts nothing (it stops only when a run does not happen as described, e.g. a price not written).
// Run after `npm run build` and `node dev/n8n/prepare.js`:
//   node bench/bulk.js [--items 500] [--rounds 5] [--starter-items 100] [--pro-items 500] [--real-minutes]
// (--real-minutes defaults: --starter-items 300 --pro-items 1500, three windows each; about 9 minutes of paced runs)
'use strict';

const crypto = require('node:crypto');
const os = require('node:os');

const runtime = require('../dev/n8n/runtime');
const { runData } = require('../dev/n8n/rest');
const setup = require('../dev/n8n/instance');
const { numberArg, flag } = require('./args');
const { runByWebhook, startInN8n } = require('./inN8n');

const REAL_MINUTES = flag('real-minutes');
const ITEMS = numberArg('items', 500);
const ROUNDS = numberArg('rounds', 5);
const LATENCIES = [20, 100];
const PACED_LATENCY = 20;
const WINDOW_MS = REAL_MINUTES ? 60_000 : 12_000;
/** The plans' limits per window: per minute, or the same rate in 12 s windows. */
const PLANS = REAL_MINUTES
	? {
			starter: { limit: 100, items: numberArg('starter-items', 300) },
			pro: { limit: 500, items: numberArg('pro-items', 1500) },
		}
	: {
			starter: { limit: 20, items: numberArg('starter-items', 100) },
			pro: { limit: 100, items: numberArg('pro-items', 500) },
		};
const UNLIMITED_KEY = 'sf_test_demo';
const CREDENTIAL = 'Storefront sandbox';

const { workflowNode: node, chain } = setup;

/** @param {{id: string, name: string}} credential @param {string} baseUrl */
function workflows(credential, baseUrl) {
	const credentials = { storefrontApi: credential };
	const head = (/** @type {string} */ hookPath) => [
		// Answer once the last node has finished, with its first item only (the run is what is measured, not the reply).
		node(
			'Webhook',
			'n8n-nodes-base.webhook',
			2,
			{
				httpMethod: 'POST',
				path: hookPath,
				responseMode: 'lastNode',
				responseData: 'firstEntryJson',
				options: {},
			},
			{ webhookId: crypto.randomUUID() },
		),
		node('Split Out', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.items', options: {} }),
	];
	return {
		storefront: {
			name: 'bench bulk: Storefront node',
			...chain([
				...head('bench-bulk-storefront'),
				node(
					'Write',
					runtime.TYPES.action,
					1,
					{
						resource: 'product',
						operation: 'update',
						productId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
						updateFields: { price: '={{ $json.price }}' },
					},
					{ credentials, onError: 'continueRegularOutput' },
				),
			]),
		},
		http: {
			name: 'bench bulk: HTTP Request',
			...chain([
				...head('bench-bulk-http'),
				node(
					'Write',
					'n8n-nodes-base.httpRequest',
					4.5,
					{
						method: 'PUT',
						url: `=${baseUrl}/products/{{ $json.id }}`,
						authentication: 'predefinedCredentialType',
						nodeCredentialType: 'storefrontApi',
						sendBody: true,
						specifyBody: 'json',
						jsonBody: '={"price": {{ $json.price }}}',
						options: {},
					},
					{ credentials, onError: 'continueRegularOutput' },
				),
			]),
		},
	};
}

const median = (/** @type {number[]} */ list) =>
	[...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const productId = (/** @type {number} */ i) => `prod_${String(i + 1).padStart(5, '0')}`;

async function main() {
	const products = Math.max(ITEMS, PLANS.starter.items, PLANS.pro.items);
	const { sandbox, n8n, client, admin, stop } = await startInN8n('bulk', {
		sizes: { products, orders: 10, customers: 10 },
		latencyMs: LATENCIES[0],
	});
	try {
		const useKey = (/** @type {string} */ apiKey) =>
			setup.ensureCredential(client, {
				name: CREDENTIAL,
				data: { baseUrl: sandbox.baseUrl, apiKey, webhookSecret: sandbox.webhookSecret },
			});
		const credential = await useKey(UNLIMITED_KEY);
		/** @type {Record<string, {id: string, url: string}>} */
		const targets = {};
		for (const [key, def] of Object.entries(workflows(credential, sandbox.baseUrl))) {
			const created = await client.createWorkflow(def);
			const url = setup.productionWebhookUrl(n8n.url, created, 'n8n-nodes-base.webhook');
			await setup.activate(client, created.id, url);
			targets[key] = { id: created.id, url };
		}

		let generation = 0;
		/**
		 * One execution writing `count` prices: wall time, the write node's time, failed items, the sandbox's log of it.
		 * @param {string} key @param {number} count
		 */
		const run = async (key, count) => {
			const target = targets[key];
			generation++;
			// A new price for every product in every run (cents apart from the last run's), so that every write changes it.
			const items = Array.from({ length: count }, (_, i) => ({
				id: productId(i),
				price: Math.round((generation + 1 + (i % 100) / 100) * 100) / 100,
			}));
			await admin('DELETE', '/requests');
			const { wallMs, execution } = await runByWebhook(client, target, key, items);
			const [write] = runData(execution).Write;
			const out = (write.data?.main[0] ?? []).map((item) => item.json);
			if (out.length !== count)
				throw new Error(`${key}: ${out.length} items out of the write node, ${count} expected`);
			const failed = out.filter((json) => json.error !== undefined).length;
			/** @type {Array<{at: string, method: string, path: string, status: number | string, ms: number}>} */
			const log = await admin('GET', '/requests');
			const puts = log.filter((r) => r.method === 'PUT' && r.path.startsWith('/v1/products/'));
			const ok = puts.filter((r) => r.status === 200);
			const wrong = items.filter(
				(item) => sandbox.state.products?.get(item.id)?.price !== item.price,
			).length;
			if (wrong !== failed)
				throw new Error(`${key}: ${wrong} prices not as sent, but ${failed} failed items`);
			return {
				wallMs,
				nodeMs: write.executionTime,
				failed,
				requests: puts.length,
				refused: puts.filter((r) => r.status === 429).length,
				other: puts.length - ok.length - puts.filter((r) => r.status === 429).length,
				// When each successful request reached the sandbox (the log's `at` is when it was answered).
				arrivals: ok.map((r) => Date.parse(r.at) - r.ms).sort((a, b) => a - b),
			};
		};

		console.log(
			`Bulk writes in n8n ${n8n.version} (pid ${n8n.child.pid}), sandbox on ${sandbox.baseUrl} with ${products} products (load average ${os.loadavg()[0].toFixed(1)})`,
		);

		// Part 1: unlimited key, both latencies.
		console.log(
			`\nUnlimited key (${UNLIMITED_KEY}): ${ITEMS} items per run, ${ROUNDS} rounds, interleaved`,
		);
		for (const key of ['storefront', 'http']) await run(key, ITEMS); // warm-up of both
		/** @type {Record<string, Array<Awaited<ReturnType<typeof run>>>>} */
		const results = {};
		for (let r = 0; r < ROUNDS; r++) {
			for (const latency of LATENCIES) {
				await admin('PUT', '/latency', { ms: latency });
				for (const key of r % 2 ? ['http', 'storefront'] : ['storefront', 'http']) {
					const result = await run(key, ITEMS);
					(results[`${key} ${latency}`] ??= []).push(result);
					console.log(
						`  round ${r + 1} latency ${String(latency).padStart(3)} ms ${key.padEnd(10)} wall ${result.wallMs.toFixed(0)} ms, node ${result.nodeMs} ms, ${result.failed} failed items, ${result.requests} PUTs (${result.refused} × 429, ${result.other} other errors)`,
					);
				}
			}
		}
		const m = (
			/** @type {string} */ key,
			/** @type {'wallMs' | 'nodeMs' | 'failed' | 'requests'} */ field,
		) => median(results[key].map((x) => x[field]));
		/** @type {string[]} */
		const summary = [];
		console.log(`\nMedians of ${ROUNDS} rounds, ${ITEMS} items, unlimited key:\n`);
		console.log(
			'| Latency | Storefront node: wall / node time | HTTP Request: wall / node time | Storefront ÷ HTTP Request (wall) | node time ratio | failed items | PUTs logged |',
		);
		console.log('|---|---|---|---|---|---|---|');
		for (const latency of LATENCIES) {
			const s = `storefront ${latency}`;
			const h = `http ${latency}`;
			const ratio = m(s, 'wallMs') / m(h, 'wallMs');
			console.log(
				`| ${latency} ms | ${m(s, 'wallMs').toFixed(0)} / ${m(s, 'nodeMs')} ms | ${m(h, 'wallMs').toFixed(0)} / ${m(h, 'nodeMs')} ms | **${ratio.toFixed(2)}** | ${(m(s, 'nodeMs') / m(h, 'nodeMs')).toFixed(2)} | ${Math.max(...results[s].map((x) => x.failed))} / ${Math.max(...results[h].map((x) => x.failed))} | ${m(s, 'requests')} / ${m(h, 'requests')} |`,
			);
			summary.push(
				`latency ${latency} ms: Storefront ÷ HTTP Request ${ratio.toFixed(2)} (goal ≤ 1.0: ${ratio <= 1 ? 'met' : 'NOT met'})`,
			);
		}
		console.log('(failed items: the most in any round; PUTs: median, ideal ' + ITEMS + ')');

		// Part 2: paced, Starter and Pro, with and without X-RateLimit-* headers.
		await admin('PUT', '/latency', { ms: PACED_LATENCY });
		console.log(
			`\nPaced: ${WINDOW_MS / 1000} s windows, Starter ${PLANS.starter.limit} and Pro ${PLANS.pro.limit} per window, latency ${PACED_LATENCY} ms, a new key of the plan for every run`,
		);
		/** @type {string[]} */
		const paced = [];
		let keys = 0;
		for (const headers of [true, false]) {
			for (const plan of /** @type {Array<'starter' | 'pro'>} */ (['starter', 'pro'])) {
				const { limit, items } = PLANS[plan];
				for (const key of ['storefront', 'http']) {
					const apiKey = `sf_test_${plan}_bench_${++keys}`;
					await admin('POST', '/keys', { key: apiKey, plan });
					await admin('PUT', '/ratelimit', {
						window_ms: WINDOW_MS,
						limits: { [plan]: limit },
						headers,
					});
					await useKey(apiKey);
					const result = await run(key, items);
					await admin('DELETE', `/keys/${apiKey}`);
					const label = `${plan === 'starter' ? 'Starter' : 'Pro'} (${limit}/${WINDOW_MS / 1000} s), ${headers ? 'with headers' : 'no headers'}`;
					if (key === 'http') {
						console.log(
							`  ${label}, HTTP Request (n8n defaults, for reference): wall ${(result.wallMs / 1000).toFixed(1)} s, ${result.failed} of ${items} items failed, ${result.refused} × 429`,
						);
						paced.push(
							`| ${label} | HTTP Request (n8n defaults) | ${items} | — | — | ${result.refused} | **${result.failed}** | ${(result.wallMs / 1000).toFixed(1)} s |`,
						);
						continue;
					}
					const { arrivals } = result;
					const first = arrivals[0];
					const last = arrivals[arrivals.length - 1];
					const inFirstWindow = arrivals.filter((t) => t < first + WINDOW_MS).length;
					const perWindow = ((arrivals.length - inFirstWindow) / (last - first)) * WINDOW_MS;
					const ratio = perWindow / limit;
					const floorMs = (Math.ceil(items / limit) - 1) * WINDOW_MS;
					console.log(
						`  ${label}, Storefront: ${arrivals.length} successful requests, ${inFirstWindow} in the first window, then ${perWindow.toFixed(1)} per window = ${ratio.toFixed(3)} of the plan (goal ≥ 0.95: ${ratio >= 0.95 ? 'met' : 'NOT met'}); ${result.refused} × 429, ${result.failed} failed items; wall ${(result.wallMs / 1000).toFixed(1)} s (floor ${floorMs / 1000} s)`,
					);
					paced.push(
						`| ${label} | Storefront | ${items} | ${perWindow.toFixed(1)} per ${WINDOW_MS / 1000} s | **${ratio.toFixed(3)}** | ${result.refused} | **${result.failed}** | ${(result.wallMs / 1000).toFixed(1)} s (floor ${floorMs / 1000} s) |`,
					);
					summary.push(
						`${label}: achieved ÷ plan rate ${ratio.toFixed(3)} (goal ≥ 0.95: ${ratio >= 0.95 ? 'met' : 'NOT met'}), ${result.refused} × 429, ${result.failed} failed items`,
					);
				}
			}
		}
		await admin('DELETE', '/ratelimit');
		console.log(
			'\n| Plan, window, headers | Workflow | items | achieved rate after the first window | ÷ plan rate | 429s | failed items | wall time |',
		);
		console.log('|---|---|---|---|---|---|---|---|');
		for (const row of paced) console.log(row);
		console.log(`\n${summary.join('\n')}`);
	} finally {
		await stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

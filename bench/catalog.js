#!/usr/bin/env node
// @ts-check
// Catalog sync in a real n8n (pinned 2.41.1, one process): a shop of P products (1,000) and R rows keyed by SKU (500:
// 60 % known SKUs of which one in 30 has a new price, 40 % new SKUs, every value text as a CSV gives it), synced twice
// (the second time nothing changed), two ways, in the same n8n against the same sandbox:
//   storefront  Webhook → Split Out (body.items) → Storefront 1.2 Product › Create or Update (Map Automatically, sku)
//   handbuilt   Webhook → Split Out (body.items) ─────────────────────┐
//               Webhook → Storefront 1.2 Product › Get Many (Return All) → Merge (by sku, rows enriched with the
//               product, the row's values winning) → If (the row has a product id) → Storefront Update (name,
//               price, stock) / Storefront Create: what a user builds with this package's other operations; like
//               most such workflows it updates every known row, changed or not.
// Write nodes are set to "On Error: Continue" so that a failed item is counted instead of ending the run. The sandbox
// is reset to the same P products before each variant, and answers every API request 20 ms late (--latency).
//
// Part 1, unlimited key (sf_test_demo, Business): per variant and sync, the requests the sandbox logged (GET, POST,
// PUT), failed items, wall time of the webhook call; the Create or Update node's hint.
// Part 2, paced: the Starter plan's rate, by default in 12 s windows of 20 (100 a minute ÷ 5; the same rate) and with
// `--real-minutes` in one-minute windows of 100, with the sandbox's X-RateLimit-* headers. A new Starter key for every
// run (POST /__admin/keys), so that each starts with a governor that knows nothing. Per variant: requests, 429s,
// failed items, wall time beside the ideal (ceil(requests ÷ limit) − 1) windows: the first window's requests go at
// once and the last window's at its opening (see bench/flashsale.js).
// Prints figures and ratios, asserts nothing (it stops when a run does not happen as described: a price not written).
// Run after `npm run build` and `node dev/n8n/prepare.js`:
//   node bench/catalog.js [--products 1000] [--rows 500] [--latency 20] [--real-minutes] [--no-paced]
// (paced, the hand-built sync of 500 rows sends about 510 requests: about 5 minutes at the Starter rate.)
'use strict';

const crypto = require('node:crypto');
const os = require('node:os');

const runtime = require('../dev/n8n/runtime');
const { runData } = require('../dev/n8n/rest');
const setup = require('../dev/n8n/instance');
const { numberArg, flag } = require('./args');
const { runByWebhook, startInN8n } = require('./inN8n');

const PRODUCTS = numberArg('products', 1000);
const ROWS = numberArg('rows', 500);
const LATENCY = numberArg('latency', 20);
const REAL_MINUTES = flag('real-minutes');
const WINDOW_MS = REAL_MINUTES ? 60_000 : 12_000;
const STARTER_LIMIT = REAL_MINUTES ? 100 : 20;
const UNLIMITED_KEY = 'sf_test_demo';
const CREDENTIAL = 'Storefront sandbox';
const WRITE_NODES = ['Create or Update', 'Update', 'Create'];

const { workflowNode: node } = setup;
const to = (/** @type {string} */ name, index = 0) => ({ node: name, type: 'main', index });

/** The two workflows, each behind its own webhook. @param {{id: string, name: string}} credential */
function workflows(credential) {
	const credentials = { storefrontApi: credential };
	const onError = 'continueRegularOutput';
	const head = (/** @type {string} */ hookPath) => [
		node('Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: hookPath, responseMode: 'lastNode', responseData: 'firstEntryJson', options: {} }, { webhookId: crypto.randomUUID() }),
		node('Rows', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.items', options: {} }),
	];
	const storefront = [
		...head('bench-catalog-storefront'),
		node(
			'Create or Update',
			runtime.TYPES.action,
			1.2,
			// The example's own parameters (examples/catalog-sync.json): Map Automatically, matched on sku.
			setup.loadExample('catalog-sync.json').nodes.find((/** @type {any} */ n) => n.type === runtime.TYPES.action).parameters,
			{ credentials, onError },
		),
	];
	const handbuilt = [
		...head('bench-catalog-handbuilt'),
		node('Catalog', runtime.TYPES.action, 1.2, { resource: 'product', operation: 'getAll', returnAll: true, filters: {} }, { credentials, executeOnce: true }),
		node('Merge', 'n8n-nodes-base.merge', 3, {
			mode: 'combine',
			combineBy: 'combineByFields',
			fieldsToMatchString: 'sku',
			joinMode: 'enrichInput1',
			options: { clashHandling: { values: { resolveClash: 'preferInput1' } } },
		}),
		node('Known?', 'n8n-nodes-base.if', 2.2, {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
				conditions: [{ id: crypto.randomUUID(), leftValue: '={{ $json.id }}', rightValue: '', operator: { type: 'string', operation: 'exists', singleValue: true } }],
				combinator: 'and',
			},
			options: {},
		}),
		node(
			'Update',
			runtime.TYPES.action,
			1.2,
			{
				resource: 'product',
				operation: 'update',
				productId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				updateFields: { name: '={{ $json.name }}', price: '={{ Number($json.price) }}', stock: '={{ Number($json.stock) }}' },
			},
			{ credentials, onError },
		),
		node(
			'Create',
			runtime.TYPES.action,
			1.2,
			{ resource: 'product', operation: 'create', name: '={{ $json.name }}', price: '={{ Number($json.price) }}', additionalFields: { sku: '={{ $json.sku }}', stock: '={{ Number($json.stock) }}' } },
			{ credentials, onError },
		),
	];
	handbuilt.forEach((n, i) => (n.position = [220 * i, 0]));
	storefront.forEach((n, i) => (n.position = [220 * i, 0]));
	return {
		storefront: {
			name: 'bench catalog: Create or Update',
			nodes: storefront,
			connections: { Webhook: { main: [[to('Rows')]] }, Rows: { main: [[to('Create or Update')]] } },
			settings: { executionOrder: 'v1' },
		},
		handbuilt: {
			name: 'bench catalog: Get Many → Merge → If → Create/Update',
			nodes: handbuilt,
			connections: {
				Webhook: { main: [[to('Rows'), to('Catalog')]] },
				Rows: { main: [[to('Merge', 0)]] },
				Catalog: { main: [[to('Merge', 1)]] },
				Merge: { main: [[to('Known?')]] },
				'Known?': { main: [[to('Update')], [to('Create')]] },
			},
			settings: { executionOrder: 'v1' },
		},
	};
}

/** The rows of the sync, as a CSV gives them: known SKUs first (one in 30 repriced), then new ones. @param {any} sandbox */
function rowsOf(sandbox) {
	const known = Math.min(Math.round(ROWS * 0.6), PRODUCTS);
	const existing = [...sandbox.state.products.values()].slice(0, known).map((/** @type {any} */ p, /** @type {number} */ n) => ({
		sku: p.sku,
		name: p.name,
		price: (p.price + (n % 30 === 0 ? 1 : 0)).toFixed(2),
		stock: String(p.stock),
	}));
	const fresh = Array.from({ length: ROWS - known }, (_, n) => ({ sku: `BENCH-${n}`, name: `Bench Product ${n}`, price: `${10 + (n % 90)}.50`, stock: '7' }));
	return [...existing, ...fresh];
}

async function main() {
	const sizes = { products: PRODUCTS, orders: 10, customers: 10 };
	const { sandbox, n8n, client, admin, stop } = await startInN8n('catalog', { sizes, latencyMs: LATENCY });
	try {
		const useKey = (/** @type {string} */ apiKey) =>
			setup.ensureCredential(client, { name: CREDENTIAL, data: { baseUrl: sandbox.baseUrl, apiKey, webhookSecret: sandbox.webhookSecret } });
		const credential = await useKey(UNLIMITED_KEY);
		/** @type {Record<string, {id: string, url: string}>} */
		const targets = {};
		for (const [key, def] of Object.entries(workflows(credential))) {
			const created = await client.createWorkflow(def);
			const url = setup.productionWebhookUrl(n8n.url, created, 'n8n-nodes-base.webhook');
			await setup.activate(client, created.id, url);
			targets[key] = { id: created.id, url };
		}

		/** One sync of `rows`: wall time, requests by method, 429s, failed items, the hint. @param {string} key @param {any[]} rows */
		const sync = async (key, rows) => {
			const target = targets[key];
			await admin('DELETE', '/requests');
			const { wallMs, execution } = await runByWebhook(client, target, key, rows);
			const data = runData(execution);
			const written = WRITE_NODES.flatMap((name) => (data[name]?.[0]?.data?.main[0] ?? []).map((/** @type {any} */ item) => item.json));
			const failed = written.filter((json) => json.error !== undefined).length;
			/** @type {any} */
			const task = data['Create or Update']?.[0];
			const hints = (task?.hints ?? []).map((/** @type {any} */ h) => h.message);
			/** @type {Array<{method: string, status: number | string}>} */
			const log = await admin('GET', '/requests');
			const count = (/** @type {string} */ method) => log.filter((r) => r.method === method && r.status !== 429).length;
			const wrong = rows.filter((row) => {
				const matches = [...sandbox.state.products.values()].filter((p) => p.sku === row.sku);
				return matches.length !== 1 || matches[0].price.toFixed(2) !== row.price;
			}).length;
			if (wrong !== failed) throw new Error(`${key}: ${wrong} rows not in the shop as sent (or there twice), but ${failed} failed items`);
			return { wallMs, get: count('GET'), post: count('POST'), put: count('PUT'), refused: log.filter((r) => r.status === 429).length, requests: log.length, failed, hints };
		};
		const fresh = async () => admin('POST', '/reset', { sizes });

		console.log(
			`Catalog sync in n8n ${n8n.version} (pid ${n8n.child.pid}): ${PRODUCTS} products, ${ROWS} rows, sandbox latency ${LATENCY} ms (load average ${os.loadavg()[0].toFixed(1)})`,
		);
		console.log('\nUnlimited key: each variant on the same fresh shop, then the same rows again\n');
		console.log('| Workflow | sync | GET | POST | PUT | requests | failed items | wall time | hint |');
		console.log('|---|---|---|---|---|---|---|---|---|');
		/** @type {Record<string, any>} */
		const first = {};
		for (const key of ['storefront', 'handbuilt']) {
			await fresh();
			const rows = rowsOf(sandbox);
			for (const round of ['first', 'again']) {
				const r = await sync(key, rows);
				if (round === 'first') first[key] = r;
				console.log(`| ${key} | ${round} | ${r.get} | ${r.post} | ${r.put} | ${r.requests} | ${r.failed} | ${(r.wallMs / 1000).toFixed(1)} s | ${r.hints.join('; ')} |`);
			}
		}
		const ratio = first.storefront.requests / first.handbuilt.requests;
		console.log(`\nFirst sync: Create or Update ÷ hand-built requests ${ratio.toFixed(2)}, wall time ${(first.storefront.wallMs / first.handbuilt.wallMs).toFixed(2)}`);

		if (flag('no-paced')) return;
		console.log(`\nStarter plan's rate: ${STARTER_LIMIT} per ${WINDOW_MS / 1000} s window, X-RateLimit-* headers on, a new key each run\n`);
		console.log('| Workflow | requests | 429s | failed items | wall time | ideal | wall ÷ ideal | hint |');
		console.log('|---|---|---|---|---|---|---|---|');
		let keys = 0;
		for (const key of ['storefront', 'handbuilt']) {
			await fresh();
			const rows = rowsOf(sandbox);
			const apiKey = `sf_test_starter_catalog_${++keys}`;
			await admin('POST', '/keys', { key: apiKey, plan: 'starter' });
			await admin('PUT', '/ratelimit', { window_ms: WINDOW_MS, limits: { starter: STARTER_LIMIT }, headers: true });
			await useKey(apiKey);
			const r = await sync(key, rows);
			await admin('DELETE', `/keys/${apiKey}`);
			const ideal = (Math.ceil((r.requests - r.refused) / STARTER_LIMIT) - 1) * WINDOW_MS;
			console.log(
				`| ${key} | ${r.requests - r.refused} | ${r.refused} | **${r.failed}** | ${(r.wallMs / 1000).toFixed(1)} s | ${(ideal / 1000).toFixed(0)} s | ${ideal ? (r.wallMs / ideal).toFixed(2) : '—'} | ${r.hints.join('; ')} |`,
			);
		}
		await admin('DELETE', '/ratelimit');
		await useKey(UNLIMITED_KEY);
	} finally {
		await stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

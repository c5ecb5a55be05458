#!/usr/bin/env node
// @ts-check
// Catalog sync in a real n8n (pinned 2.41.1, one process), two ways, in the same n8n against the same sandbox:
//   storefront  Webhook → Split Out (body.items) → Storefront Product › Create or Update (Map Automatically, sku)
//   handbuilt   Webhook → Split Out (body.items) ─────────────────────┐
//               Webhook → Storefront Product › Get Many (Return All) → Merge (by sku, rows enriched with the
//               product, the row's values winning) → If (the row has a product id) → Storefront Update (name,
//               price, stock) / Storefront Create: what a user builds with this package's other operations; like
//               most such workflows it updates every known row, changed or not.
// Rows keyed by SKU, every value text as a CSV gives it: 1 row, an existing SKU with a new price; up to 99 rows, half
// known SKUs (rounded up), each with a new price, the rest new SKUs (10 rows: 5 changed, 5 new); 100 rows or more, 60 %
// known SKUs of which one in 30 has a new price, 40 % new SKUs (500 rows: 300 known, 10 changed, 200 new). New SKUs are
// BENCH-00000 …, so that no new SKU is a part of another (a search for BENCH-1 would also list BENCH-10 … BENCH-199).
// Write nodes are set to "On Error: Continue" so that a failed item is counted instead of ending the run. The sandbox
// answers every API request 20 ms late (--latency).
//
// Part 1, the matrix (default): for each shop size (--sizes, products) and run size (--rows), each variant on a fresh
// shop (POST /__admin/reset) and a new unlimited key (Business, POST /__admin/keys; so each cell is the first run of the
// n8n process on its account, as Create or Update learns a catalog's size per account and process), synced twice: the
// rows, then the same rows again (nothing to write). Per sync: the requests the sandbox logged (GET, POST, PUT), the
// time they take at the Starter plan's rate (100 a minute), computed from the count as the sandbox's fixed one-minute
// windows pace them (the formula is printed with the table; part 2 measures it), and the wall time of the webhook call
// on the unlimited key, with the CPU time the sandbox (in this process) spent meanwhile; Create or Update's hints. Then
// package ÷ hand-built ratios. A hand-built first sync slower than --handbuilt-once-over seconds (120) is not run again
// (the same rows again would read the whole catalog once more).
// Part 2, paced (--paced; slow): one shop (--paced-products, 1000) and run (--paced-rows, 500) at the Starter plan's
// rate, by default in 12 s windows of 20 (100 a minute ÷ 5; the same rate) and with `--real-minutes` in one-minute
// windows of 100, with the sandbox's X-RateLimit-* headers. A new Starter key for every run, so that each starts with a
// governor that knows nothing. Per variant: requests, 429s, failed items, wall time beside the ideal (ceil(requests ÷
// limit) − 1) windows: the first window's requests go at once and the last window's at its opening (see
// bench/flashsale.js). (The hand-built sync of 500 rows sends about 510 requests: about 5 minutes.)
// Part 3, the list envelopes (--envelopes full,total_pages_top,has_more,none): instead of parts 1 and 2, Create or
// Update's first run in the process (a new key) for each way a list shows its length and end (the sandbox's compat
// `pagination`), each shop size and run size: the requests. `--sizes 20000,100000 --envelopes …` is docs/performance.md's table.
// Prints figures and ratios, asserts nothing (it stops when a run does not happen as described: a price not written).
// Run after `npm run build` and `node dev/n8n/prepare.js`:
//   node bench/catalog.js [--sizes 1000,20000,100000] [--rows 1,10,500] [--latency 20] [--find-by auto|lookup|catalog]
//                         [--envelopes full,meta,total_pages,total_pages_top,last_page,has_more,next_page,none]
//                         [--handbuilt-once-over 120] [--paced [--paced-products 1000] [--paced-rows 500] [--real-minutes]]
// The defaults take about 6 minutes here, half of it at 100,000 products (the hand-built workflow reads 1,000 pages a
// sync; the sandbox searches its products one by one, about 70 ms a lookup).
'use strict';

const crypto = require('node:crypto');
const os = require('node:os');

const runtime = require('../dev/n8n/runtime');
const { runData } = require('../dev/n8n/rest');
const setup = require('../dev/n8n/instance');
const { numberArg, stringArg, flag } = require('./args');
const { runByWebhook, startInN8n } = require('./inN8n');

/** A comma-separated list of whole numbers after `--name`. @param {string} name @param {string} fallback */
function listArg(name, fallback) {
	const list = stringArg(name, fallback).split(',').map(Number);
	if (list.some((n) => !Number.isInteger(n) || n < 1))
		throw new Error(`--${name}: whole numbers of 1 or more, comma-separated`);
	return list;
}

const SIZES = listArg('sizes', '1000,20000,100000');
const ROW_COUNTS = listArg('rows', '1,10,500');
const LATENCY = numberArg('latency', 20);
const FIND_BY = stringArg('find-by', '');
const HANDBUILT_ONCE_OVER_MS = numberArg('handbuilt-once-over', 120) * 1000;
const PACED = flag('paced');
const PACED_PRODUCTS = numberArg('paced-products', 1000);
const PACED_ROWS = numberArg('paced-rows', 500);
const REAL_MINUTES = flag('real-minutes');
const WINDOW_MS = REAL_MINUTES ? 60_000 : 12_000;
const STARTER_LIMIT = REAL_MINUTES ? 100 : 20;
/** The Starter plan: 100 requests in each fixed one-minute window (docs/api-contract.md; sandbox/ratelimit.js). */
const STARTER = { perWindow: 100, windowMs: 60_000 };
const UNLIMITED_KEY = 'sf_test_demo';
const CREDENTIAL = 'Storefront sandbox';
const WRITE_NODES = ['Create or Update', 'Update', 'Create'];
const VARIANTS = ['storefront', 'handbuilt'];
/** --envelopes: sandbox compat `pagination` settings, each a way a list shows its length and end. */
const ENVELOPES = stringArg('envelopes', '').split(',').filter(Boolean);
/** @type {Record<string, string>} */
const ENVELOPE_NAMES = {
	full: "`total` (this project's sandbox)",
	meta: '`total` and `total_pages` in `meta`',
	total_pages: '`total_pages` in `meta`',
	total_pages_top: '`total_pages` at the top level',
	last_page: '`last_page` in `meta`',
	has_more: '`has_more` only',
	next_page: '`next_page` only',
	none: 'a short last page only',
};
for (const envelope of ENVELOPES)
	if (!(envelope in ENVELOPE_NAMES))
		throw new Error(`--envelopes: some of ${Object.keys(ENVELOPE_NAMES).join(', ')}`);
if (FIND_BY && !['auto', 'lookup', 'catalog'].includes(FIND_BY))
	throw new Error('--find-by: auto, lookup or catalog');

const { workflowNode: node } = setup;
const to = (/** @type {string} */ name, index = 0) => ({ node: name, type: 'main', index });

/**
 * The example's Create or Update parameters, each row's product as output (the example outputs a summary for its
 * form), with --find-by as Find Products By when given. @param {any} parameters
 */
const withFindBy = (parameters) => ({
	...parameters,
	output: 'products',
	...(FIND_BY ? { findProductsBy: FIND_BY } : {}),
});

/** The two workflows, each behind its own webhook. @param {{id: string, name: string}} credential */
function workflows(credential) {
	const credentials = { storefrontApi: credential };
	const onError = 'continueRegularOutput';
	const head = (/** @type {string} */ hookPath) => [
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
		node('Rows', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.items', options: {} }),
	];
	const storefront = [
		...head('bench-catalog-storefront'),
		node(
			'Create or Update',
			runtime.TYPES.action,
			1,
			// The example's own parameters (examples/catalog-sync.json): Map Automatically, matched on sku.
			// --find-by sets Options › Find Products By.
			withFindBy(
				setup
					.loadExample('catalog-sync.json')
					.nodes.find((/** @type {any} */ n) => n.type === runtime.TYPES.action).parameters,
			),
			{ credentials, onError },
		),
	];
	const handbuilt = [
		...head('bench-catalog-handbuilt'),
		node(
			'Catalog',
			runtime.TYPES.action,
			1,
			{ resource: 'product', operation: 'getAll', returnAll: true, filters: {} },
			{ credentials, executeOnce: true },
		),
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
				conditions: [
					{
						id: crypto.randomUUID(),
						leftValue: '={{ $json.id }}',
						rightValue: '',
						operator: { type: 'string', operation: 'exists', singleValue: true },
					},
				],
				combinator: 'and',
			},
			options: {},
		}),
		node(
			'Update',
			runtime.TYPES.action,
			1,
			{
				resource: 'product',
				operation: 'update',
				productId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				updateFields: {
					name: '={{ $json.name }}',
					price: '={{ Number($json.price) }}',
					stock: '={{ Number($json.stock) }}',
				},
			},
			{ credentials, onError },
		),
		node(
			'Create',
			runtime.TYPES.action,
			1,
			{
				resource: 'product',
				operation: 'create',
				name: '={{ $json.name }}',
				price: '={{ Number($json.price) }}',
				additionalFields: { sku: '={{ $json.sku }}', stock: '={{ Number($json.stock) }}' },
			},
			{ credentials, onError },
		),
	];
	handbuilt.forEach((n, i) => (n.position = [220 * i, 0]));
	storefront.forEach((n, i) => (n.position = [220 * i, 0]));
	return {
		storefront: {
			name: 'bench catalog: Create or Update',
			nodes: storefront,
			connections: {
				Webhook: { main: [[to('Rows')]] },
				Rows: { main: [[to('Create or Update')]] },
			},
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

/**
 * The rows of a sync of `count` rows, as a CSV gives them: known SKUs first (the shop's first products), then new ones.
 * @param {any} sandbox @param {number} count
 */
function rowsOf(sandbox, count) {
	const large = count >= 100;
	const known = Math.min(
		large ? Math.round(count * 0.6) : Math.ceil(count / 2),
		sandbox.state.products.size,
	);
	const changeEvery = large ? 30 : 1;
	const existing = [...sandbox.state.products.values()]
		.slice(0, known)
		.map((/** @type {any} */ p, /** @type {number} */ n) => ({
			sku: p.sku,
			name: p.name,
			price: (p.price + (n % changeEvery === 0 ? 1 : 0)).toFixed(2),
			stock: String(p.stock),
		}));
	const fresh = Array.from({ length: count - known }, (_, n) => ({
		sku: `BENCH-${String(n).padStart(5, '0')}`,
		name: `Bench Product ${n}`,
		price: `${10 + (n % 90)}.50`,
		stock: '7',
	}));
	return [...existing, ...fresh];
}

/**
 * What `requests` take at the Starter plan's rate, as the sandbox's limiter paces them (fixed windows opened by the
 * key's first request; what a window cannot take waits for the next): the first window's go at once, each later
 * window's at its opening, so ceil(N / 100) − 1 windows are waited out whole; the last window's r = N − 100 ×
 * (ceil(N / 100) − 1) requests then take their share of the unlimited run's wall time (wall × r ÷ N).
 * @param {number} requests @param {number} wallMs
 */
function starterMs(requests, wallMs) {
	const waited = Math.max(0, Math.ceil(requests / STARTER.perWindow) - 1);
	const rest = requests - waited * STARTER.perWindow;
	return waited * STARTER.windowMs + (requests ? (wallMs * rest) / requests : 0);
}

const thousands = (/** @type {number} */ n) => n.toLocaleString('en-US');
/** 12.3 s below a minute, 9 min 4 s above. @param {number} ms */
function duration(ms) {
	if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
	const s = Math.round(ms / 1000);
	return `${Math.floor(s / 60)} min ${s % 60} s`;
}
/** Two decimals, or two significant digits below 0.1 (a few seconds against minutes). @param {number} a @param {number} b */
function ratio(a, b) {
	if (!b) return '—';
	const r = a / b;
	return r >= 0.1 || r === 0 ? r.toFixed(2) : r.toPrecision(2);
}

async function main() {
	const sizes = { products: SIZES[0], orders: 10, customers: 10 };
	const { sandbox, n8n, client, admin, stop } = await startInN8n('catalog', {
		sizes,
		latencyMs: LATENCY,
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
			const { wallMs, cpuMs, execution } = await runByWebhook(client, target, key, rows);
			const data = runData(execution);
			const written = WRITE_NODES.flatMap((name) =>
				(data[name]?.[0]?.data?.main[0] ?? []).map((/** @type {any} */ item) => item.json),
			);
			const failed = written.filter((json) => json.error !== undefined).length;
			/** @type {any} */
			const task = data['Create or Update']?.[0];
			const hints = (task?.hints ?? []).map((/** @type {any} */ h) => h.message);
			/** @type {Array<{method: string, status: number | string}>} */
			const log = await admin('GET', '/requests');
			const count = (/** @type {string} */ method) =>
				log.filter((r) => r.method === method && r.status !== 429).length;
			/** @type {Map<string, any[]>} */
			const bySku = new Map();
			for (const p of sandbox.state.products?.values() ?? [])
				bySku.set(p.sku, [...(bySku.get(p.sku) ?? []), p]);
			const wrong = rows.filter((row) => {
				const matches = bySku.get(row.sku) ?? [];
				return matches.length !== 1 || matches[0].price.toFixed(2) !== row.price;
			}).length;
			if (wrong !== failed)
				throw new Error(
					`${key}: ${wrong} rows not in the shop as sent (or there twice), but ${failed} failed items`,
				);
			return {
				wallMs,
				cpuMs,
				get: count('GET'),
				post: count('POST'),
				put: count('PUT'),
				refused: log.filter((r) => r.status === 429).length,
				requests: log.length,
				failed,
				hints,
			};
		};
		const fresh = async (/** @type {number} */ products) =>
			admin('POST', '/reset', { sizes: { ...sizes, products } });
		let keys = 0;
		/** A new key of `plan` for the credential: a governor, and an account Create or Update has learnt nothing of. */
		const newKey = async (/** @type {string} */ plan) => {
			const apiKey = `sf_test_${plan}_catalog_${++keys}`;
			await admin('POST', '/keys', { key: apiKey, plan });
			await useKey(apiKey);
			return apiKey;
		};

		if (ENVELOPES.length) {
			// Part 3: Create or Update's first run in the process on each account, however the list shows its end.
			console.log(
				`Create or Update in n8n ${n8n.version}, the first run on a new key, requests the sandbox logged (GET / POST / PUT), ` +
					`sandbox latency ${LATENCY} ms; rows: 1 = an existing SKU with a new price, 10 = 5 changed and 5 new, 500 = 300 known (10 changed) and 200 new\n`,
			);
			console.log(
				`| how the list shows its end | Products | ${ROW_COUNTS.map((n) => `${n} row${n === 1 ? '' : 's'}`).join(' | ')} |`,
			);
			console.log(`|---|---|${ROW_COUNTS.map(() => '---').join('|')}|`);
			for (const envelope of ENVELOPES)
				for (const products of SIZES) {
					const cells = [];
					for (const count of ROW_COUNTS) {
						await fresh(products);
						await admin('PUT', '/compat', { pagination: envelope });
						const apiKey = await newKey('business');
						const r = await sync('storefront', rowsOf(sandbox, count));
						await admin('DELETE', `/keys/${apiKey}`);
						cells.push(`${thousands(r.requests)} (${r.get} / ${r.post} / ${r.put})`);
						console.error(
							`  ${envelope}, ${thousands(products)} products, ${count} rows: ${r.requests} requests; ${r.hints.join('; ')}`,
						);
					}
					console.log(
						`| ${ENVELOPE_NAMES[envelope]} | ${thousands(products)} | ${cells.join(' | ')} |`,
					);
				}
			await admin('PUT', '/compat', { pagination: 'full' });
			return;
		}
		console.log(
			`Catalog sync in n8n ${n8n.version} (pid ${n8n.child.pid}): ${SIZES.map(thousands).join(', ')} products × ${ROW_COUNTS.join(', ')} rows, ` +
				`sandbox latency ${LATENCY} ms${FIND_BY ? `, Find Products By ${FIND_BY}` : ''} (load average ${os.loadavg()[0].toFixed(1)})`,
		);
		console.log(
			'\nEach variant on a fresh shop and a new unlimited key: the rows (first), then the same rows again (again).',
		);
		console.log(
			`Requests: GET / POST / PUT = all the sandbox logged. At Starter: N requests at ${STARTER.perWindow} a minute in the sandbox's fixed one-minute windows, ` +
				`computed, not measured: (ceil(N / 100) − 1) × 60 s + wall × r / N, r = N − 100 × (ceil(N / 100) − 1), the last window's requests ` +
				`(the first window's go at once, each later one's at its opening). Wall: the webhook call on the unlimited key; sandbox CPU: the CPU time of this process (the sandbox answering) meanwhile.\n`,
		);
		console.log(
			'| Products | Rows | Workflow | first: GET / POST / PUT | requests | at Starter | wall (sandbox CPU) | again: GET / POST / PUT | requests | at Starter | wall (sandbox CPU) | failed items |',
		);
		console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
		/** @type {Array<{products: number, rows: number, hints: string[], results: Record<string, Array<any>>}>} */
		const cells = [];
		for (const products of SIZES) {
			for (const count of ROW_COUNTS) {
				/** @type {Record<string, Array<any>>} */
				const results = {};
				/** @type {string[]} */
				const hints = [];
				for (const key of VARIANTS) {
					await fresh(products);
					const rows = rowsOf(sandbox, count);
					const apiKey = await newKey('business');
					const runs = [];
					for (const round of ['first', 'again']) {
						if (round === 'again' && key === 'handbuilt' && runs[0].wallMs > HANDBUILT_ONCE_OVER_MS)
							break;
						const r = await sync(key, rows);
						runs.push(r);
						console.error(
							`  ${thousands(products)} products, ${count} row${count === 1 ? '' : 's'}, ${key} ${round}: ${r.requests} requests, ${duration(r.wallMs)}`,
						);
						if (key === 'storefront') hints.push(`${round}: ${r.hints.join('; ')}`);
					}
					await admin('DELETE', `/keys/${apiKey}`);
					results[key] = runs;
					const [first, again] = runs;
					const cellsOf = (/** @type {any} */ r) =>
						r
							? `${r.get} / ${r.post} / ${r.put} | ${thousands(r.requests)} | ${duration(starterMs(r.requests, r.wallMs))} | ${duration(r.wallMs)} (${duration(r.cpuMs)})`
							: `not run (first sync over ${HANDBUILT_ONCE_OVER_MS / 1000} s) | | |`;
					console.log(
						`| ${thousands(products)} | ${count} | ${key} | ${cellsOf(first)} | ${cellsOf(again)} | ${runs.map((r) => r.failed).join(' / ')} |`,
					);
				}
				cells.push({ products, rows: count, hints, results });
			}
		}

		console.log('\nCreate or Update ÷ hand-built:\n');
		console.log(
			'| Products | Rows | requests, first | again | at Starter, first | again | wall, first | again |',
		);
		console.log('|---|---|---|---|---|---|---|---|');
		for (const { products, rows, results } of cells) {
			const [sf, hb] = [results.storefront, results.handbuilt];
			const of = (/** @type {number} */ i, /** @type {(r: any) => number} */ f) =>
				sf[i] && hb[i] ? ratio(f(sf[i]), f(hb[i])) : '—';
			console.log(
				`| ${thousands(products)} | ${rows} | ${of(0, (r) => r.requests)} | ${of(1, (r) => r.requests)} | ` +
					`${of(0, (r) => starterMs(r.requests, r.wallMs))} | ${of(1, (r) => starterMs(r.requests, r.wallMs))} | ${of(0, (r) => r.wallMs)} | ${of(1, (r) => r.wallMs)} |`,
			);
		}
		console.log("\nCreate or Update's hints:\n");
		for (const { products, rows, hints } of cells)
			for (const hint of hints)
				console.log(
					`- ${thousands(products)} products, ${rows} row${rows === 1 ? '' : 's'}, ${hint}`,
				);

		if (!PACED) return;
		console.log(
			`\nStarter plan's rate: ${STARTER_LIMIT} per ${WINDOW_MS / 1000} s window, X-RateLimit-* headers on, a new key each run; ` +
				`${thousands(PACED_PRODUCTS)} products, ${PACED_ROWS} rows\n`,
		);
		console.log(
			'| Workflow | requests | 429s | failed items | wall time | ideal | wall ÷ ideal | hint |',
		);
		console.log('|---|---|---|---|---|---|---|---|');
		await admin('PUT', '/ratelimit', {
			window_ms: WINDOW_MS,
			limits: { starter: STARTER_LIMIT },
			headers: true,
		});
		for (const key of VARIANTS) {
			await fresh(PACED_PRODUCTS);
			const rows = rowsOf(sandbox, PACED_ROWS);
			const apiKey = await newKey('starter');
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

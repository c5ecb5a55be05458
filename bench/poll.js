#!/usr/bin/env node
// Storefront Polling Trigger (issue 27): what a poll costs in requests, and how big the state n8n saves for it gets,
// on a small shop and a big one. poll() runs through n8n-core's PollContext with static data saved as n8n saves it
// (test/helpers/poll.ts), all five event kinds selected, against the in-process sandbox over real HTTP. For each shop:
//   activation      - the baseline (reads up to 5 pages of each list, reports nothing)
//   first poll      - the poll after it, nothing changed in between
//   nothing new     - polls with no change since the last one (median of --polls), twice: while the cursor is still
//                     at the seed's newest change (which many seeded orders share on a big shop), and after changes
//   10 changes      - 5 checkouts + 5 status changes of existing orders (pending ones first) before the poll
//   250 changes     - 200 checkouts + 50 status changes: n8n was down for a while (medians of --rounds)
// Requests are counted from the sandbox's request log (GET /v1/orders and /v1/products). The saved state's size is
// the JSON of the workflow's static data as last saved. On the biggest shop it is then filled: --fill distinct orders
// change status through the API between two polls; and, as a worst case, every cap of state.ts is filled at once
// (orders and products changed in one millisecond, so that the ids kept at the cursor reach their cap too).
// Poll wall times are information (they include the sandbox sorting its whole list again after a change).
// Prints figures and ratios, asserts nothing. Needs no build (the TypeScript sources are compiled on require):
//   node bench/poll.js [--orders 1000,100000] [--products 500] [--customers 2000] [--polls 5] [--rounds 3] [--fill 3000]
'use strict';
const path = require('path');
const fs = require('fs');

const root = path.join(__dirname, '..');
const { numberArg: arg, stringArg } = require('./args');
const SHOPS = stringArg('orders', '1000,100000').split(',').map(Number);
const PRODUCTS = arg('products', 500);
const CUSTOMERS = arg('customers', 2000);
const POLLS = arg('polls', 5);
const ROUNDS = arg('rounds', 3);
const FILL = arg('fill', 3000);
const EVENTS = [
	'order.created',
	'order.updated',
	'payment.completed',
	'product.created',
	'inventory.low',
];

// The harness is TypeScript: compiled on require (bench/typescript.js).
require('./typescript');

const { createPoller } = require(path.join(root, 'test/helpers/poll.ts'));
const { MAX_STATUSES, MAX_LOW, MAX_AT_CURSOR } = require(
	path.join(root, 'nodes/shared/changes/state.ts'),
);
const { startSandbox } = require(path.join(root, 'sandbox'));
const { ORDER_TRANSITIONS } = require(path.join(root, 'sandbox/catalog'));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const int = (n) => Math.round(n).toLocaleString('en-US');
const kb = (bytes) => `${int(bytes)} B (${(bytes / 1024).toFixed(1)} KiB)`;

async function main() {
	const sb = await startSandbox({
		quiet: true,
		sizes: { products: PRODUCTS, orders: SHOPS[0], customers: CUSTOMERS },
	});
	const credentials = { baseUrl: sb.baseUrl, apiKey: sb.apiKey };
	const admin = async (method, adminPath, body) => {
		const response = await sb.admin(method, adminPath, body);
		if (response.status >= 300)
			throw new Error(
				`admin ${method} ${adminPath}: ${response.status} ${JSON.stringify(response.body)}`,
			);
		return response.body;
	};
	const api = async (method, apiPath, body) => {
		const response = await fetch(`${sb.baseUrl}${apiPath}`, {
			method,
			headers: { Authorization: `Bearer ${sb.apiKey}`, 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (response.status >= 300)
			throw new Error(`${method} ${apiPath}: ${response.status} ${await response.text()}`);
		return await response.json();
	};
	/** `count` existing orders that can still change, pending ones first, none twice in a run. */
	let used = new Set();
	const changeable = (count) => {
		const all = [...sb.state.orders.values()].filter(
			(o) => !used.has(o.id) && ORDER_TRANSITIONS[o.status].length > 0,
		);
		const picked = [
			...all.filter((o) => o.status === 'pending'),
			...all.filter((o) => o.status !== 'pending'),
		].slice(0, count);
		if (picked.length < count)
			throw new Error(`only ${picked.length} orders left that can change status`);
		for (const o of picked) used.add(o.id);
		return picked;
	};
	const advance = async (orders, inFlight = 8) => {
		const queue = [...orders];
		const worker = async () => {
			for (let o = queue.shift(); o; o = queue.shift())
				await api('PUT', `/orders/${o.id}/status`, { status: ORDER_TRANSITIONS[o.status][0] });
		};
		await Promise.all(Array.from({ length: inFlight }, worker));
	};
	const change = async (checkouts, statusChanges) => {
		for (let i = 0; i < checkouts; i++) await admin('POST', '/simulate/checkout', {});
		await advance(changeable(statusChanges));
	};
	/** One poll (or the activation) with its requests from the sandbox's log, items and wall time. */
	const measure = async (p, fn) => {
		await admin('DELETE', '/requests');
		const start = process.hrtime.bigint();
		const items = await fn();
		const ms = Number(process.hrtime.bigint() - start) / 1e6;
		const log = (await admin('GET', '/requests')).filter((r) => r.method === 'GET');
		const orders = log.filter((r) => r.path === '/v1/orders').length;
		const products = log.filter((r) => r.path === '/v1/products').length;
		return {
			requests: orders + products,
			orders,
			products,
			items: items ? items.length : 0,
			ms,
			saved: Buffer.byteLength(p.saved),
		};
	};
	const parts = (p) => {
		const s = p.savedState() ?? {};
		return {
			statuses: s.orders?.statuses.length ?? 0,
			low: s.products?.low.length ?? 0,
			atCursor: (s.orders?.atCursor.length ?? 0) + (s.products?.atCursor.length ?? 0),
		};
	};

	const results = [];
	for (const orders of SHOPS) {
		const sizes = { products: PRODUCTS, orders, customers: CUSTOMERS };
		const start = Date.now();
		await admin('POST', '/reset', { sizes });
		const seedMs = Date.now() - start;
		const newest = [...sb.state.orders.values()].reduce(
			(max, o) => (o.updated_at > max ? o.updated_at : max),
			'',
		);
		const tied = [...sb.state.orders.values()].filter((o) => o.updated_at === newest).length;
		used = new Set();
		const p = createPoller(credentials, { events: EVENTS, options: {} });
		const rows = [];
		const row = (name, list) => {
			const pick = (key) => median(list.map((r) => r[key]));
			const r = {
				name,
				requests: pick('requests'),
				orders: pick('orders'),
				products: pick('products'),
				items: pick('items'),
				ms: pick('ms'),
				saved: list[list.length - 1].saved,
				runs: list.length,
			};
			rows.push(r);
			return r;
		};

		const activation = row('activation (baseline)', [await measure(p, () => p.activate())]);
		const afterBaseline = parts(p);
		// Until something changes after the activation the cursor stays at the seed's newest change, which many
		// seeded orders share (the sandbox stamps changes of the seed's last days with its end): each poll re-reads them.
		row('first poll after it, nothing changed', [await measure(p, () => p.poll())]);
		const idle = async (name) => {
			const list = [];
			for (let i = 0; i < POLLS; i++) list.push(await measure(p, () => p.poll()));
			return row(name, list);
		};
		await idle('nothing new, cursor at the seed');
		const ten = [];
		for (let i = 0; i < ROUNDS; i++) {
			await change(5, 5);
			ten.push(await measure(p, () => p.poll()));
		}
		row('10 changes (5 checkouts, 5 status)', ten);
		const many = [];
		for (let i = 0; i < ROUNDS; i++) {
			await change(200, 50);
			many.push(await measure(p, () => p.poll()));
		}
		row('250 changes (200 checkouts, 50 status)', many);
		await idle('nothing new');
		const afterPolls = { ...parts(p), saved: Buffer.byteLength(p.saved) };

		let fill;
		let worst;
		if (orders === Math.max(...SHOPS)) {
			// n8n was down while FILL distinct orders changed status: one poll reads them all and keeps the newest.
			await advance(changeable(FILL));
			fill = row(`${int(FILL)} orders changed status (fill)`, [await measure(p, () => p.poll())]);
			fill.parts = parts(p);
			// Worst case: every cap full at once. Orders changed and products created (low) in one millisecond, so
			// that the events at the new cursor also exceed MAX_AT_CURSOR; stamped in-process (no API can do that).
			const at = new Date(Date.now() + 1000).toISOString();
			for (const o of changeable(MAX_STATUSES + 500))
				Object.assign(o, { status: ORDER_TRANSITIONS[o.status][0], updated_at: at });
			for (let i = 0; i < MAX_LOW + 500; i++) {
				const product = sb.state.createProduct({ name: `Bench shelf ${i}`, price: 1, stock: 0 });
				Object.assign(product, { created_at: at, updated_at: at });
			}
			sb.state.changed();
			worst = row('every cap full (worst case)', [await measure(p, () => p.poll())]);
			worst.parts = parts(p);
		}
		// What the sandbox adds to a poll's wall time after a change: it sorts its whole order list again.
		const page1 = async () => {
			const t = process.hrtime.bigint();
			await api('GET', '/orders?page=1&limit=100');
			return Number(process.hrtime.bigint() - t) / 1e6;
		};
		const resorted = [];
		const cached = [];
		for (let i = 0; i < 5; i++) {
			sb.state.changed();
			resorted.push(await page1());
			cached.push(await page1());
		}
		const sandboxMs = { resorted: median(resorted), cached: median(cached) };
		results.push({
			orders,
			seedMs,
			tied,
			sandboxMs,
			rows,
			activation,
			afterBaseline,
			afterPolls,
			fill,
			worst,
		});

		console.log(
			`\nShop of ${int(orders)} orders, ${int(PRODUCTS)} products, ${int(CUSTOMERS)} customers (seeded in ${int(seedMs)} ms; ${int(tied)} orders share the newest updated_at); events: all five`,
		);
		console.log(
			'  poll                                      requests (orders+products)  items  wall ms  saved state after it',
		);
		for (const r of rows) {
			const req = `${r.requests} (${r.orders}+${r.products})`;
			const runs = r.runs > 1 ? ` median of ${r.runs}` : '';
			console.log(
				`  ${r.name.padEnd(41)} ${req.padEnd(27)} ${String(r.items).padStart(5)}  ${r.ms.toFixed(1).padStart(7)}  ${kb(r.saved)}${runs}`,
			);
		}
		const describe = (x) =>
			`order statuses ${x.statuses}, low products ${x.low}, ids at the cursors ${x.atCursor}`;
		console.log(
			`  saved state after the baseline:           ${kb(activation.saved)}: ${describe(afterBaseline)}`,
		);
		console.log(
			`  saved state after those polls:            ${kb(afterPolls.saved)}: ${describe(afterPolls)}`,
		);
		if (fill)
			console.log(
				`  saved state after the fill:               ${kb(fill.saved)}: ${describe(fill.parts)}`,
			);
		if (worst)
			console.log(
				`  saved state, every cap full:              ${kb(worst.saved)}: ${describe(worst.parts)} (caps: ${MAX_STATUSES} statuses, ${MAX_LOW} low, ${MAX_AT_CURSOR} ids per cursor)`,
			);
		console.log(
			`  sandbox, GET /orders page 1:              ${sandboxMs.resorted.toFixed(1)} ms after a change (whole list sorted again), ${sandboxMs.cached.toFixed(1)} ms unchanged`,
		);
	}
	await sb.stop();

	const first = results[0];
	const last = results[results.length - 1];
	const line = (label, name, what = 'requests') => {
		const a = first.rows.find((r) => r.name === name);
		const b = last.rows.find((r) => r.name === name);
		const items = what === 'items' ? `; items ${a.items} / ${b.items}` : '';
		console.log(
			`${label}: ${a.requests} requests at ${int(first.orders)} orders, ${b.requests} at ${int(last.orders)} (ratio ${(b.requests / a.requests).toFixed(2)})` +
				`${items}; wall ${a.ms.toFixed(1)} vs ${b.ms.toFixed(1)} ms (ratio ${(b.ms / a.ms).toFixed(2)})`,
		);
	};
	console.log('');
	line('nothing new', 'nothing new');
	line(
		`nothing new, cursor still at the seed's newest change (${int(first.tied)} / ${int(last.tied)} orders in that millisecond)`,
		'nothing new, cursor at the seed',
	);
	line(
		'first poll after the baseline, nothing changed',
		'first poll after it, nothing changed',
		'items',
	);
	line('10 changes', '10 changes (5 checkouts, 5 status)', 'items');
	line('250 changes', '250 changes (200 checkouts, 50 status)', 'items');
	line('activation', 'activation (baseline)');
	const sizes = results.map((r) => Math.max(...r.rows.map((row) => row.saved)));
	console.log(
		`largest saved state: ${results.map((r, i) => `${kb(sizes[i])} at ${int(r.orders)} orders`).join(', ')}`,
	);
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);

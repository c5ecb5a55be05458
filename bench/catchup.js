#!/usr/bin/env node
// Storefront Trigger, Catch Up After Downtime (issue 36): what a catch-up costs after a restart with nothing missed,
// by shop size and by how many changes ran in the minutes before the restart. trigger() runs through n8n-core's
// TriggerContext and the runs through WorkflowExecute (test/helpers/webhook.ts), against the in-process sandbox over
// real HTTP, every event of the catch-up's kinds selected. For each shop: the baseline (first activation), then
// `recent` changes (checkouts and status changes) delivered and run, then a restart: requests per list (GET /v1/orders
// and /v1/products, from the sandbox's request log), changes read, changes the catch-up's run passed on (0: nothing
// was missed), and its wall time (information). A shop with more than 100 changes of a list in the catch-up's margin
// (five minutes before the newest change that ran) pays one request per 100 of them.
// Prints figures and ratios, asserts nothing. Needs no build (the TypeScript sources are compiled on require):
//   node bench/catchup.js [--orders 1000,20000] [--recent 0,10,150,500]
'use strict';
const path = require('path');

const root = path.join(__dirname, '..');
const { stringArg } = require('./args');
const SHOPS = stringArg('orders', '1000,20000').split(',').map(Number);
const RECENT = stringArg('recent', '0,10,150,500').split(',').map(Number);
const SECRET = 'whsec_bench_catchup';

require('./typescript');

const { createHmac } = require('crypto');
const { createTriggerHarness } = require(path.join(root, 'test/helpers/webhook.ts'));
const { StorefrontTrigger } = require(
	path.join(root, 'nodes/StorefrontTrigger/StorefrontTrigger.node.ts'),
);
// The kinds a catch-up reports (nodes/StorefrontTrigger/catchUp.ts).
const CATCH_UP_KINDS = ['order.created', 'order.updated', 'payment.completed', 'product.created'];
const { startSandbox } = require(path.join(root, 'sandbox'));
const { ORDER_TRANSITIONS } = require(path.join(root, 'sandbox/catalog'));

const int = (n) => Math.round(n).toLocaleString('en-US');

async function main() {
	console.log(
		'shop orders | changes run before the restart | GET /v1/orders | GET /v1/products | changes read | passed on | catch-up ms',
	);
	for (const orders of SHOPS) {
		const sb = await startSandbox({
			quiet: true,
			sizes: { products: 300, orders, customers: 200 },
		});
		const admin = async (method, adminPath, body) => {
			const response = await sb.admin(method, adminPath, body);
			if (response.status >= 300)
				throw new Error(
					`admin ${method} ${adminPath}: ${response.status} ${JSON.stringify(response.body)}`,
				);
			return response.body;
		};
		for (const recent of RECENT) {
			const t = createTriggerHarness({
				nodeType: new StorefrontTrigger(),
				typeVersion: 2,
				// Catch-up at activation and start only, as measured: no scheduled check for missed events.
				parameters: { events: ['*'], options: { missedEventsCheckMinutes: 0 } },
				credentials: { baseUrl: sb.baseUrl, apiKey: sb.apiKey, webhookSecret: SECRET },
			});
			await t.trigger('activate');
			const from = sb.events.length;
			// Half new orders, half status changes of orders that can move on.
			const movers = [...sb.state.orders.values()]
				.filter((o) => (ORDER_TRANSITIONS[o.status] ?? []).length)
				.slice(0, recent - Math.ceil(recent / 2));
			for (let i = 0; i < Math.ceil(recent / 2); i++) await admin('POST', '/simulate/checkout', {});
			for (const order of movers) {
				const res = await fetch(`${sb.baseUrl}/orders/${order.id}/status`, {
					method: 'PUT',
					headers: { Authorization: `Bearer ${sb.apiKey}`, 'Content-Type': 'application/json' },
					body: JSON.stringify({ status: ORDER_TRANSITIONS[order.status][0] }),
				});
				if (res.status !== 200) throw new Error(`status change: ${res.status}`);
			}
			for (const event of sb.events.slice(from).filter((e) => CATCH_UP_KINDS.includes(e.type))) {
				const body = Buffer.from(JSON.stringify(event));
				const outcome = await t.deliver({
					body,
					headers: {
						'Content-Type': 'application/json',
						'X-Service-Signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
					},
				});
				await t.run(outcome.result);
			}
			await admin('DELETE', '/requests');
			const started = process.hrtime.bigint();
			const { runs } = await t.trigger('init');
			const ms = Number(process.hrtime.bigint() - started) / 1e6;
			const requests = await admin('GET', '/requests');
			const count = (p) => requests.filter((r) => r.method === 'GET' && r.path === p).length;
			const read = runs.reduce((n, r) => n + (r.workflowData?.[0]?.length ?? 0), 0);
			let passed = 0;
			for (const run of runs) passed += (await t.run(run)).length;
			console.log(
				`${int(orders)} | ${recent} | ${count('/v1/orders')} | ${count('/v1/products')} | ${read} | ${passed} | ${ms.toFixed(0)}`,
			);
		}
		await sb.stop();
	}
	console.log(
		"\nRequests per list after a restart with nothing missed: 1 while fewer than 100 records of the list changed in the margin; the shop's size does not matter.",
	);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

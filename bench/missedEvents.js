#!/usr/bin/env node
// Storefront Trigger, Check for Missed Events (issue 41): what the checks cost a quiet shop, by shop size and by how
// the service reads the spec (sandbox profiles: the contract's lists, most recently changed first with updated_at; the
// spec-literal ones, oldest first without updated_at, read whole). trigger() runs through n8n-core's TriggerContext
// (test/helpers/webhook.ts) against the in-process sandbox over real HTTP, every event of the catch-up's kinds
// selected. Per shop: the requests of one reading (the activation's, which reads what a quiet scheduled reading reads),
// its wall time, then what the scheduled readings cost at the default interval (5 minutes): a reading's requests past
// the first 2 are paced 6 s apart and the next reading waits for it (nodes/StorefrontTrigger/missedEvents.ts), so the
// figures below the measured ones are that rule applied to the measured count. On the smallest contract shop one
// scheduled reading is also run, to show the rule's count in practice.
// Prints figures and ratios, asserts nothing. Needs no build (the TypeScript sources are compiled on require):
//   node bench/missedEvents.js [--orders 1000,100000] [--products 300]
'use strict';
const path = require('path');

const root = path.join(__dirname, '..');
const { numberArg, stringArg } = require('./args');
const SHOPS = stringArg('orders', '1000,100000').split(',').map(Number);
const PRODUCTS = numberArg('products', 300);
const STARTER_PER_MINUTE = 100;
const INTERVAL_MINUTES = 5;

require('./typescript');

const { createTriggerHarness } = require(path.join(root, 'test/helpers/webhook.ts'));
const { StorefrontTrigger } = require(
	path.join(root, 'nodes/StorefrontTrigger/StorefrontTrigger.node.ts'),
);
const { FREE_REQUESTS, REQUEST_SPACING_MS } = require(
	path.join(root, 'nodes/StorefrontTrigger/missedEvents.ts'),
);
const { startSandbox } = require(path.join(root, 'sandbox'));

const int = (n) => Math.round(n).toLocaleString('en-US');

async function main() {
	console.log(
		'profile | shop orders / products | requests per reading | reading ms (unpaced) | scheduled reading (paced) | readings an hour | requests a minute | share of Starter (100/min)',
	);
	for (const profile of ['contract', 'spec-literal']) {
		for (const orders of SHOPS) {
			const sb = await startSandbox({
				quiet: true,
				profile,
				sizes: { products: PRODUCTS, orders, customers: 50 },
			});
			const t = createTriggerHarness({
				nodeType: new StorefrontTrigger(),
				typeVersion: 2,
				parameters: { events: ['*'], options: { missedEventsCheckMinutes: 1 } },
				credentials: {
					baseUrl: sb.baseUrl,
					apiKey: sb.apiKey,
					webhookSecret: 'whsec_bench_missed',
				},
			});
			await sb.admin('DELETE', '/requests');
			const started = process.hrtime.bigint();
			const active = await t.trigger('activate');
			const ms = Number(process.hrtime.bigint() - started) / 1e6;
			const requests = (await sb.admin('GET', '/requests')).body.filter(
				(r) => r.method === 'GET',
			).length;
			const pacedMs = Math.max(0, requests - FREE_REQUESTS) * REQUEST_SPACING_MS;
			const everyMinutes = Math.max(INTERVAL_MINUTES, pacedMs / 60_000);
			const perMinute = requests / everyMinutes;
			console.log(
				`${profile} | ${int(orders)} / ${int(PRODUCTS)} | ${int(requests)} | ${ms.toFixed(0)} | ${(pacedMs / 1000).toFixed(0)} s | ${(60 / everyMinutes).toFixed(1)} | ${perMinute.toFixed(2)} | ${((perMinute / STARTER_PER_MINUTE) * 100).toFixed(1)} %`,
			);
			if (profile === 'contract' && orders === SHOPS[0]) {
				await sb.admin('DELETE', '/requests');
				await active.tick();
				const scheduled = (await sb.admin('GET', '/requests')).body.filter(
					(r) => r.method === 'GET',
				).length;
				console.log(
					`  one scheduled reading of the quiet ${int(orders)}-order shop: ${scheduled} requests`,
				);
			}
			await t.close();
			await sb.stop();
		}
	}
	console.log(
		`\nA quiet shop on the contract's lists: ${FREE_REQUESTS} requests per interval whatever its size. Lists read whole (spec-literal): a request per 100 records, paced so that the checks never add more than ${60_000 / REQUEST_SPACING_MS} requests a minute; a change whose delivery never arrived then waits up to the paced reading's time.`,
	);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

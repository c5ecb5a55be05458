#!/usr/bin/env node
// @ts-check
// Return All of 10,000 products in a real n8n (pinned 2.41.1, one process), the way this package does it against
// the way a user would build it without the package, both in the same n8n against the same sandbox:
//   storefront  Webhook → Storefront (Product › Get Many, Return All)
//   http        Webhook → HTTP Request (GET /products?limit=100, Storefront API credential, n8n's built-in pagination:
//               "page" = {{ $pageCount + 1 }}, complete when {{ $response.body.pagination.has_more === false }})
//               → Split Out (products), so that both end with one item per product
// Per run: wall time of the webhook call (the workflow answers when its last node has finished), the nodes' own
// execution times from n8n's run data, the requests the sandbox logged, and n8n's peak RSS during the run (the
// process's high-water mark, reset before each run through /proc/<pid>/clear_refs). Rounds alternate between the
// two; medians are printed with ratios. Goal: storefront at least as fast as http, with the ideal request count
// (ceil(10,000 / 100) = 100). Prints figures, asserts nothing.
// Run after `npm run build` and `node dev/n8n/prepare.js`:  node bench/return-all.js [--products 10000] [--rounds 5]
'use strict';

const crypto = require('node:crypto');
const os = require('node:os');

const runtime = require('../dev/n8n/runtime');
const proc = require('../dev/n8n/proc');
const { runData } = require('../dev/n8n/rest');
const setup = require('../dev/n8n/instance');
const { numberArg } = require('./args');
const { startInN8n } = require('./inN8n');

const PRODUCTS = numberArg('products', 10_000);
const ROUNDS = numberArg('rounds', 5);
const PAGE = 100;

const { workflowNode: node, chain } = setup;
// Answer once the last node has finished, with its first item only (the run is what is measured, not a 10,000-item reply).
const webhook = (/** @type {string} */ hookPath) =>
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
	);

/** @param {{id: string, name: string}} credential @param {string} baseUrl */
function workflows(credential, baseUrl) {
	const credentials = { storefrontApi: credential };
	return {
		storefront: {
			name: 'bench return-all: Storefront node',
			...chain([
				webhook('bench-return-all-storefront'),
				node(
					'Storefront',
					runtime.TYPES.action,
					1,
					{ resource: 'product', operation: 'getAll', returnAll: true, filters: {} },
					{ credentials },
				),
			]),
		},
		http: {
			name: 'bench return-all: HTTP Request with pagination',
			...chain([
				webhook('bench-return-all-http'),
				node(
					'HTTP Request',
					'n8n-nodes-base.httpRequest',
					4.2,
					{
						method: 'GET',
						url: `${baseUrl}/products`,
						authentication: 'predefinedCredentialType',
						nodeCredentialType: 'storefrontApi',
						sendQuery: true,
						queryParameters: { parameters: [{ name: 'limit', value: String(PAGE) }] },
						options: {
							pagination: {
								pagination: {
									paginationMode: 'updateAParameterInEachRequest',
									parameters: {
										parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }],
									},
									paginationCompleteWhen: 'other',
									completeExpression: '={{ $response.body.pagination.has_more === false }}',
								},
							},
						},
					},
					{ credentials },
				),
				node('Split Out', 'n8n-nodes-base.splitOut', 1, {
					fieldToSplitOut: 'products',
					options: {},
				}),
			]),
		},
	};
}

const median = (/** @type {number[]} */ list) =>
	[...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

async function main() {
	const { sandbox, n8n, client, stop } = await startInN8n('return-all', {
		sizes: { products: PRODUCTS, orders: 10, customers: 10 },
	});
	const pid = /** @type {number} */ (n8n.child.pid);
	try {
		const credential = await setup.ensureCredential(client, {
			name: 'Storefront sandbox',
			data: {
				baseUrl: sandbox.baseUrl,
				apiKey: sandbox.apiKey,
				webhookSecret: sandbox.webhookSecret,
			},
		});
		/** @type {Record<string, {id: string, url: string, nodes: string[]}>} */
		const targets = {};
		for (const [key, def] of Object.entries(workflows(credential, sandbox.baseUrl))) {
			const created = await client.createWorkflow(def);
			const url = setup.productionWebhookUrl(n8n.url, created, 'n8n-nodes-base.webhook');
			await setup.activate(client, created.id, url);
			targets[key] = { id: created.id, url, nodes: def.nodes.slice(1).map((n) => n.name) };
		}

		/** One run: wall time, node times, requests, items out, peak RSS. @param {string} key */
		const run = async (key) => {
			const target = targets[key];
			await sandbox.admin('DELETE', '/requests');
			const before = (await client.listExecutions({ workflowId: target.id, limit: 1 })).count;
			const rssBefore = proc.rssMiB(pid).now;
			proc.resetPeakRss(pid);
			const started = process.hrtime.bigint();
			const res = await fetch(target.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			await res.arrayBuffer();
			const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
			const peak = proc.rssMiB(pid).peak;
			if (res.status !== 200) throw new Error(`${key}: ${target.url} answered ${res.status}`);
			const { body: log } = await sandbox.admin('GET', '/requests');
			const requests = log.filter(
				(/** @type {any} */ r) => r.method === 'GET' && r.path === '/v1/products',
			).length;
			let list;
			while (
				(list = await client.listExecutions({ workflowId: target.id, limit: 1 })).count <= before
			)
				await new Promise((r) => setTimeout(r, 100));
			const execution = await client.getExecution(list.results[0].id);
			if (execution.status !== 'success')
				throw new Error(`${key}: execution ${execution.id} ${execution.status}`);
			const data = runData(execution);
			const nodeMs = target.nodes.reduce((sum, name) => sum + data[name][0].executionTime, 0);
			const firstNodeMs = data[target.nodes[0]][0].executionTime;
			const last = data[target.nodes[target.nodes.length - 1]][0];
			const items = last.data?.main[0]?.length ?? 0;
			if (items !== PRODUCTS) throw new Error(`${key}: ${items} items out, ${PRODUCTS} expected`);
			return { wallMs, nodeMs, firstNodeMs, requests, peakMiB: peak, growthMiB: peak - rssBefore };
		};

		console.log(
			`Return All of ${PRODUCTS} products in n8n ${n8n.version} (pid ${pid}), sandbox on ${sandbox.baseUrl}; ${ROUNDS} rounds each, alternating (load average ${os.loadavg()[0].toFixed(1)})`,
		);
		await run('storefront');
		await run('http'); // warm-up of both
		/** @type {Record<string, Array<Awaited<ReturnType<typeof run>>>>} */
		const results = { storefront: [], http: [] };
		for (let r = 0; r < ROUNDS; r++) {
			for (const key of ['storefront', 'http']) {
				const result = await run(key);
				results[key].push(result);
				console.log(
					`  round ${r + 1} ${key.padEnd(10)} wall ${result.wallMs.toFixed(0)} ms, nodes ${result.nodeMs} ms, ${result.requests} requests, peak RSS ${result.peakMiB.toFixed(0)} MiB (+${result.growthMiB.toFixed(0)})`,
				);
			}
		}
		const m = (
			/** @type {string} */ key,
			/** @type {'wallMs' | 'nodeMs' | 'firstNodeMs' | 'requests' | 'peakMiB' | 'growthMiB'} */ field,
		) => median(results[key].map((x) => x[field]));
		const ideal = Math.ceil(PRODUCTS / PAGE);
		console.log(`\nMedians of ${ROUNDS} rounds (n8n ${n8n.version}, one process, same sandbox):\n`);
		console.log(
			'| Workflow | wall time | node time | requests (ideal ' +
				ideal +
				') | n8n peak RSS | RSS growth during run |',
		);
		console.log('|---|---|---|---|---|---|');
		const label = {
			storefront: 'Webhook → Storefront (Get Many, Return All)',
			http: 'Webhook → HTTP Request (pagination) → Split Out',
		};
		for (const key of ['storefront', 'http']) {
			console.log(
				`| ${label[/** @type {'storefront' | 'http'} */ (key)]} | ${m(key, 'wallMs').toFixed(0)} ms | ${m(key, 'nodeMs')} ms | ${m(key, 'requests')} | ${m(key, 'peakMiB').toFixed(0)} MiB | +${m(key, 'growthMiB').toFixed(0)} MiB |`,
			);
		}
		const wall = m('storefront', 'wallMs') / m('http', 'wallMs');
		const node = m('storefront', 'nodeMs') / m('http', 'nodeMs');
		console.log(
			`\nstorefront / http: wall ${wall.toFixed(2)}, node time ${node.toFixed(2)} (goal ≤ 1.00: ${wall <= 1 ? 'met' : 'NOT met'}); the HTTP Request node alone ${m('http', 'firstNodeMs')} ms (storefront / it: ${(m('storefront', 'nodeMs') / m('http', 'firstNodeMs')).toFixed(2)}); requests ${m('storefront', 'requests')} vs ${m('http', 'requests')} (ideal ${ideal}); peak RSS ${(m('storefront', 'peakMiB') / m('http', 'peakMiB')).toFixed(2)}, RSS growth ${(m('storefront', 'growthMiB') / m('http', 'growthMiB')).toFixed(2)}`,
		);
	} finally {
		await stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

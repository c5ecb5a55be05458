#!/usr/bin/env node
// Benchmark (issue 5): Return All of 10,000 products from the sandbox, three ways, in one run:
//   node    - the compiled Storefront node (dist/) run through n8n-core's WorkflowExecute (test/helpers/n8n.ts)
//   helper  - a minimal node in the same harness looping over the same pages with n8n's own
//             this.helpers.httpRequestWithAuthentication (n8n's floor for any node)
//   fetch   - a plain fetch() loop over the same pages (undici, keep-alive)
// plus a few variants that show where the helper's overhead comes from. Prints figures and ratios, asserts nothing.
// Run after `npm run build`: node bench/node.js [--products 10000] [--rounds 5]
'use strict';
const path = require('path');
const fs = require('fs');
const http = require('http');

const root = path.join(__dirname, '..');
const { numberArg: arg } = require('./args');
const PRODUCTS = arg('products', 10000);
const ROUNDS = arg('rounds', 5);
const PAGE = 100;

// The harness is TypeScript: compiled on require (bench/typescript.js).
require('./typescript');

if (!fs.existsSync(path.join(root, 'dist/nodes/Storefront/Storefront.node.js'))) {
	console.error('dist/ is missing: run `npm run build` first');
	process.exit(1);
}
const harness = require(path.join(root, 'test/helpers/n8n.ts'));
const { Storefront } = require(path.join(root, 'dist/nodes/Storefront/Storefront.node.js'));
const { startSandbox } = require(path.join(root, 'sandbox'));

/** n8n's floor: the same pages through httpRequestWithAuthentication, nothing else. */
function helperLoopNode({ passCredentials = false, agentOptions } = {}) {
	return {
		description: {
			displayName: 'Helper Loop',
			name: 'helperLoop',
			group: ['transform'],
			version: 1,
			description: 'Benchmark baseline',
			defaults: { name: 'Helper Loop' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'storefrontApi', required: true }],
			properties: [],
		},
		async execute() {
			const credentials = await this.getCredentials('storefrontApi');
			const base = String(credentials.baseUrl).replace(/\/+$/, '');
			const extra = passCredentials
				? {
						credentialsDecrypted: {
							id: '',
							name: 'storefrontApi',
							type: 'storefrontApi',
							data: credentials,
						},
					}
				: undefined;
			const out = [];
			for (let page = 1; ; page++) {
				const body = await this.helpers.httpRequestWithAuthentication.call(
					this,
					'storefrontApi',
					{
						method: 'GET',
						url: `${base}/products`,
						qs: { page, limit: PAGE },
						json: true,
						...(agentOptions ? { agentOptions } : {}),
					},
					extra,
				);
				for (const json of body.products) out.push({ json, pairedItem: { item: 0 } });
				if (!body.pagination.has_more) break;
			}
			return [out];
		},
	};
}

async function fetchLoop(sb) {
	const out = [];
	for (let page = 1; ; page++) {
		const response = await fetch(`${sb.baseUrl}/products?page=${page}&limit=${PAGE}`, {
			headers: { Authorization: `Bearer ${sb.apiKey}`, Accept: 'application/json' },
		});
		const body = await response.json();
		out.push(...body.products);
		if (!body.pagination.has_more) break;
	}
	return out;
}

/** fetch-like loop that opens a new TCP connection per request, as n8n's per-request agents do. */
function getNoKeepAlive(url, key) {
	return new Promise((resolve, reject) => {
		http
			.get(
				url,
				{ agent: false, headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' } },
				(res) => {
					const chunks = [];
					res.on('data', (c) => chunks.push(c));
					res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
				},
			)
			.on('error', reject);
	});
}

async function freshConnectionLoop(sb) {
	const out = [];
	for (let page = 1; ; page++) {
		const body = await getNoKeepAlive(
			`${sb.baseUrl}/products?page=${page}&limit=${PAGE}`,
			sb.apiKey,
		);
		out.push(...body.products);
		if (!body.pagination.has_more) break;
	}
	return out;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(fn) {
	const start = process.hrtime.bigint();
	const count = await fn();
	return { ms: Number(process.hrtime.bigint() - start) / 1e6, count };
}

async function main() {
	const sb = await startSandbox({
		quiet: true,
		sizes: { products: PRODUCTS, orders: 10, customers: 10 },
	});
	const credentials = { baseUrl: sb.baseUrl, apiKey: sb.apiKey };
	harness.registerNodeType(harness.STOREFRONT_TYPE, new Storefront());
	harness.registerNodeType('bench.helperLoop', helperLoopNode());
	harness.registerNodeType('bench.helperLoopCreds', helperLoopNode({ passCredentials: true }));
	harness.registerNodeType(
		'bench.helperLoopKeepAlive',
		helperLoopNode({ agentOptions: { keepAlive: true } }),
	);

	const runNodeType = async (nodeType, parameters = {}) => {
		const { items, error } = await harness.runNode({ nodeType, parameters, credentials });
		if (error) throw new Error(`${nodeType}: ${error.message}`);
		return items.length;
	};
	const contenders = {
		node: () =>
			runNodeType(harness.STOREFRONT_TYPE, {
				resource: 'product',
				operation: 'getAll',
				returnAll: true,
			}),
		helper: () => runNodeType('bench.helperLoop'),
		fetch: async () => (await fetchLoop(sb)).length,
		'helper, credentials passed once': () => runNodeType('bench.helperLoopCreds'),
		'helper, agentOptions.keepAlive': () => runNodeType('bench.helperLoopKeepAlive'),
		'http, new connection per request': async () => (await freshConnectionLoop(sb)).length,
	};

	// Request count of the node's Return All, from the sandbox's own log.
	await sb.admin('DELETE', '/requests');
	const items = await contenders.node();
	const log = (await sb.admin('GET', '/requests')).body;
	const requests = log.filter((r) => r.path.endsWith('/products')).length;
	const ideal = Math.ceil(PRODUCTS / PAGE);

	// Warm-up (JIT, sandbox list cache), then interleaved rounds so drift hits every contender alike.
	for (const fn of Object.values(contenders)) await fn();
	const times = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
	for (let round = 0; round < ROUNDS; round++) {
		for (const [name, fn] of Object.entries(contenders)) {
			const { ms, count } = await timed(fn);
			if (count !== PRODUCTS) throw new Error(`${name} returned ${count} of ${PRODUCTS}`);
			times[name].push(ms);
		}
	}
	await sb.stop();

	const pick = (fn) =>
		Object.fromEntries(Object.entries(times).map(([name, list]) => [name, fn(list)]));
	const t = pick(median);
	const best = pick((list) => Math.min(...list));
	const fmt = (name) => `${t[name].toFixed(1)} ms (best ${best[name].toFixed(1)} ms)`;
	const ratio = (a, b) => `${(t[a] / t[b]).toFixed(3)} (best ${(best[a] / best[b]).toFixed(3)})`;
	console.log(
		`Return All of ${PRODUCTS} products (page size ${PAGE}); median and best of ${ROUNDS} interleaved rounds`,
	);
	console.log(`  items returned by the node:             ${items}`);
	console.log(
		`  requests made by the node:              ${requests} (ideal ceil(N/${PAGE}) = ${ideal})`,
	);
	console.log(`  node (Storefront, WorkflowExecute):     ${fmt('node')}`);
	console.log(`  helper loop (httpRequestWithAuth):      ${fmt('helper')}`);
	console.log(`  plain fetch loop:                       ${fmt('fetch')}`);
	console.log(
		`  ratio node / helper loop:               ${ratio('node', 'helper')}  (target <= 1.05)`,
	);
	console.log(`  ratio helper loop / fetch:              ${ratio('helper', 'fetch')}`);
	console.log(`  ratio node / fetch:                     ${ratio('node', 'fetch')}`);
	console.log('Where the helper overhead comes from:');
	console.log(
		`  helper, credentials passed once:        ${fmt('helper, credentials passed once')}`,
	);
	console.log(`  helper, agentOptions.keepAlive:         ${fmt('helper, agentOptions.keepAlive')}`);
	console.log(
		`  http, new connection per request:       ${fmt('http, new connection per request')}`,
	);
	console.log(
		`  new connections / fetch keep-alive:     ${ratio('http, new connection per request', 'fetch')}`,
	);
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);

#!/usr/bin/env node
// @ts-check
// Signed webhook deliveries per second through a real n8n (pinned 2.41.1 on Node 24), three ways:
//   (a) Storefront Trigger → No Op                     (verifies the signature over the raw bytes)
//   (b) n8n Webhook → No Op                            (no verification at all: the floor)
//   (c) n8n Webhook (Raw Body) → Crypto (HMAC over the raw bytes) → If (compare) → No Op
//       the recipe users build by hand, done right (byte-exact, as the contract signs)
//   (c') the same over JSON.stringify($json.body): the common shortcut, cheaper but not byte-exact (a body
//       with other whitespace, key order or \u escapes fails verification), printed for reference
// A delivery counts once n8n has finished and saved its execution (every webhook answers on receipt, so the
// HTTP answer alone would not include the workflow run). Rounds are interleaved a,b,c,a,b,c… and the best
// round of each is kept, so machine noise hits all three alike. Goals: a ≥ 0.95·b and a ≥ 1.3·c.
// Run after `npm run build` and `node dev/n8n/prepare.js`:  node bench/n8n.js
// Knobs: BENCH_DELIVERIES (per round, default 200), BENCH_ROUNDS (default 3), BENCH_CONCURRENCY (default 8),
// BENCH_ENGINES (default "vm,vm+lazy,legacy").
//
// Why two expression engines: n8n 2.41's default engine ("vm") evaluates expressions in isolated-vm isolates and
// creates a fresh isolate for every webhook request — except when the start node is n8n's own Webhook node with
// static parameters, which it exempts (live-webhooks.ts webhookPhaseNeedsIsolate). Every other trigger node
// (this one, and every community or built-in app trigger) pays for that isolate before its webhook() runs,
// whatever the node does. The "legacy" engine has no isolates, so there the figures compare the nodes' own work.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const runtime = require('../dev/n8n/runtime');
const { N8nClient } = require('../dev/n8n/rest');
const setup = require('../dev/n8n/instance');
const { SECRET, setUp, delivery, executionCount } = require('./deliveries');

const DELIVERIES = Number(process.env.BENCH_DELIVERIES || 200);
const ENGINES = (process.env.BENCH_ENGINES || 'vm,vm+lazy,legacy').split(',');
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 8);
const WARMUP = 30;
const { workflowNode: node, chain } = setup;

const noOp = () => node('Done', 'n8n-nodes-base.noOp', 1, {});
const webhook = (/** @type {string} */ hookPath) =>
	node(
		'Webhook',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path: hookPath, responseMode: 'onReceived', options: {} },
		{
			webhookId: crypto.randomUUID(),
		},
	);

/** @param {{storefront: {id: string, name: string}, hmac: {id: string, name: string}}} credentials */
function workflows(credentials) {
	const a = {
		name: 'bench (a) Storefront Trigger',
		...chain([
			node(
				'Storefront Trigger',
				runtime.TYPES.trigger,
				2,
				// The signature check alone, as (b) and (c) do nothing more: no duplicate check, no catch-up.
				{ events: ['order.created'], options: { dropDuplicates: false } },
				{
					webhookId: crypto.randomUUID(),
					credentials: { storefrontApi: credentials.storefront },
				},
			),
			noOp(),
		]),
	};
	const b = {
		name: 'bench (b) Webhook, no verification',
		...chain([webhook('bench-plain'), noOp()]),
	};
	/** Webhook → Crypto (HMAC) → If → No Op; `rawBody` hashes the received bytes, otherwise the re-serialised JSON. */
	const recipe = (
		/** @type {string} */ name,
		/** @type {string} */ hookPath,
		/** @type {boolean} */ rawBody,
	) => {
		const hook = webhook(hookPath);
		hook.parameters = { ...hook.parameters, options: rawBody ? { rawBody: true } : {} };
		const hmacParameters = rawBody
			? {
					action: 'hmac',
					type: 'SHA256',
					binaryData: true,
					binaryPropertyName: 'data',
					dataPropertyName: 'expected',
					encoding: 'hex',
				}
			: {
					action: 'hmac',
					type: 'SHA256',
					value: '={{ JSON.stringify($json.body) }}',
					dataPropertyName: 'expected',
					encoding: 'hex',
				};
		return {
			name,
			...chain([
				hook,
				node('HMAC', 'n8n-nodes-base.crypto', 2, hmacParameters, {
					credentials: { crypto: credentials.hmac },
				}),
				node('Signature Matches?', 'n8n-nodes-base.if', 2.2, {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
						conditions: [
							{
								id: crypto.randomUUID(),
								leftValue: "={{ 'sha256=' + $json.expected }}",
								rightValue: "={{ $json.headers['x-service-signature'] }}",
								operator: { type: 'string', operation: 'equals' },
							},
						],
						combinator: 'and',
					},
					options: {},
				}),
				noOp(),
			]),
		};
	};
	const c = recipe('bench (c) Webhook raw body + Crypto + If', 'bench-hmac-raw', true);
	const cJson = recipe(
		"bench (c') Webhook + Crypto over JSON.stringify + If",
		'bench-hmac-json',
		false,
	);
	return { a, b, c, cJson };
}

/** Send `count` signed deliveries (CONCURRENCY at a time) and wait until n8n has saved all their executions. */
async function round(
	/** @type {N8nClient} */ client,
	/** @type {{id: string, url: string}} */ target,
	/** @type {number} */ count,
) {
	const payloads = Array.from({ length: count }, (_, i) => delivery(i));
	const before = await executionCount(client, target.id);
	const started = process.hrtime.bigint();
	let next = 0;
	const worker = async () => {
		while (next < payloads.length) {
			const { body, signature } = payloads[next++];
			const res = await fetch(target.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-service-signature': signature },
				body,
			});
			await res.arrayBuffer();
			if (res.status !== 200) throw new Error(`${target.url} answered ${res.status}`);
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
	while ((await executionCount(client, target.id)) < before + count) {
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	return count / seconds;
}

/**
 * Environment of an engine spec: "vm" and "legacy" are N8N_EXPRESSION_ENGINE values; "vm+lazy" is the vm engine
 * with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, which builds an isolate only when an expression is evaluated.
 */
function engineEnv(/** @type {string} */ spec) {
	const [engine, ...flags] = spec.split('+');
	return {
		N8N_EXPRESSION_ENGINE: engine,
		...(flags.includes('lazy') ? { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } : {}),
	};
}

/** One n8n with the given expression engine; returns the best rate of each workflow. */
async function measure(/** @type {string} */ engine) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-'));
	const n8n = await runtime.startN8n({
		userFolder: dir,
		logFile: path.join(dir, 'n8n.log'),
		logLevel: 'error',
		env: engineEnv(engine),
	});
	try {
		const client = new N8nClient(n8n.url);
		const storefront = await setUp(client);
		const hmac = await client.createCredential({
			name: 'HMAC secret',
			type: 'crypto',
			data: { hmacSecret: SECRET },
		});
		const defs = workflows({ storefront, hmac: { id: String(hmac.id), name: 'HMAC secret' } });

		/** @type {Record<string, {id: string, url: string}>} */
		const targets = {};
		for (const [key, def] of Object.entries(defs)) {
			const created = await client.createWorkflow({ ...def, settings: { executionOrder: 'v1' } });
			const type = key === 'a' ? runtime.TYPES.trigger : 'n8n-nodes-base.webhook';
			const url = setup.productionWebhookUrl(n8n.url, created, type);
			await setup.activate(client, created.id, url);
			targets[key] = { id: created.id, url };
		}

		// Warm-up: JIT, caches, first-execution set-up; and a check that the recipes really take their "true" branch.
		for (const target of Object.values(targets)) await round(client, target, WARMUP);
		const { nodeOutput } = require('../dev/n8n/rest');
		for (const key of ['c', 'cJson']) {
			const [last] = (await client.listExecutions({ workflowId: targets[key].id, limit: 1 }))
				.results;
			if (
				(nodeOutput(await client.getExecution(last.id), 'Signature Matches?', 0) ?? []).length !== 1
			) {
				throw new Error(
					`recipe (${key}) did not verify the signature: the benchmark would compare unlike work`,
				);
			}
		}

		/** @type {Record<string, number[]>} */
		const rates = { a: [], b: [], c: [], cJson: [] };
		console.log(
			`expression engine "${engine}": ${ROUNDS} rounds × ${DELIVERIES} signed deliveries, ${CONCURRENCY} in flight`,
		);
		for (let r = 0; r < ROUNDS; r++) {
			for (const key of ['a', 'b', 'c', 'cJson']) {
				const rate = await round(client, targets[key], DELIVERIES);
				rates[key].push(rate);
				console.log(`  round ${r + 1} (${key}) ${rate.toFixed(1)} deliveries/s`);
			}
		}
		const best = (/** @type {number[]} */ list) => Math.max(...list);
		return { a: best(rates.a), b: best(rates.b), c: best(rates.c), cJson: best(rates.cJson) };
	} finally {
		await n8n.stop();
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

async function main() {
	runtime.assertInstalled();
	/** @type {Array<[string, {a: number, b: number, c: number, cJson: number}]>} */
	const results = [];
	for (const engine of ENGINES) results.push([engine, await measure(engine)]);
	console.log(
		'\nSigned deliveries per second through n8n 2.41.1 (best round; executions finished and saved):',
	);
	for (const [engine, { a, b, c, cJson }] of results) {
		console.log(`
 expression engine "${engine}"${engine === 'vm' ? ' (n8n default)' : ''}:
  (a)  Storefront Trigger                                ${a.toFixed(1)}/s
  (b)  Webhook, no verification                          ${b.toFixed(1)}/s
  (c)  Webhook raw body → Crypto (HMAC) → If             ${c.toFixed(1)}/s
  (c') Webhook → Crypto over JSON.stringify → If         ${cJson.toFixed(1)}/s  (not byte-exact)
  a / b  = ${(a / b).toFixed(3)}   (goal ≥ 0.95) ${a / b >= 0.95 ? 'met' : 'NOT met'}
  a / c  = ${(a / c).toFixed(3)}   (goal ≥ 1.30) ${a / c >= 1.3 ? 'met' : 'NOT met'}
  a / c' = ${(a / cJson).toFixed(3)}`);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

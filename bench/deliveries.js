// @ts-check
// What the benchmarks that send signed deliveries through a real n8n share (bench/n8n.js, bench/queue.js,
// bench/dedupe.js): the instance set-up, the delivery itself, the trigger workflow and how finished executions are
// counted.
'use strict';

const crypto = require('node:crypto');

const setup = require('../dev/n8n/instance');
const { TYPES } = require('../dev/n8n/runtime');

/** The webhook secret of the benchmarks' Storefront credential. */
const SECRET = 'whsec_bench';

/**
 * Signs in as the benchmarks' owner and returns the Storefront credential holding SECRET. It only verifies
 * deliveries: its API base URL leads nowhere.
 * @param {import('../dev/n8n/rest').N8nClient} client
 */
async function setUp(client) {
	await client.ensureOwner({
		email: 'bench@storefront.example',
		password: 'Bench-pass-1',
		firstName: 'Bench',
		lastName: 'Owner',
	});
	return setup.ensureCredential(client, {
		name: 'Storefront bench',
		data: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sf_unused', webhookSecret: SECRET },
	});
}

/** An order.created event of a new id, shaped like the sandbox's, signed over its exact bytes. */
function delivery(/** @type {number} */ n) {
	const body = JSON.stringify({
		id: `evt_bench_${crypto.randomUUID()}`,
		type: 'order.created',
		created_at: new Date().toISOString(),
		data: {
			order_id: `ord_${String(n).padStart(5, '0')}`,
			store_id: 'store_001',
			total: 129.97,
			currency: 'USD',
			status: 'pending',
			items: [
				{
					product_id: 'prod_00042',
					name: 'Coastal Fountain Pen - White',
					quantity: 2,
					price: 24.99,
				},
				{
					product_id: 'prod_00117',
					name: 'Essential Wireless Earbuds - Ivory',
					quantity: 1,
					price: 79.99,
				},
			],
		},
	});
	const signature = `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
	return { body, signature };
}

/**
 * "Storefront Trigger (order.created) → Done (No Op)", as the benchmarks send it to n8n: deliveries only (Catch Up
 * After Downtime off: the credential's API leads nowhere), with `options` over that.
 * @param {string} name @param {Record<string, unknown>} options the trigger's options @param {{id: string, name: string}} credential
 */
function triggerWorkflow(name, options, credential) {
	return {
		name,
		nodes: [
			{
				id: crypto.randomUUID(),
				name: 'Storefront Trigger',
				type: TYPES.trigger,
				typeVersion: 2,
				position: [0, 0],
				webhookId: crypto.randomUUID(),
				parameters: { events: ['order.created'], options: { catchUp: false, ...options } },
				credentials: { storefrontApi: credential },
			},
			{
				id: crypto.randomUUID(),
				name: 'Done',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		connections: { 'Storefront Trigger': { main: [[{ node: 'Done', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/**
 * How many executions of the workflow n8n has saved; fails as soon as the newest one failed (a benchmark of a
 * broken workflow would measure nothing).
 * @param {import('../dev/n8n/rest').N8nClient} client @param {string} workflowId
 */
async function executionCount(client, workflowId) {
	const { count, results } = await client.listExecutions({ workflowId, limit: 1 });
	if (results[0] && results[0].status === 'error')
		throw new Error(`workflow ${workflowId} failed: execution ${results[0].id}`);
	return count;
}

module.exports = { SECRET, setUp, delivery, triggerWorkflow, executionCount };

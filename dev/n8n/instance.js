// @ts-check
// Setting an n8n instance up for this package without clicks: the demo workflows from examples/, bound to a
// Storefront credential, activated, and the production webhook URL of their trigger. Every step is
// idempotent (found by name first), so a second `npm start` on the same data folder just reuses them.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, TYPES } = require('./runtime');

const EXAMPLES_DIR = path.join(ROOT, 'examples');
const CREDENTIAL_TYPE = TYPES.credential;

/** @param {string} name file name below examples/, e.g. 'order-intake.json' */
function loadExample(name) {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, name), 'utf8'));
}

/**
 * Point every node that uses Storefront credentials at `credential` (a copy; the input is not changed).
 * @param {any} workflow @param {{id: string, name: string}} credential
 */
function bindCredential(workflow, credential) {
	const copy = JSON.parse(JSON.stringify(workflow));
	for (const node of copy.nodes) {
		if (node.credentials && CREDENTIAL_TYPE in node.credentials) {
			node.credentials[CREDENTIAL_TYPE] = { id: credential.id, name: credential.name };
		}
	}
	return copy;
}

/**
 * The credential called `name`, created or updated to hold `data`.
 * @param {import('./rest').N8nClient} client
 * @param {{name: string, data: {baseUrl: string, apiKey: string, webhookSecret?: string}}} o
 */
async function ensureCredential(client, { name, data }) {
	const existing = (await client.listCredentials()).find(
		(/** @type {any} */ c) => c.name === name && c.type === CREDENTIAL_TYPE,
	);
	if (existing) {
		await client.request('PATCH', `/credentials/${existing.id}`, {
			name,
			type: CREDENTIAL_TYPE,
			data,
		});
		return { id: String(existing.id), name, created: false };
	}
	const created = await client.createCredential({ name, type: CREDENTIAL_TYPE, data });
	return { id: String(created.id), name, created: true };
}

/**
 * The workflow named like `workflow.name`, created when missing.
 * @param {import('./rest').N8nClient} client @param {any} workflow
 */
async function ensureWorkflow(client, workflow) {
	const existing = (await client.listWorkflows()).find(
		(/** @type {any} */ w) => w.name === workflow.name,
	);
	if (existing) return { ...(await client.getWorkflow(existing.id)), created: false };
	const { name, nodes, connections, settings } = workflow;
	return {
		...(await client.createWorkflow({ name, nodes, connections, settings })),
		created: true,
	};
}

/**
 * The production URL n8n serves a webhook node under: /webhook/<webhookId>/<path> (path 'webhook' for the
 * Storefront Trigger, whichever way the package is installed) or /webhook/<path> for nodes that set a full path
 * (n8n's Webhook node).
 * @param {string} n8nUrl @param {any} workflow @param {string} [nodeType]
 */
function productionWebhookUrl(n8nUrl, workflow, nodeType = TYPES.trigger) {
	const node = workflow.nodes.find((/** @type {any} */ n) => n.type === nodeType);
	if (!node) throw new Error(`${workflow.name} has no ${nodeType} node`);
	if (nodeType.endsWith('.storefrontTrigger')) return `${n8nUrl}/webhook/${node.webhookId}/webhook`;
	return `${n8nUrl}/webhook/${node.parameters.path}`;
}

/**
 * n8n 2.x registers a published workflow's webhooks shortly after the activation call returns. Wait until
 * the production URL is live: a GET then says "not registered for GET requests" instead of "not registered".
 * @param {string} url @param {{timeoutMs?: number, live?: boolean}} [o] live=false waits for it to go away
 */
async function waitForWebhook(url, { timeoutMs = 30_000, live = true } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const res = await fetch(url);
		const text = await res.text();
		const registered = res.status !== 404 || /not registered for GET/.test(text);
		if (registered === live) return;
		if (Date.now() > deadline)
			throw new Error(`webhook ${url} did not become ${live ? 'live' : 'inactive'}`);
		await new Promise((resolve) => setTimeout(resolve, 150));
	}
}

/**
 * Activate (publish) a workflow unless it is already active, and wait for its webhook to be live.
 * @param {import('./rest').N8nClient} client @param {string} id @param {string} [webhookUrl]
 */
async function activate(client, id, webhookUrl) {
	const workflow = await client.getWorkflow(id);
	if (!workflow.active) await client.activateWorkflow(id);
	if (webhookUrl) await waitForWebhook(webhookUrl);
}

/** @param {import('./rest').N8nClient} client @param {string} id @param {string} [webhookUrl] */
async function deactivate(client, id, webhookUrl) {
	await client.deactivateWorkflow(id);
	if (webhookUrl) await waitForWebhook(webhookUrl, { live: false });
}

/**
 * Poll n8n's executions list until `predicate(list)` holds.
 * @param {import('./rest').N8nClient} client @param {string} workflowId
 * @param {(executions: any[]) => boolean} predicate @param {number} [timeoutMs]
 */
async function waitForExecutions(client, workflowId, predicate, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const { results } = await client.listExecutions({ workflowId, limit: 100 });
		const finished = results.filter(
			(/** @type {any} */ e) => e.status !== 'running' && e.status !== 'new',
		);
		if (predicate(finished)) return finished;
		if (Date.now() > deadline) {
			throw new Error(
				`executions of ${workflowId} never matched (have ${finished.length}: ${JSON.stringify(finished.map((/** @type {any} */ e) => e.status))})`,
			);
		}
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

/**
 * The flash sale's order intake after its trigger (test/helpers/flashsale.ts, bench/flashsale.js): Storefront
 * Order › Get the order of `{{ $json.data.order_id }}`, then Order › Update Status to processing, two calls an
 * order. The nodes to add after a node named 'Storefront Trigger', and the connections of all three.
 * @param {string} actionType the Storefront node's type in this install (custom and community names differ)
 * @param {object} credentials the nodes' `credentials`
 */
function orderIntakeSteps(actionType, credentials) {
	const action = (
		/** @type {string} */ name,
		/** @type {number} */ x,
		/** @type {object} */ parameters,
	) => ({
		id: crypto.randomUUID(),
		name,
		type: actionType,
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials,
	});
	return {
		nodes: [
			action('Get Order', 220, {
				resource: 'order',
				operation: 'get',
				orderId: { __rl: true, mode: 'id', value: '={{ $json.data.order_id }}' },
			}),
			action('Mark Processing', 440, {
				resource: 'order',
				operation: 'updateStatus',
				orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				status: 'processing',
			}),
		],
		connections: {
			'Storefront Trigger': { main: [[{ node: 'Get Order', type: 'main', index: 0 }]] },
			'Get Order': { main: [[{ node: 'Mark Processing', type: 'main', index: 0 }]] },
		},
	};
}

/**
 * A node of a workflow built in code (the benchmarks'); `chain` lays it out.
 * @param {string} name @param {string} type @param {number} typeVersion @param {object} parameters @param {object} [extra]
 */
function workflowNode(name, type, typeVersion, parameters, extra = {}) {
	return {
		id: crypto.randomUUID(),
		name,
		type,
		typeVersion,
		position: [0, 0],
		parameters,
		...extra,
	};
}

/**
 * A workflow body in which `nodes` run one after another, laid out left to right.
 * @param {any[]} nodes
 */
function chain(nodes) {
	/** @type {Record<string, any>} */
	const connections = {};
	nodes.forEach((node, i) => {
		node.position = [220 * i, 0];
		if (i < nodes.length - 1)
			connections[node.name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	});
	return { nodes, connections, settings: { executionOrder: 'v1' } };
}

module.exports = {
	EXAMPLES_DIR,
	workflowNode,
	chain,
	orderIntakeSteps,
	loadExample,
	bindCredential,
	ensureCredential,
	ensureWorkflow,
	productionWebhookUrl,
	waitForWebhook,
	activate,
	deactivate,
	waitForExecutions,
};

// @ts-check
// What every benchmark in a real n8n starts with: a temporary user folder, the sandbox, the pinned n8n (prepared by
// dev/n8n/prepare.js) with its owner logged in, and the sandbox's admin API; `stop()` ends both and removes the folder.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const runtime = require('../dev/n8n/runtime');
const { N8nClient } = require('../dev/n8n/rest');
const { startSandbox } = require('../sandbox');

/**
 * @param {string} name the benchmark's, in the user folder's name
 * @param {Record<string, any>} sandboxOptions startSandbox's options (sizes, latencyMs, delivery, …)
 */
async function startInN8n(name, sandboxOptions) {
	runtime.assertInstalled();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `storefront-bench-${name}-`));
	const sandbox = await startSandbox({
		host: '127.0.0.1',
		port: 0,
		quiet: true,
		...sandboxOptions,
	});
	const n8n = await runtime.startN8n({
		userFolder: dir,
		logFile: path.join(dir, 'n8n.log'),
		logLevel: 'error',
	});
	const stop = async () => {
		await n8n.stop();
		await sandbox.stop();
		fs.rmSync(dir, { recursive: true, force: true });
	};
	/** The sandbox's admin API; fails on anything but a 2xx. @param {string} method @param {string} route @param {any} [body] */
	const admin = async (method, route, body) => {
		const res = await sandbox.admin(method, route, body);
		if (res.status >= 300)
			throw new Error(`${method} /__admin${route} → ${res.status} ${JSON.stringify(res.body)}`);
		return res.body;
	};
	const client = new N8nClient(n8n.url);
	try {
		await client.ensureOwner({
			email: 'bench@storefront.example',
			password: 'Bench-pass-1',
			firstName: 'Bench',
			lastName: 'Owner',
		});
	} catch (error) {
		await stop();
		throw error;
	}
	return { sandbox, n8n, client, admin, stop };
}

/**
 * A JSON POST that waits for its answer however long the run behind it takes (fetch gives up after 5 minutes without
 * headers, and a sync at the Starter plan's rate answers later than that); resolves with the status.
 * @param {string} url @param {string} body @returns {Promise<number>}
 */
function post(url, body) {
	return new Promise((resolve, reject) => {
		const req = http.request(
			url,
			{
				method: 'POST',
				headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
			},
			(res) => {
				res.resume();
				res.on('end', () => resolve(res.statusCode ?? 0));
				res.on('error', reject);
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

/**
 * Posts `{items}` to a workflow's production webhook and waits for the execution it starts, which must succeed.
 * `cpuMs`: this process's CPU time while the call was open (the in-process sandbox's answers, where there is one).
 * @param {import('../dev/n8n/rest').N8nClient} client @param {{id: string, url: string}} target @param {string} label
 * @param {any[]} items
 */
async function runByWebhook(client, target, label, items) {
	const before = (await client.listExecutions({ workflowId: target.id, limit: 1 })).count;
	const body = JSON.stringify({ items });
	const cpu = process.cpuUsage();
	const started = process.hrtime.bigint();
	const status = await post(target.url, body);
	const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
	const used = process.cpuUsage(cpu);
	const cpuMs = (used.user + used.system) / 1000;
	if (status !== 200) throw new Error(`${label}: ${target.url} answered ${status}`);
	let list;
	while ((list = await client.listExecutions({ workflowId: target.id, limit: 1 })).count <= before)
		await new Promise((r) => setTimeout(r, 100));
	const execution = await client.getExecution(list.results[0].id);
	if (execution.status !== 'success')
		throw new Error(`${label}: execution ${execution.id} ${execution.status}`);
	return { wallMs, cpuMs, execution };
}

module.exports = { startInN8n, runByWebhook };

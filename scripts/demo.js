#!/usr/bin/env node
// @ts-check
// `npm start`: the whole thing running locally, in one command.
//   build the package → start the Storefront sandbox on 127.0.0.1:4010 → prepare the pinned n8n (first run:
//   minutes) → start n8n on 127.0.0.1:5678 with this package installed → owner account, sandbox credential
//   and the demo workflows from examples/, activated (the AI order assistant imported inactive: it needs the user's
//   model credential; the polling example too: active, it would poll the sandbox every minute) → the order-intake
//   workflow's production webhook URL
//   registered in the sandbox → print what to open and try. Ctrl-C stops everything.
// Data (n8n's SQLite database, the sandbox snapshot, n8n.log) lives in .n8n-demo/ (git-ignored), so a second
// `npm start` reuses it. Ports and folder can be moved with DEMO_N8N_PORT, DEMO_SANDBOX_PORT and DEMO_DIR.
// `npm start -- --n8n 1` (or DEMO_N8N_LINE=1) runs the pinned n8n 1.x instead of 2.x, in .n8n-demo-n8n1/.
// `npm start -- --queue` (or DEMO_N8N_MODE=queue) runs n8n's queue mode instead (dev/n8n/queue.js): Postgres and
// Redis from Debian's packages, the main process on 5678 (editor), a webhook processor on 5679 (DEMO_WEBHOOK_PORT)
// that receives the sandbox's deliveries, and two workers that run the executions; data in .n8n-demo-queue/.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const LINE = argValue('--n8n') || process.env.DEMO_N8N_LINE || '2';
const QUEUE = process.argv.includes('--queue') || process.env.DEMO_N8N_MODE === 'queue';
// n8n 1.x cannot open a database that 2.x has migrated, and queue mode keeps its data in Postgres: each keeps its
// own demo folder.
const DEMO_DIR = path.resolve(
	ROOT,
	process.env.DEMO_DIR ||
		(QUEUE ? '.n8n-demo-queue' : LINE === '2' ? '.n8n-demo' : `.n8n-demo-n8n${LINE}`),
);
const N8N_PORT = Number(process.env.DEMO_N8N_PORT || 5678);
const WEBHOOK_PORT = Number(process.env.DEMO_WEBHOOK_PORT || 5679);
const SANDBOX_PORT = Number(process.env.DEMO_SANDBOX_PORT || 4010);
const OWNER = {
	email: 'demo@storefront.example',
	password: 'Storefront-demo-1',
	firstName: 'Demo',
	lastName: 'Owner',
};
const CREDENTIAL_NAME = 'Storefront sandbox';
const EXAMPLES = [
	'order-intake.json',
	'low-stock-alert.json',
	'analytics-summary.json',
	'catalog-sync.json',
];
// Imported but left inactive: its chat model needs the user's own model credential (docs/ai-agent.md).
const AI_EXAMPLE = 'ai-order-assistant.json';
// Imported but left inactive: active, it would poll the sandbox every minute beside the order-intake webhook flow.
const POLLING_EXAMPLE = 'new-orders-by-polling.json';

const step = (/** @type {string} */ text) => console.log(`\n▸ ${text}`);

/** @param {string} name */
function argValue(name) {
	const at = process.argv.indexOf(name);
	return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main() {
	const started = Date.now();
	if (QUEUE && LINE !== '2')
		throw new Error('queue mode runs the pinned n8n 2.x: drop --n8n / DEMO_N8N_LINE');
	fs.mkdirSync(DEMO_DIR, { recursive: true });

	if (!process.argv.includes('--no-build')) {
		step('Building the package (npm run build)');
		const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
		if (build.status !== 0) throw new Error('npm run build failed');
	}

	step(`Preparing the pinned n8n ${LINE}.x runtime (user cache; minutes the first time)`);
	const rt = require('../dev/n8n/prepare').prepare({
		line: LINE,
		log: (line) => console.log(`  ${line}`),
	});
	const runtime = require('../dev/n8n/runtime');
	const { N8nClient } = require('../dev/n8n/rest');
	const setup = require('../dev/n8n/instance');
	const { startSandbox } = require('../sandbox');

	/** @type {Array<() => Promise<void>>} */
	const cleanups = [];
	let stopping = false;
	const shutdown = async (/** @type {number} */ code) => {
		if (stopping) return;
		stopping = true;
		console.log(
			`\nStopping ${QUEUE ? 'n8n (main, webhook processor, workers), then Postgres and Redis,' : 'n8n'} and the sandbox…`,
		);
		for (const cleanup of cleanups.reverse()) {
			try {
				await cleanup();
			} catch (error) {
				console.error(`  ${/** @type {Error} */ (error).message}`);
			}
		}
		console.log('Stopped.');
		process.exit(code);
	};
	process.on('SIGINT', () => void shutdown(0));
	process.on('SIGTERM', () => void shutdown(0));

	try {
		step(`Starting the Storefront sandbox on 127.0.0.1:${SANDBOX_PORT}`);
		const sandbox = await startSandbox({
			host: '127.0.0.1',
			port: SANDBOX_PORT,
			snapshot: path.join(DEMO_DIR, 'sandbox.json'),
			log: (/** @type {string} */ line) =>
				fs.appendFileSync(path.join(DEMO_DIR, 'sandbox.log'), `${line}\n`),
		});
		cleanups.push(() => sandbox.stop());

		/** @type {Array<{name: string, exited: Promise<{code: number | null}>}>} */
		let watched;
		/** @type {{url: string, webhookUrl: string, version: string}} */
		let n8n;
		/** @type {Awaited<ReturnType<typeof import('../dev/n8n/queue').startQueue>> | undefined} */
		let topology;
		if (QUEUE) {
			step(
				`Starting n8n ${rt.version} in queue mode: Postgres, Redis, main, webhook processor, 2 workers (logs: ${path.relative(ROOT, DEMO_DIR)}/*.log)`,
			);
			topology = await require('../dev/n8n/queue').startQueue({
				dir: DEMO_DIR,
				line: LINE,
				mainPort: N8N_PORT,
				webhookPorts: [WEBHOOK_PORT],
				logLevel: 'info',
				log: (line) => console.log(`  ${line}`),
			});
			cleanups.push(/** @type {NonNullable<typeof topology>} */ (topology).stop);
			n8n = { url: topology.url, webhookUrl: topology.webhookUrl, version: topology.version };
			watched = [topology.main, ...topology.webhooks, ...topology.workers];
		} else {
			step(
				`Starting n8n ${rt.version} on 127.0.0.1:${N8N_PORT} (log: ${path.relative(ROOT, DEMO_DIR)}/n8n.log)`,
			);
			const single = await runtime.startN8n({
				line: LINE,
				port: N8N_PORT,
				userFolder: DEMO_DIR,
				logFile: path.join(DEMO_DIR, 'n8n.log'),
				logLevel: 'info',
			});
			cleanups.push(() => single.stop());
			n8n = { url: single.url, webhookUrl: single.url, version: single.version };
			watched = [{ name: 'n8n', exited: single.exited }];
		}
		for (const p of watched) {
			p.exited.then(({ code }) => {
				if (!stopping) {
					console.error(`${p.name} exited unexpectedly (code ${code}); see its log in ${DEMO_DIR}`);
					void shutdown(1);
				}
			});
		}

		step('Setting up the instance (owner, credential, workflows)');
		const client = new N8nClient(n8n.url);
		const owner = await client.ensureOwner(OWNER);
		console.log(`  owner ${OWNER.email} ${owner.created ? 'created' : 'exists, logged in'}`);
		const credential = await setup.ensureCredential(client, {
			name: CREDENTIAL_NAME,
			data: {
				baseUrl: sandbox.baseUrl,
				apiKey: sandbox.apiKey,
				webhookSecret: sandbox.webhookSecret,
			},
		});
		const test = await client.testCredential({
			id: credential.id,
			name: CREDENTIAL_NAME,
			type: runtime.TYPES.credential,
			data: {
				baseUrl: sandbox.baseUrl,
				apiKey: sandbox.apiKey,
				webhookSecret: sandbox.webhookSecret,
			},
		});
		console.log(
			`  credential "${CREDENTIAL_NAME}" ${credential.created ? 'created' : 'updated'}; test: ${test.status}`,
		);

		/** @type {Array<{name: string, id: string, url?: string}>} */
		const workflows = [];
		for (const file of EXAMPLES) {
			const example = setup.bindCredential(setup.loadExample(file), credential);
			const workflow = await setup.ensureWorkflow(client, example);
			const hasTrigger = workflow.nodes.some(
				(/** @type {any} */ n) => n.type === runtime.TYPES.trigger,
			);
			// Production webhooks are served by n8n itself, or in queue mode by the webhook processor.
			const url = hasTrigger ? setup.productionWebhookUrl(n8n.webhookUrl, workflow) : undefined;
			await setup.activate(client, workflow.id, url);
			workflows.push({ name: workflow.name, id: workflow.id, url });
			console.log(`  "${workflow.name}" ${workflow.created ? 'imported' : 'exists'}, active`);
		}
		const assistant = await setup.ensureWorkflow(
			client,
			setup.bindCredential(setup.loadExample(AI_EXAMPLE), credential),
		);
		console.log(
			`  "${assistant.name}" ${assistant.created ? 'imported' : 'exists'}, inactive: it needs your chat model's credential`,
		);
		const polling = await setup.ensureWorkflow(
			client,
			setup.bindCredential(setup.loadExample(POLLING_EXAMPLE), credential),
		);
		const pollingState = polling.active
			? 'active (you activated it)'
			: 'inactive: activate it to try polling instead of webhooks';
		console.log(`  "${polling.name}" ${polling.created ? 'imported' : 'exists'}, ${pollingState}`);

		// The service takes one webhook URL per store (its dashboard setting): the order-intake workflow's.
		const intake = workflows[0];
		const lowStock = workflows[1];
		// The catalog-sync example's Form Trigger serves its form under /form/<path> (production, as webhooks are).
		const catalogForm = `${n8n.webhookUrl}/form/catalog-sync`;
		const res = await fetch(`${sandbox.adminUrl}/webhook`, {
			method: 'PUT',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ url: intake.url, secret: sandbox.webhookSecret }),
		});
		if (!res.ok)
			throw new Error(
				`registering the webhook in the sandbox failed: ${res.status} ${await res.text()}`,
			);
		console.log(`  sandbox webhook → ${intake.url}`);

		const admin = sandbox.adminUrl;
		const json = "-H 'content-type: application/json'";
		const processes = topology
			? `
 queue mode   which process runs what (each with this package in its own user folder, logs in ${path.relative(ROOT, DEMO_DIR)}/):
${[
	`main        ${topology.main.url}  n8n start: editor, REST API, credential tests, list searches, activation (pid ${topology.main.child.pid})`,
	...topology.webhooks.map(
		(p) =>
			`${p.name}   ${p.url}  n8n webhook: receives the sandbox's signed deliveries, runs the Storefront Trigger, enqueues (pid ${p.child.pid})`,
	),
	...topology.workers.map(
		(p) =>
			`${p.name}    n8n worker: runs the workflows, incl. the Storefront node's API calls (pid ${p.child.pid}, health ${p.url}/healthz)`,
	),
	`postgres    127.0.0.1:${topology.postgres.port}  the database of all of them (${topology.postgres.version.replace(/^postgres \(PostgreSQL\) /, '')}, pid ${topology.postgres.who.pid})`,
	`redis       127.0.0.1:${topology.redis.port}  the execution queue (${topology.redis.version}, pid ${topology.redis.who.pid})`,
]
	.map((line) => `   ${line}`)
	.join('\n')}
`
			: '';
		console.log(`
══════════════════════════════════════════════════════════════════════════════
 Storefront demo is running on n8n ${n8n.version}${topology ? ' in queue mode' : ''} (set up in ${((Date.now() - started) / 1000).toFixed(0)} s). Ctrl-C stops everything.

 n8n editor   ${n8n.url}
              login ${OWNER.email} / ${OWNER.password}
 workflows    ${workflows.map((w) => `${w.name}: ${n8n.url}/workflow/${w.id}`).join('\n              ')}
 sandbox API  ${sandbox.baseUrl}  (API key ${sandbox.apiKey}, webhook secret ${sandbox.webhookSecret})
${processes}
 Try it:
   1. Simulate a checkout (the sandbox sends a signed order.created to n8n):
        curl -s -X POST ${admin}/simulate/checkout ${json} -d '{"items":[{"product_id":"prod_00003","quantity":1}]}'
      The order-intake workflow fetches the order and, as its total is under 1000, sets it to "processing":
        curl -s ${sandbox.baseUrl}/orders/<order id> -H 'Authorization: Bearer ${sandbox.apiKey}'
      With "quantity":2 the total passes 1000: the order stays "pending" and the run flags it for review.
      Each run is listed under Executions in the editor.
   2. A forged delivery is refused with 401 and runs nothing:
        curl -i -X POST ${intake.url} ${json} -H 'X-Service-Signature: sha256=00' -d '{"id":"evt_x","type":"order.created"}'
   3. Low stock: point the sandbox's webhook at the low-stock workflow, then drop a product's stock:
        curl -s -X PUT ${admin}/webhook ${json} -d '{"url":"${lowStock.url}"}'
        curl -s -X POST ${admin}/simulate/stock ${json} -d '{"product_id":"prod_00001","stock":2}'
   4. Deliveries the sandbox made and n8n's answers:  curl -s ${admin}/deliveries
   5. An AI Agent with Storefront tools: open ${n8n.url}/workflow/${assistant.id}, pick an OpenAI credential (or any
      OpenAI-compatible service's) in "OpenAI Chat Model", then "Open chat" and ask e.g. "Is ord_00012 pending?".
   6. Without webhooks: open ${n8n.url}/workflow/${polling.id} and activate it (its first poll only notes where the
      shop is). A checkout from then on is found within a minute and set to "processing", unless the order-intake
      workflow did that first; the polling trigger also finds the orders placed while n8n was stopped.
   7. Catalog sync: open ${catalogForm} and upload examples/catalog-sync.csv (7 rows keyed by SKU), Column
      Separator: Comma. The workflow creates the 3 new products, updates the 2 whose price or stock changed and
      leaves the other 2 alone; the next page says "Created 3, updated 2, left 2 unchanged". The same file again
      writes nothing. A file with a bad row writes nothing, and the page names the row.
══════════════════════════════════════════════════════════════════════════════`);
	} catch (error) {
		console.error(`\n✗ ${/** @type {Error} */ (error).message}`);
		await shutdown(1);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

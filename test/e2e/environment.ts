/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any, @n8n/community-nodes/require-node-api-error -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; n8n's internal REST API answers untyped JSON */
// One real n8n (the pinned 2.41.1 on Node 24, with this package installed as a community package) plus the
// sandbox, on random ports and in a temporary folder: shared by the e2e suite and the browser suite.
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { startSandbox, type Sandbox } from '../helpers/sandbox';

/* eslint-disable @typescript-eslint/no-require-imports */
const runtime = require('../../dev/n8n/runtime') as typeof import('../../dev/n8n/runtime');
const rest = require('../../dev/n8n/rest') as typeof import('../../dev/n8n/rest');
const instance = require('../../dev/n8n/instance') as typeof import('../../dev/n8n/instance');
/* eslint-enable @typescript-eslint/no-require-imports */

export { runtime, rest, instance };
export type N8nClient = InstanceType<typeof rest.N8nClient>;

export const OWNER = { email: 'e2e@storefront.example', password: 'E2e-password-1', firstName: 'E2E', lastName: 'Owner' };
export const CREDENTIAL_NAME = 'Storefront sandbox';

export interface Environment {
	sandbox: Sandbox;
	n8nUrl: string;
	client: N8nClient;
	credential: { id: string; name: string };
	credentialData: { baseUrl: string; apiKey: string; webhookSecret: string };
	dir: string;
	n8nLog: string;
	stop(): Promise<void>;
}

/** Start sandbox + n8n, create the owner and the Storefront credential. Fails (never skips) when something is missing. */
export async function startEnvironment(label: string): Promise<Environment> {
	const root = path.resolve(__dirname, '..', '..');
	for (const file of ['dist/nodes/Storefront/Storefront.node.js', 'dist/nodes/StorefrontTrigger/StorefrontTrigger.node.js']) {
		if (!fs.existsSync(path.join(root, file))) throw new Error(`${file} is missing: run \`npm run build\` first`);
	}
	runtime.assertInstalled();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `storefront-${label}-`));
	const n8nLog = path.join(dir, 'n8n.log');
	// Small data; quick, bounded redelivery so a refused delivery settles fast.
	const sandbox = await startSandbox({
		host: '127.0.0.1',
		port: 0,
		sizes: { products: 250, orders: 40, customers: 20 },
		delivery: { attempts: 2, baseDelayMs: 100, timeoutMs: 10_000 },
	});
	let n8n: Awaited<ReturnType<typeof runtime.startN8n>> | undefined;
	try {
		n8n = await runtime.startN8n({ userFolder: path.join(dir, 'n8n'), logFile: n8nLog, logLevel: 'warn' });
		const client = new rest.N8nClient(n8n.url);
		await client.ensureOwner(OWNER);
		const credentialData = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret };
		const credential = await instance.ensureCredential(client, { name: CREDENTIAL_NAME, data: credentialData });
		const started = n8n;
		return {
			sandbox,
			n8nUrl: n8n.url,
			client,
			credential,
			credentialData,
			dir,
			n8nLog,
			async stop() {
				await started.stop();
				await sandbox.stop();
				if (!process.env.KEEP_E2E_DIR) fs.rmSync(dir, { recursive: true, force: true });
			},
		};
	} catch (error) {
		await n8n?.stop();
		await sandbox.stop();
		throw error;
	}
}

/** Create (and optionally activate) a workflow; trigger nodes get the environment's credential. */
export async function createWorkflow(env: Environment, workflow: any, { activate = true } = {}) {
	const bound = instance.bindCredential(workflow, env.credential);
	const created = await env.client.createWorkflow({ ...bound, name: `${bound.name} ${Math.random().toString(36).slice(2, 8)}` });
	const triggerNode = created.nodes.find((n: any) => n.type === runtime.TYPES.trigger);
	const webhookNode = created.nodes.find((n: any) => n.type === 'n8n-nodes-base.webhook');
	const url = triggerNode
		? instance.productionWebhookUrl(env.n8nUrl, created)
		: webhookNode
			? instance.productionWebhookUrl(env.n8nUrl, created, 'n8n-nodes-base.webhook')
			: undefined;
	if (activate) await instance.activate(env.client, created.id, url);
	return { id: created.id as string, name: created.name as string, url: url as string, workflow: created };
}

/** A Storefront Trigger node (JSON as saved in a workflow). */
export function triggerNode(events: string[], options: Record<string, unknown> = {}) {
	return {
		id: 'e2e-trigger',
		name: 'Storefront Trigger',
		type: runtime.TYPES.trigger,
		typeVersion: 1.1,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { events, options },
		credentials: { storefrontApi: { id: '', name: CREDENTIAL_NAME } },
	};
}

/** Point the sandbox's (single) webhook at `url`. */
export async function registerWebhook(env: Environment, url: string) {
	const res = await env.sandbox.admin('PUT', '/webhook', { url, secret: env.sandbox.webhookSecret });
	if (res.status !== 200) throw new Error(`PUT /__admin/webhook → ${res.status}`);
}

/** Wait until `check()` returns a value other than undefined. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 150));
	}
}

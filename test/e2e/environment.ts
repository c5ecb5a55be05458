/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any, @n8n/community-nodes/require-node-api-error -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; n8n's internal REST API answers untyped JSON */
// One real n8n plus the sandbox, on random ports and in a temporary folder: shared by the e2e suite and the
// browser suite. Which n8n and how the package is installed is the compatibility-matrix cell, chosen by
// E2E_N8N_LINE (2 = the pinned 2.41.x on Node 24, default; 1 = the pinned 1.123.x), E2E_INSTALL (community =
// ~/.n8n/nodes/node_modules, default; custom = a custom extensions folder) and E2E_N8N_MODE (single = one n8n on
// SQLite, default; queue = n8n's queue mode from dev/n8n/queue.js: main + webhook processor + workers on
// Postgres and Redis, production webhooks delivered to the webhook processor). scripts/matrix.js runs every cell.
// E2E_INSTALL=registry: the package is not copied; n8n installs it by name through Community Nodes from a local npm
// registry that its processes take for the public one (dev/n8n/registry.js), as users install it.
// E2E_PROFILE (contract = docs/api-contract.md's decisions, default; spec-literal = the spec read literally:
// `<resource>_id` keys, no updated_at, {data, meta} lists, {data} records, {message} errors, 200 on create, oldest
// first) is how the sandbox's /v1 API answers; the helpers below read its bodies. The admin API, `sandbox.state` and
// webhook payloads keep `id` on both.
import { randomBytes, randomUUID } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { startSandbox, type Json, type Sandbox, type SandboxOptions } from '../helpers/sandbox';
import { idKey, PROFILE, SPEC_LITERAL, type Resource } from '../helpers/profile';

/* eslint-disable @typescript-eslint/no-require-imports */
const runtime = require('../../dev/n8n/runtime') as typeof import('../../dev/n8n/runtime');
const rest = require('../../dev/n8n/rest') as typeof import('../../dev/n8n/rest');
const instance = require('../../dev/n8n/instance') as typeof import('../../dev/n8n/instance');
const queue = require('../../dev/n8n/queue') as typeof import('../../dev/n8n/queue');
const registryModule = require('../../dev/n8n/registry') as typeof import('../../dev/n8n/registry');
const releases = require('../../dev/n8n/releases') as typeof import('../../dev/n8n/releases');
/* eslint-enable @typescript-eslint/no-require-imports */

export { runtime, rest, instance, queue };
export type Registry = Awaited<ReturnType<typeof registryModule.startRegistry>>;
export type Releases = ReturnType<typeof releases.buildReleases>;
export type N8nClient = InstanceType<typeof rest.N8nClient>;
export type QueueTopology = Awaited<ReturnType<typeof queue.startQueue>>;
export type Mode = 'single' | 'queue';

/** The matrix cell this process tests. */
export const CELL = {
	line: process.env.E2E_N8N_LINE || '2',
	install: process.env.E2E_INSTALL || 'community',
	mode: (process.env.E2E_N8N_MODE || 'single') as Mode,
	profile: PROFILE,
};
if (!['single', 'queue'].includes(CELL.mode))
	throw new Error(`E2E_N8N_MODE must be "single" or "queue", not "${CELL.mode}"`);

// How this cell's /v1 API shapes its bodies (test/helpers/profile.ts, from the profile's definition, never from the
// node's own id rule: the suites check the node against the shape, so they must not share its code). Each helper
// throws when a body is not in the profile's shape.
export { CREATE_STATUS, idKey as ID_KEY, listedIds } from '../helpers/profile';

/**
 * A /v1 record's own id (under ID_KEY). Throws when it is missing, and on spec-literal when the record also has an
 * `id`: a record in the other profile's shape would otherwise pass unnoticed.
 */
export function idOf(record: Json, resource: Resource): string {
	const value = record?.[idKey(resource)];
	if (typeof value !== 'string' || value === '')
		throw new Error(`no ${idKey(resource)} in ${JSON.stringify(record)?.slice(0, 300)}`);
	if (SPEC_LITERAL && 'id' in record)
		throw new Error(
			`a spec-literal ${resource} with an "id": ${JSON.stringify(record).slice(0, 300)}`,
		);
	return value;
}

/** The records of a /v1 list body: `{products: […]}` (contract) or `{data: […], meta}` (spec-literal). */
export function listOf(body: Json, resource: 'products' | 'orders' | 'customers'): Json[] {
	const list = SPEC_LITERAL ? body?.data : body?.[resource];
	if (!Array.isArray(list))
		throw new Error(
			`no ${SPEC_LITERAL ? 'data' : resource} list in ${JSON.stringify(body)?.slice(0, 300)}`,
		);
	return list;
}

/** The record of a /v1 single-record body: bare (contract) or `{data: {…}}` (spec-literal). */
export function recordOf(body: Json): Json {
	const record = SPEC_LITERAL ? body?.data : body;
	if (record === null || typeof record !== 'object' || Array.isArray(record))
		throw new Error(`no record in ${JSON.stringify(body)?.slice(0, 300)}`);
	return record;
}

/** The message of a /v1 error body: `{error: {code, message}}` (contract) or `{message}` (spec-literal). */
export function errorMessageOf(body: Json): string {
	const message = SPEC_LITERAL ? body?.message : body?.error?.message;
	if (typeof message !== 'string' || message === '')
		throw new Error(`no error message in ${JSON.stringify(body)?.slice(0, 300)}`);
	return message;
}

/**
 * Requests one poll of the Storefront Polling Trigger makes for a list of `count` records when nothing changed: one
 * (the first page already ends before the cursor, contract row 21) or every page of 100 (spec-literal: without
 * updated_at any record may have changed, so the whole list is compared with what the last poll saw).
 */
export const quietPollRequests = (count: number) => (SPEC_LITERAL ? Math.ceil(count / 100) : 1);
/** Node type ids in this cell (`n8n-nodes-storefront.storefront` or `CUSTOM.storefront`, …). */
export const TYPES = runtime.typesFor(CELL.install);

/**
 * The polling suites' Poll Times: three entries, at seconds 0, 20 and 40 of every minute (Custom, a cron expression
 * each). n8n refuses an interval under a minute; each entry is a minute apart, and together a scheduled poll comes
 * within 20 s instead of a minute.
 */
export const POLL_EVERY_20_S = {
	item: [0, 20, 40].map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` })),
};
/** How long a test waits for the next scheduled poll: 20 s, and the poll's own reading on a loaded machine. */
export const POLL_WAIT_MS = 45_000;

/**
 * No workflow in the suites has a Code node, the only node that needs n8n 2.x's JavaScript task runner, so their n8n
 * processes start none: "external" mode waits for a runner that would connect by itself and launches no process.
 * That saves the runner's start (1.2–1.5 CPU-seconds) at each of the suites' n8n and worker starts. The demo, the dev
 * loop and the browser suites keep n8n's default (a runner per process). n8n 1.123 starts no runner by default.
 */
const WITHOUT_TASK_RUNNER = {
	N8N_RUNNERS_MODE: 'external',
	N8N_RUNNERS_AUTH_TOKEN: randomBytes(16).toString('hex'),
};

/**
 * `editor: false`: n8n serves no editor (N8N_DISABLE_UI, a setting n8n documents for headless instances). Its start
 * then skips rewriting the editor's 40 MB of scripts into the user folder, about 5 of 13 CPU-seconds a 2.41.1
 * start and 2 of 7 a 1.123.81 start here; webhooks, triggers, polls, executions and the REST API are unchanged.
 * For the suites that start n8n again and again and never read what only the editor is served (node and credential
 * types, /rest/settings).
 */
const WITHOUT_EDITOR = { N8N_DISABLE_UI: 'true' };

export const OWNER = {
	email: 'e2e@storefront.example',
	password: 'E2e-password-1',
	firstName: 'E2E',
	lastName: 'Owner',
};
export const CREDENTIAL_NAME = 'Storefront sandbox';

export interface Environment {
	sandbox: Sandbox;
	/** Editor and REST API (the main process in queue mode). */
	n8nUrl: string;
	/** Where production webhooks are delivered: n8nUrl, or the (first) webhook processor in queue mode. */
	webhookUrl: string;
	/** The queue-mode processes, Postgres and Redis (queue mode only). */
	queue?: QueueTopology;
	client: N8nClient;
	/** The Storefront credential (id and name empty when the options said `credential: false`). */
	credential: { id: string; name: string };
	credentialData: { baseUrl: string; apiKey: string; webhookSecret: string };
	dir: string;
	n8nLog: string;
	/** n8n's user folder (its SQLite database is `.n8n/database.sqlite` below it). */
	userFolder: string;
	/** The n8n process now serving n8nUrl. */
	n8nPid(): number | undefined;
	/**
	 * Kill n8n with SIGKILL (a crash) and start it again on the same port, user folder and database; `whileDown`
	 * runs between the two. In queue mode: every n8n process, main first again.
	 */
	crashAndRestart(whileDown?: () => Promise<void>): Promise<{ downMs: number }>;
	/**
	 * Stop n8n cleanly (SIGTERM, then wait for it to exit; SIGKILL only if it has not exited after `timeoutMs`) and
	 * start it again on the same port, user folder and database. `exit`: how the stopped process ended. In queue mode:
	 * every n8n process (`exit`: main's), with n8n's own grace, main first again.
	 */
	restart(
		timeoutMs?: number,
		extraEnv?: Record<string, string>,
		whileDown?: () => Promise<void>,
	): Promise<{ downMs: number; exit: { code: number | null; signal: NodeJS.Signals | null } }>;
	/** Install "registry": the local registry n8n installs from, and the releases built for it. */
	published?: PublishedRegistry;
	stop(): Promise<void>;
}

export interface EnvironmentOptions {
	/** Extra environment for n8n (e.g. N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE). */
	n8nEnv?: Record<string, string>;
	mode?: Mode;
	/** Queue mode: how many webhook processors and workers (default 1 and 1). */
	webhooks?: number;
	workers?: number;
	/** Sandbox data sizes and webhook delivery policy (attempts, baseDelayMs, timeoutMs, concurrency), over this
	 * suite's small, quick defaults. */
	sandbox?: Pick<SandboxOptions, 'sizes' | 'delivery'>;
	/**
	 * Install "registry" only: what to do once the owner exists and before the Storefront credential is created (its
	 * type comes with the package). Default: install the current release by name, as Settings → Community Nodes does.
	 */
	installFromRegistry?: (client: N8nClient, published: PublishedRegistry) => Promise<void>;
	/** How the package reaches n8n, over the cell's (E2E_INSTALL): the browser journey installs it from a registry. */
	install?: string;
	/** false: no Storefront credential is created (the browser journey creates it in n8n's dialog). */
	credential?: boolean;
	/** false: n8n runs without its editor (see WITHOUT_EDITOR). Default true. */
	editor?: boolean;
}

/** The local registry with this package's releases built (the current one published; `next` for the tests to publish). */
export interface PublishedRegistry {
	registry: Registry;
	releases: Releases;
}

/** Start the local npm registry in `dir`, cut the releases and publish the current one. */
export async function startPublishedRegistry(dir: string): Promise<PublishedRegistry> {
	const registry = await registryModule.startRegistry({
		dir: path.join(dir, 'registry'),
		line: CELL.line,
	});
	try {
		const built = releases.buildReleases(path.join(dir, 'releases'));
		registry.publish(built.current.tarball);
		return { registry, releases: built };
	} catch (error) {
		await registry.stop();
		throw error;
	}
}

/** Install the package by name, as the Settings dialog does (`POST /rest/community-packages {name}`). */
export async function installByName(client: N8nClient, name: string) {
	return client.request('POST', '/community-packages', { name });
}

/** Record facts of this cell for the matrix runner (it prints them): merged into the E2E_REPORT file. */
export function report(facts: Record<string, unknown>) {
	const file = process.env.E2E_REPORT;
	if (!file) return;
	let current: Record<string, unknown> = {};
	try {
		current = JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		// first entry
	}
	// Written whole, then renamed: the catch-up suite's two files report at once (scripts/matrix.js, WORKERS).
	const written = `${file}.${process.pid}`;
	fs.writeFileSync(written, JSON.stringify({ ...current, ...facts }, null, 1));
	fs.renameSync(written, file);
}

/**
 * Start sandbox + n8n (one process, or the queue-mode topology), create the owner and the Storefront credential.
 * Fails (never skips) when something is missing.
 */
export async function startEnvironment(
	label: string,
	options: EnvironmentOptions = {},
): Promise<Environment> {
	// Queue mode: one worker unless a suite asks for more (the e2e and AI Agent suites need a worker, not two; the queue
	// and registry suites, which count what each worker does, ask for two).
	const {
		n8nEnv = {},
		mode = CELL.mode,
		webhooks,
		workers = 1,
		sandbox: sandboxOptions = {},
		install = CELL.install,
		editor = true,
	} = options;
	const processEnv = { ...WITHOUT_TASK_RUNNER, ...(editor ? {} : WITHOUT_EDITOR), ...n8nEnv };
	const root = path.resolve(__dirname, '..', '..');
	for (const file of [
		'dist/nodes/Storefront/Storefront.node.js',
		'dist/nodes/StorefrontTrigger/StorefrontTrigger.node.js',
		'dist/nodes/StorefrontPollingTrigger/StorefrontPollingTrigger.node.js',
	]) {
		if (!fs.existsSync(path.join(root, file)))
			throw new Error(`${file} is missing: run \`npm run build\` first`);
	}
	runtime.assertInstalled(CELL.line);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `storefront-${label}-`));
	const n8nLog = path.join(dir, 'n8n.log');
	// Small data; quick, bounded redelivery so a refused delivery settles fast.
	const sandbox = await startSandbox({
		profile: CELL.profile,
		host: '127.0.0.1',
		port: 0,
		sizes: { products: 250, orders: 40, customers: 20, ...sandboxOptions.sizes },
		delivery: { attempts: 2, baseDelayMs: 100, timeoutMs: 10_000, ...sandboxOptions.delivery },
	});
	const userFolder = path.join(dir, 'n8n');
	let published: PublishedRegistry | undefined;
	// From a registry: "Community package installed" (each process's own record of an install) is an info line.
	const logLevel = install === 'registry' ? 'info' : 'warn';
	const start = (port?: number, extraEnv: Record<string, string> = {}) =>
		runtime.startN8n({
			userFolder,
			port,
			logFile: n8nLog,
			logLevel,
			line: CELL.line,
			install,
			registry: published?.registry,
			env: { ...processEnv, ...extraEnv },
		});
	let stopN8n: (() => Promise<void>) | undefined;
	let single: Awaited<ReturnType<typeof runtime.startN8n>> | undefined;
	try {
		let n8nUrl: string;
		let webhookUrl: string;
		let topology: QueueTopology | undefined;
		if (install === 'registry') published = await startPublishedRegistry(dir);
		if (mode === 'queue') {
			// The state folder (Postgres data, Redis, one user folder and log per n8n process) is `dir` itself.
			topology = await queue.startQueue({
				dir,
				line: CELL.line,
				install,
				registry: published?.registry,
				env: processEnv,
				logLevel,
				webhooks,
				workers,
			});
			stopN8n = topology.stop;
			n8nUrl = topology.url;
			webhookUrl = topology.webhookUrl;
			// The matrix runner reads each cell's n8n version and start-up time (all processes ready) from here.
			report({ ...CELL, mode, version: topology.version, startupMs: topology.startupMs });
		} else {
			single = await start();
			stopN8n = () => (single as NonNullable<typeof single>).stop();
			n8nUrl = webhookUrl = single.url;
			report({ ...CELL, mode, version: single.version, startupMs: single.startupMs });
		}
		const client = new rest.N8nClient(n8nUrl, { version: (topology ?? single)?.version });
		await client.ensureOwner(OWNER);
		if (published) {
			const install =
				options.installFromRegistry ??
				((c, p) => installByName(c, p.releases.name).then(() => undefined));
			await install(client, published);
		}
		const credentialData = {
			baseUrl: sandbox.baseUrl,
			apiKey: sandbox.apiKey,
			webhookSecret: sandbox.webhookSecret,
		};
		const credential =
			options.credential === false
				? { id: '', name: '' }
				: await instance.ensureCredential(client, { name: CREDENTIAL_NAME, data: credentialData });
		const stopStarted = stopN8n;
		return {
			sandbox,
			n8nUrl,
			webhookUrl,
			queue: topology,
			client,
			credential,
			credentialData,
			dir,
			n8nLog: mode === 'queue' ? path.join(dir, 'main.log') : n8nLog,
			userFolder,
			n8nPid: () => single?.child.pid,
			async crashAndRestart(whileDown) {
				if (topology)
					return await topology.restart(n8nNames(topology), { signal: 'SIGKILL', whileDown });
				if (!single) throw new Error('n8n is not running');
				const down = Date.now();
				single.child.kill('SIGKILL');
				await single.exited;
				await whileDown?.();
				single = await start(single.port);
				return { downMs: Date.now() - down };
			},
			async restart(timeoutMs = 60_000, extraEnv = {}, whileDown) {
				if (topology) {
					if (Object.keys(extraEnv).length)
						throw new Error('a queue-mode restart keeps its environment');
					const { downMs, exits } = await topology.restart(n8nNames(topology), { whileDown });
					return { downMs, exit: exits.main };
				}
				if (!single) throw new Error('n8n is not running');
				const down = Date.now();
				await single.stop(timeoutMs);
				const exit = (await single.exited) as {
					code: number | null;
					signal: NodeJS.Signals | null;
				};
				await whileDown?.();
				single = await start(single.port, extraEnv);
				return { downMs: Date.now() - down, exit };
			},
			published,
			async stop() {
				await stopStarted();
				await published?.registry.stop();
				await sandbox.stop();
				if (!process.env.KEEP_E2E_DIR) fs.rmSync(dir, { recursive: true, force: true });
			},
		};
	} catch (error) {
		await stopN8n?.();
		await published?.registry.stop();
		await sandbox.stop();
		if (!process.env.KEEP_E2E_DIR) fs.rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}

/** Every n8n process of a queue-mode topology: "n8n stopped" there stops them all (Postgres and Redis stay up). */
const n8nNames = (topology: QueueTopology) =>
	[topology.main, ...topology.webhooks, ...topology.workers].map((p) => p.name);

/** Create (and optionally activate) a workflow; trigger nodes get the environment's credential. */
export async function createWorkflow(
	env: Environment,
	workflow: any,
	{ activate = true, keepName = false } = {},
) {
	const bound = instance.bindCredential(runtime.retype(workflow, CELL.install), env.credential);
	// A random suffix tells apart the copies a suite makes of one example; `keepName` for a workflow in a picture.
	const name = keepName ? bound.name : `${bound.name} ${Math.random().toString(36).slice(2, 8)}`;
	const created = await env.client.createWorkflow({ ...bound, name });
	const triggerNode = created.nodes.find((n: any) => n.type === TYPES.trigger);
	const webhookNode = created.nodes.find((n: any) => n.type === 'n8n-nodes-base.webhook');
	// Production deliveries go where production webhooks are served: the webhook processor in queue mode.
	const url = triggerNode
		? instance.productionWebhookUrl(env.webhookUrl, created, TYPES.trigger)
		: webhookNode
			? instance.productionWebhookUrl(env.webhookUrl, created, 'n8n-nodes-base.webhook')
			: undefined;
	if (activate) await instance.activate(env.client, created.id, url);
	return {
		id: created.id as string,
		name: created.name as string,
		url: url as string,
		workflow: created,
	};
}

/** A workflow of `trigger` and a No Operation node after it, "Received": what the suites count a trigger's runs by. */
export function receivedBy(name: string, trigger: { name: string } & Record<string, unknown>) {
	return {
		name,
		nodes: [
			trigger,
			{
				id: 'received',
				name: 'Received',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		connections: { [trigger.name]: { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** A Storefront Trigger node (JSON as saved in a workflow). */
export function triggerNode(events: string[], options: Record<string, unknown> = {}) {
	return {
		id: 'e2e-trigger',
		name: 'Storefront Trigger',
		type: TYPES.trigger,
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { events, options },
		credentials: { storefrontApi: { id: '', name: CREDENTIAL_NAME } },
	};
}

/** Point the sandbox's (single) webhook at `url`. */
export async function registerWebhook(env: Environment, url: string) {
	const res = await env.sandbox.admin('PUT', '/webhook', {
		url,
		secret: env.sandbox.webhookSecret,
	});
	if (res.status !== 200) throw new Error(`PUT /__admin/webhook → ${res.status}`);
}

/** Wait until `check()` returns a value other than undefined. */
export async function eventually<T>(
	check: () => Promise<T | undefined> | T | undefined,
	what: string,
	timeoutMs = 30_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 150));
	}
}

// Runs a trigger node's webhook() and lifecycle hooks through n8n-core's real WebhookContext / HookContext: a
// real n8n-workflow Workflow, real parameter resolution, real credential lookup through additionalData's
// credentialsHelper, and an express-like request carrying the raw body Buffer the way n8n's body parser leaves
// it (rawBody = the bytes, body = their JSON parse when the content type is JSON, as n8n's parseBody does).
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
	INodeTypes,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeConnectionTypes, Workflow, createRunExecutionData } from 'n8n-workflow';

import { catchesUp, type Options } from '../../nodes/StorefrontTrigger/options';
import { core } from './core';
import { sharedDeduplicator } from './deduplication';
import { buildAdditionalData } from './n8n';

export const WEBHOOK_BASE_URL = 'https://n8n.example.test/webhook';
export const WEBHOOK_TEST_BASE_URL = 'https://n8n.example.test/webhook-test';

export interface Delivery {
	/** The exact request body bytes. */
	body: Buffer | string;
	/** Request headers (any case; stored lower-cased as Node.js does). */
	headers?: Record<string, string | string[]>;
}

export interface Outcome {
	/** What webhook() returned. */
	result: IWebhookResponseData;
	/** Status and body the node wrote itself through getResponseObject(), if it did. */
	status?: number;
	body?: unknown;
	/** The items the workflow would run with (empty when it would not run). */
	items: IDataObject[];
}

export interface TriggerHarness {
	deliver(delivery: Delivery): Promise<Outcome>;
	/** Runs webhookMethods.default[method] through a real HookContext (activation). */
	hook(method: 'checkExists' | 'create' | 'delete'): Promise<boolean>;
	staticData(): IDataObject;
	/**
	 * Runs the execution n8n starts after an accepted delivery, through n8n-core's WorkflowExecute: the trigger first,
	 * with the items webhook() returned (after a JSON round trip, as when the run starts from n8n's database: a
	 * queue-mode worker, or a run n8n recovers after a crash). Returns what the trigger passed on. `onError`: the node's
	 * On Error setting for this run.
	 */
	run(
		result: IWebhookResponseData,
		mode?: WorkflowExecuteMode,
		settings?: { onError?: INode['onError'] },
	): Promise<INodeExecutionData[]>;
	/** What a node after the trigger passed on in the last run() (none when it did not run). */
	output(name: string): INodeExecutionData[];
	/**
	 * Runs trigger() through n8n-core's TriggerContext, as n8n does when it activates the workflow ('activate') or
	 * starts with it active ('init'), with real HTTP to the credentials' Base URL, after deactivating what the last call
	 * activated. Resolves once the reading it started ended or first failed, with the runs it started (what each emit()
	 * carried), in the shape run() takes; `warnings`: what it logged as warnings.
	 */
	trigger(activation?: WorkflowActivateMode): Promise<{
		runs: IWebhookResponseData[];
		warnings: string[];
		/** What the node registered with n8n's schedule (registerCron's first argument), if anything. */
		schedule: unknown;
		/** Runs one tick of that schedule and waits for its reading; resolves with every run started since activation. */
		tick(): Promise<IWebhookResponseData[]>;
	}>;
	/** Deactivation: n8n calls the closeFunction trigger() returned. */
	close(): Promise<void>;
	/**
	 * Ends a run trigger() started without run(): as n8n does when it ran elsewhere (a queue worker: `outcome` is that
	 * run) or never started (an Error: Redis or the workers down).
	 */
	settle(started: IWebhookResponseData, outcome: IRun | Error): void;
	/** The whole record of the last run(). */
	lastExecution(): IRun | undefined;
}

export interface HarnessOptions {
	nodeType: INodeType;
	parameters?: INode['parameters'];
	credentials?: ICredentialDataDecryptedObject;
	mode?: WorkflowExecuteMode;
	/** The node's typeVersion (default: the first version the node declares). */
	typeVersion?: number;
	/** The workflow id (default: a new one per harness, as every workflow has its own). */
	workflowId?: string;
	/** Nodes after the trigger, each connected to the one before, and their types (run() runs them too). */
	after?: { nodes: INode[]; types: Record<string, INodeType> };
}

/** The promise n8n hands emit() to settle once the run has ended. */
interface Settled {
	resolve(run: IRun): void;
	reject(error: Error): void;
}

let harnesses = 0;
let runs = 0;

/** A response object with the express methods trigger nodes use; records what was sent. */
function captureResponse() {
	const sent: { status?: number; body?: unknown; headers: Record<string, string> } = {
		headers: {},
	};
	const res = {
		statusCode: 200,
		headersSent: false,
		status(code: number) {
			this.statusCode = code;
			return this;
		},
		json(body: unknown) {
			sent.status = this.statusCode;
			sent.body = body;
			this.headersSent = true;
			return this;
		},
		send(body: unknown) {
			return this.json(body);
		},
		end() {
			sent.status ??= this.statusCode;
			this.headersSent = true;
			return this;
		},
		set(name: string, value: string) {
			sent.headers[name.toLowerCase()] = value;
			return this;
		},
	};
	return { res, sent };
}

function buildRequest(delivery: Delivery) {
	const rawBody = Buffer.isBuffer(delivery.body)
		? delivery.body
		: Buffer.from(delivery.body, 'utf8');
	const headers: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(delivery.headers ?? {}))
		headers[name.toLowerCase()] = value;
	headers['content-type'] ??= 'application/json';
	headers['content-length'] = String(rawBody.length);
	let body: unknown;
	if (String(headers['content-type']).includes('json') && rawBody.length > 0) {
		// n8n answers 422 itself when a JSON body does not parse; the node never sees that request.
		body = JSON.parse(rawBody.toString('utf8'));
	} else if (String(headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
		// n8n parses form bodies into objects too (its parseBody, querystring).
		body = Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
	}
	return {
		method: 'POST',
		url: '/webhook',
		headers,
		rawBody,
		body,
		params: {},
		query: {},
		header(name: string) {
			return headers[name.toLowerCase()];
		},
	};
}

export function createTriggerHarness(options: HarnessOptions): TriggerHarness {
	const { nodeType } = options;
	// What n8n's database is to every n8n process: shared by all harnesses (and fresh module copies) of a test file.
	sharedDeduplicator();
	const description = nodeType.description;
	const typeName = `n8n-nodes-storefront.${description.name}`;
	const typeOf = (type: string) => options.after?.types[type] ?? nodeType;
	const nodeTypes: INodeTypes = {
		getByName: typeOf,
		getByNameAndVersion: typeOf,
		getKnownTypes: () => ({}),
	};
	const node: INode = {
		id: 'trigger-node-id',
		name: description.defaults.name ?? description.displayName,
		type: typeName,
		typeVersion:
			options.typeVersion ??
			(Array.isArray(description.version) ? description.version[0] : description.version),
		position: [0, 0],
		webhookId: '3f4c2b1a-0000-4000-8000-000000000001',
		parameters: options.parameters ?? {},
		credentials: { storefrontApi: { id: 'cred-1', name: 'Storefront account' } },
	};
	const staticData: IDataObject = {};
	const after = options.after?.nodes ?? [];
	let lastRun: IRun | undefined;
	const ends = new WeakMap<IWebhookResponseData, Settled>();
	const workflow = new Workflow({
		id: options.workflowId ?? `wf-trigger-test-${++harnesses}`,
		name: 'Storefront trigger test',
		nodes: [node, ...after],
		connections: Object.fromEntries(
			after.map((next, i) => [
				i ? after[i - 1].name : node.name,
				{ main: [[{ node: next.name, type: NodeConnectionTypes.Main, index: 0 }]] },
			]),
		),
		active: true,
		nodeTypes,
		staticData,
	});
	const mode = options.mode ?? 'webhook';
	let closeFunction: (() => Promise<void>) | undefined;
	let schedule: { cron: unknown; onTick: () => void } | undefined;
	// A reading of the catch-up ends with a log line (its result, or why it failed): the waiters of the next one.
	let waiters: Array<() => void> = [];
	const nextReading = () => new Promise<void>((resolve) => waiters.push(resolve));
	const logged = (message: string) => {
		if (!/^Storefront Trigger: (catch-up for|could not read)/.test(message)) return;
		const done = waiters;
		waiters = [];
		for (const resolve of done) resolve();
	};
	const credentials = options.credentials ?? {};

	const baseAdditionalData = () =>
		({
			credentialsHelper: {
				// The credential type declares no node restriction (no supportedNodes), so any node may use it.
				isCredentialUsableByNode: () => true,
				getDecrypted: async (_data: unknown, _nodeCredentials: unknown, type: string) => {
					if (type !== 'storefrontApi') throw new Error(`Unexpected credential type ${type}`);
					return { ...credentials };
				},
			},
			webhookBaseUrl: WEBHOOK_BASE_URL,
			webhookTestBaseUrl: WEBHOOK_TEST_BASE_URL,
			webhookWaitingBaseUrl: 'https://n8n.example.test/webhook-waiting',
			formWaitingBaseUrl: 'https://n8n.example.test/form-waiting',
			variables: {},
			restApiUrl: 'https://n8n.example.test/rest',
			instanceBaseUrl: 'https://n8n.example.test',
			executionId: undefined,
		}) as unknown as IWorkflowExecuteAdditionalData;

	const webhookDescription = description.webhooks![0];
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: String(webhookDescription.path),
		webhookDescription,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: baseAdditionalData(),
		isTest: mode === 'manual',
	};

	return {
		async deliver(delivery) {
			const { res, sent } = captureResponse();
			const additionalData = baseAdditionalData();
			additionalData.httpRequest = buildRequest(
				delivery,
			) as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
			additionalData.httpResponse =
				res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
			const context = new core.WebhookContext(
				workflow,
				node,
				additionalData,
				mode,
				webhookData,
				[],
				null,
			);
			const result = await nodeType.webhook!.call(context);
			const items = (result.workflowData?.[0] ?? []).map((item) => item.json);
			return { result, status: sent.status, body: sent.body, items };
		},
		async hook(method) {
			const context = new core.HookContext(
				workflow,
				node,
				baseAdditionalData(),
				mode,
				'activate',
				webhookData,
			);
			const group = nodeType.webhookMethods!.default as Record<
				string,
				(this: unknown) => Promise<boolean>
			>;
			return await group[method].call(context);
		},
		staticData: () => workflow.getStaticData('node', node),
		async trigger(activation = 'init') {
			// A new activation or an n8n start: what ran before is deactivated (its reading stopped, its schedule gone).
			await closeFunction?.();
			const runs: IWebhookResponseData[] = [];
			const additionalData = buildAdditionalData({ storefrontApi: credentials });
			// n8n's emit: what the run will get, and the promise n8n settles when that run has ended (run() or settle()).
			const emit = (data: INodeExecutionData[][], _response?: unknown, done?: Settled) => {
				const started: IWebhookResponseData = { workflowData: data };
				if (done) ends.set(started, done);
				runs.push(started);
			};
			const context = new core.TriggerContext(
				workflow,
				node,
				additionalData,
				'trigger',
				activation,
				emit,
			);
			const warnings: string[] = [];
			const read = nextReading();
			const logger = {
				...context.logger,
				warn: (message: string) => void (warnings.push(message), logged(message)),
				info: logged,
				debug: logged,
			};
			// n8n's schedule: registered ticks, run by tick() (n8n would run them on the cron expression).
			const helpers = {
				...context.helpers,
				registerCron: (cron: unknown, onTick: () => void) => void (schedule = { cron, onTick }),
			};
			schedule = undefined;
			// The context's own logger and helpers are read-only properties: an object inheriting from the context carries these.
			const response = await nodeType.trigger!.call(
				Object.create(context, {
					logger: { value: logger },
					helpers: { value: helpers },
				}) as typeof context,
			);
			closeFunction = response?.closeFunction;
			// The reading goes on after trigger() returns: its end (or its first failure) is in the log. With Catch Up
			// After Downtime off there is none (trigger() returns a closeFunction all the same).
			if (closeFunction && catchesUp((node.parameters.options ?? {}) as Options)) await read;
			const registered = schedule as { cron: unknown; onTick: () => void } | undefined;
			return {
				runs,
				warnings,
				schedule: registered?.cron,
				tick: async () => {
					const next = nextReading();
					registered?.onTick();
					await next;
					return runs;
				},
			};
		},
		async close() {
			await closeFunction?.();
			closeFunction = undefined;
		},
		settle: (started, outcome) =>
			void (outcome instanceof Error
				? ends.get(started)?.reject(outcome)
				: ends.get(started)?.resolve(outcome)),
		lastExecution: () => lastRun,
		output: (name) => lastRun?.data.resultData.runData[name]?.[0]?.data?.main?.[0] ?? [],
		async run(result, runMode = mode, { onError } = {}) {
			node.onError = onError;
			const items = JSON.parse(
				JSON.stringify(result.workflowData?.[0] ?? []),
			) as INodeExecutionData[];
			const executionId = `trigger-run-${++runs}`;
			const hooks = new core.ExecutionLifecycleHooks(runMode, executionId, {
				id: workflow.id,
				name: workflow.name,
				nodes: [node],
				connections: {},
				active: true,
				activeVersionId: null,
				isArchived: false,
				createdAt: new Date(),
				updatedAt: new Date(),
			} as IWorkflowBase);
			const done = new Promise<IRun>((resolve) =>
				hooks.addHandler('workflowExecuteAfter', (run) => resolve(run)),
			);
			// The run's requests (a late change's check of its order) authenticate as in n8n: the full credentials helper.
			const { credentialsHelper } = buildAdditionalData({ storefrontApi: credentials });
			const additionalData = {
				...baseAdditionalData(),
				credentialsHelper,
				hooks,
				executionId,
				setExecutionStatus: () => {},
			};
			const runExecutionData = createRunExecutionData({
				executionData: { nodeExecutionStack: [{ node, data: { main: [items] }, source: null }] },
			});
			await new core.WorkflowExecute(
				additionalData as IWorkflowExecuteAdditionalData,
				runMode,
				runExecutionData,
			).processRunExecutionData(workflow);
			const run = await done;
			lastRun = run;
			ends.get(result)?.resolve(run);
			if (run.data.resultData.error) throw run.data.resultData.error;
			return run.data.resultData.runData[node.name]?.[0]?.data?.main?.[0] ?? [];
		},
	};
}

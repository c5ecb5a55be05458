import { randomUUID } from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, sleep } from 'n8n-workflow';

import { EVENT_KINDS } from '../shared/constants';
import { SIGNATURE_FAILURE_MESSAGES, SIGNATURE_HEADER, verifySignature } from '../shared/signature';
import { CATCH_UP_VERSION, changeKey, noteKnown, noteSeen, SOURCE_FIELD } from './catchUp';
import { ACTIVATION_WAIT_MS, DEFAULT_RECONCILE_MINUTES, RECONCILE_VERSION, Reconciler, scheduleOf, SETTLE_MS } from './reconcile';
import { noteRefusal } from './refusals';
import { claimRun, rememberEvent } from './seenEvents';
import { claimShared, sharedStore, type SharedStore } from './sharedClaims';

/** From this version on, "Drop Duplicate Events" is on unless the user turns it off. */
const DEDUPLICATING_VERSION = 1.2;

/** Allowed lead of an event's created_at over this server's clock before "Reject Events Older Than" refuses it. */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Request headers never copied into items by "Include Headers": the signature and any caller credentials. */
export const OMITTED_HEADERS = new Set([SIGNATURE_HEADER, 'authorization', 'proxy-authorization', 'cookie']);

const ACK = Object.freeze({ received: true });

/**
 * Which accepted delivery an item came from: set beside `json` (so it never shows in the item's data) when duplicate
 * dropping is on, read and removed again when the execution starts (see claimRun in ./seenEvents).
 */
export const DELIVERY_KEY = 'storefrontDelivery';

/** Beside `json` of the one item of a refused delivery's run (version 1.3 on), its code: the run fails with the reason. */
const REFUSED_KEY = 'storefrontRefused';

type Options = {
	catchUp?: boolean;
	reconcileEveryMinutes?: number;
	dropDuplicates?: boolean;
	includeHeaders?: boolean;
	rejectOlderThanMinutes?: number;
};

/** A first reading the service refused for good (a wrong key or Base URL): trying again cannot help. */
const isRefusal = (error: unknown): error is Error => {
	const status = Number((error as { httpCode?: unknown } | undefined)?.httpCode);
	return status >= 400 && status < 500 && status !== 429;
};

/** Whether duplicate events are dropped outside test runs: the option, else on from DEDUPLICATING_VERSION. */
const dropsDuplicates = (options: Options, typeVersion: number) => options.dropDuplicates ?? typeVersion >= DEDUPLICATING_VERSION;

/** Whether the node catches up: the option, else on from CATCH_UP_VERSION. It claims, so it needs Drop Duplicate Events. */
const catchesUp = (options: Options, typeVersion: number) =>
	dropsDuplicates(options, typeVersion) && (options.catchUp ?? typeVersion >= CATCH_UP_VERSION);

/** Minutes between two reconciliations: the option, else DEFAULT_RECONCILE_MINUTES from RECONCILE_VERSION on; 0: none. */
const reconcileMinutes = (options: Options, typeVersion: number) =>
	options.reconcileEveryMinutes ?? (typeVersion >= RECONCILE_VERSION ? DEFAULT_RECONCILE_MINUTES : 0);

interface StorefrontEvent extends IDataObject {
	id: string;
	type: string;
	created_at?: string;
	data?: IDataObject;
}

const isEvent = (value: unknown): value is StorefrontEvent =>
	typeof value === 'object' &&
	value !== null &&
	!Array.isArray(value) &&
	typeof (value as IDataObject).id === 'string' &&
	(value as IDataObject).id !== '' &&
	typeof (value as IDataObject).type === 'string' &&
	(value as IDataObject).type !== '';

/** Answers the request directly and tells n8n not to run the workflow nor send its own response. */
function respond(context: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	context.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

/** What a user can do about each refusal, said in the failed execution it becomes. */
const REFUSAL_ADVICE: Record<string, string> = {
	invalid_signature:
		'Copy the signing secret shown next to the webhook URL in the Storefront dashboard into the "Webhook Secret" field of the credentials. Refused deliveries are retried by the service for a while, then dropped: with Catch Up After Downtime on, deactivating and activating the workflow once the secret is right runs the changes they carried.',
	webhook_secret_missing:
		'Copy the signing secret shown next to the webhook URL in the Storefront dashboard into the "Webhook Secret" field of the credentials.',
	invalid_event: 'The sender is not the Storefront service, or it sends something other than events to this URL.',
	invalid_created_at: 'The sender sends events without a valid created_at: check the URL set in the Storefront dashboard.',
	event_outside_window:
		'The event is older than "Reject Events Older Than" allows (a late retry after downtime, or a clock that is off). Raise the option or remove it; with Catch Up After Downtime on, such a change is run by the next catch-up.',
};

/**
 * Answers a delivery with an error (the service sees the status) and reports it (./refusals): a warning in n8n's log,
 * and from version 1.3 a run that fails with the reason (always while listening for a test event, where the editor
 * shows it). The answer never carries more than the code and message below: no secret, no digest.
 */
function reject(context: IWebhookFunctions, status: number, code: string, message: string): IWebhookResponseData {
	respond(context, status, { error: { code, message } });
	const node = context.getNode();
	const workflow = context.getWorkflow();
	const test = context.getMode() === 'manual';
	const report = noteRefusal(`${scopeOf(context)}${test ? ':test' : ''}`, Date.now());
	if (report.warn) {
		const more = report.warn > 1 ? ` (${report.warn} deliveries refused since the last such warning)` : '';
		context.logger.warn(
			`Storefront Trigger: refused a delivery to workflow "${workflow.name ?? ''}" (id ${workflow.id ?? ''}, node "${node.name}") with ${status} ${code}: ${message}${more}`,
		);
	}
	if (node.typeVersion < CATCH_UP_VERSION || !(test || report.execution)) return { noWebhookResponse: true };
	return {
		noWebhookResponse: true,
		workflowData: [[{ json: { refused: { status, code, message } }, [REFUSED_KEY]: code }]],
	};
}

async function assertSecretConfigured(context: IHookFunctions): Promise<void> {
	const credentials = await context.getCredentials('storefrontApi');
	if (typeof credentials.webhookSecret !== 'string' || credentials.webhookSecret === '') {
		throw new NodeOperationError(
			context.getNode(),
			'The Storefront credentials have no Webhook Secret, so no delivery could be verified',
			{
				description:
					'Copy the signing secret shown next to the webhook URL in the Storefront dashboard into the "Webhook Secret" field of the credentials. The trigger never accepts unsigned deliveries.',
			},
		);
	}
}

/** Whether the bytes are well-formed UTF-8: decoding replaces bad sequences with U+FFFD, so they do not survive. */
const isUtf8 = (bytes: Buffer) => Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);

/** The parsed event: n8n's own parse of the body when it made one, else (non-JSON content type) the raw bytes. */
function readEvent(context: IWebhookFunctions, rawBody: Buffer): StorefrontEvent | undefined {
	// JSON is UTF-8 (RFC 8259). n8n decodes bad bytes silently into U+FFFD, which would alter the event's data.
	if (!isUtf8(rawBody)) return undefined;
	// n8n's parse is reused only when it was a JSON parse: it also turns form and XML bodies into objects.
	const contentType = String(context.getHeaderData()['content-type'] ?? '');
	if (/[/+]json\b/i.test(contentType)) {
		const parsed = context.getBodyData();
		if (isEvent(parsed)) return parsed;
	}
	try {
		const fromRaw: unknown = JSON.parse(rawBody.toString('utf8'));
		return isEvent(fromRaw) ? fromRaw : undefined;
	} catch {
		// Not JSON at all: the caller answers 400, which is the whole handling this needs.
		return undefined;
	}
}

function filterHeaders(headers: IDataObject): IDataObject {
	const kept: IDataObject = {};
	for (const name of Object.keys(headers)) {
		if (!OMITTED_HEADERS.has(name.toLowerCase())) kept[name] = headers[name];
	}
	return kept;
}

/** Whose remembered ids apply: this trigger node of this workflow. */
const scopeOf = (context: IWebhookFunctions | IExecuteFunctions) => `${context.getWorkflow().id ?? ''}:${context.getNode().id}`;

/**
 * Trigger versions up to 0.1.0 of this package also wrote event ids into the workflow's static data, which n8n
 * never saved once the workflow had some; activation (whose static-data changes n8n does save) removes what is left.
 */
function forgetStoredIds(staticData: IDataObject): void {
	delete staticData.seenEvents;
	delete staticData.seenEventIds;
}

const EVENT_OPTIONS = [...EVENT_KINDS].sort((a, b) => a.name.localeCompare(b.name));

export class StorefrontTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Storefront Trigger',
		name: 'storefrontTrigger',
		icon: { light: 'file:storefront.svg', dark: 'file:storefront.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves exactly as 1. It exists because n8n treats a typeVersion-1 webhook start node as a legacy
		// Webhook v1 and evaluates an expression ($parameter.options.binaryData) on every delivery — with the
		// vm expression engine that alone builds an isolate per request.
		// 1.2 drops duplicate events unless "Drop Duplicate Events" is turned off (1 and 1.1: only when it is
		// added and on).
		// 1.3 catches up after downtime unless "Catch Up After Downtime" is turned off (before: only when it is added
		// and on), adds "source" to every item then, and a refused delivery also fails a run (docs/trigger.md). New
		// nodes get 1.3.
		// 1.4 also reads the lists every 5 minutes while the workflow is active ("Reconcile Every"), so a delivery that
		// never arrived while n8n was running still runs (before: only when the option is added).
		version: [1, 1.1, 1.2, 1.3, 1.4],
		defaultVersion: 1.4,
		subtitle: '={{($parameter["events"] || []).join(", ")}}',
		// n8n's nodes panel lists this trigger and the Storefront node as one entry, "Storefront", and shows this
		// description for it in both of its lists, "What triggers this workflow?" and "What happens next?"; so it says
		// what both do, not only what the trigger does.
		description: 'Manage a Storefront shop, and start workflows from its signed webhook events (orders, payments, stock)',
		defaults: {
			name: 'Storefront Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'storefrontApi',
				required: true,
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty on purpose: n8n answers an on-receipt webhook with `responseData` when it is set and
				// defaults it to 'firstEntryJson'; empty makes it send our `webhookResponse` ({received: true}).
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'Storefront has no API to register webhooks: paste the <b>Production URL</b> into its dashboard\'s webhook settings, or the <b>Test URL</b> while you listen for a test event.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: [],
				description:
					'The event types that start the workflow. Other verified events are acknowledged and ignored.',
				options: [
					{
						name: 'All Events',
						value: '*',
						description: 'Any event type, including ones Storefront adds later',
					},
					...EVENT_OPTIONS.map(({ name, value, description }) => ({ name, value, description })),
				],
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Catch Up After Downtime',
						name: 'catchUp',
						type: 'boolean',
						default: true,
						description:
							'Whether to run, once, the changes whose deliveries n8n missed while stopped or starting: read from the order and product lists at activation and start. Needs Drop Duplicate Events.',
					},
					{
						displayName: 'Drop Duplicate Events',
						name: 'dropDuplicates',
						type: 'boolean',
						default: true,
						description:
							'Whether to acknowledge a redelivered event without running the workflow again, across restarts and queue mode',
					},
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: true,
						description:
							'Whether to add the request headers to each item under "headers" (without the signature, cookie and authorization headers)',
					},
					{
						displayName: 'Reconcile Every (Minutes)',
						name: 'reconcileEveryMinutes',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 60, numberPrecision: 2 },
						default: DEFAULT_RECONCILE_MINUTES,
						description:
							'How often, while the workflow is active, to run the changes whose delivery never arrived (0: never). Needs Catch Up After Downtime.',
					},
					{
						displayName: 'Reject Events Older Than (Minutes)',
						name: 'rejectOlderThanMinutes',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 15,
						description:
							'Refuse (HTTP 400) events created longer ago than this, so a captured delivery cannot be replayed. Careful: the service\'s late retries after an outage are refused too.',
					},
				],
			},
		],
	};

	// Storefront has no webhook-registration API: the URL is pasted into its dashboard by hand (see the notice).
	// So the lifecycle only checks what activation needs (a webhook secret: the trigger fails closed) and keeps a
	// note of the URL it was activated for; nothing is created or deleted on the service.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				await assertSecretConfigured(this);
				const staticData = this.getWorkflowStaticData('node');
				forgetStoredIds(staticData);
				return staticData.activatedUrl === this.getNodeWebhookUrl('default');
			},
			async create(this: IHookFunctions): Promise<boolean> {
				await assertSecretConfigured(this);
				const staticData = this.getWorkflowStaticData('node');
				forgetStoredIds(staticData);
				staticData.activatedUrl = this.getNodeWebhookUrl('default');
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				// The remembered event ids stay (in n8n's database and in memory): re-saving an active
				// workflow deactivates and re-activates it, and a redelivery arriving across that must be recognised.
				const staticData = this.getWorkflowStaticData('node');
				delete staticData.activatedUrl;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const { webhookSecret, previousWebhookSecret } = await this.getCredentials<{
			webhookSecret?: string;
			previousWebhookSecret?: string;
		}>('storefrontApi');
		const request = this.getRequestObject();
		if (request.rawBody === undefined && typeof request.readRawBody === 'function') {
			await request.readRawBody();
		}
		const rawBody = request.rawBody;

		// 1. Authenticity first, over the bytes exactly as received; nothing else is looked at before it passes.
		const check = verifySignature(rawBody, request.headers[SIGNATURE_HEADER], webhookSecret, previousWebhookSecret);
		if (!check.valid) {
			const code = check.reason === 'missing_secret' ? 'webhook_secret_missing' : 'invalid_signature';
			return reject(this, 401, code, SIGNATURE_FAILURE_MESSAGES[check.reason]);
		}

		// 2. Shape. n8n has already parsed a JSON body from these same bytes: reuse it rather than parse twice.
		const event = readEvent(this, rawBody);
		if (event === undefined) {
			return reject(this, 400, 'invalid_event', 'The body must be a UTF-8 JSON event with string "id" and "type"');
		}

		const events = this.getNodeParameter('events', []) as string[];
		if (!events.includes('*') && !events.includes(event.type)) {
			return respond(this, 200, { received: true, skipped: 'event_type_not_selected' });
		}

		const options = this.getNodeParameter('options', {}) as Options;
		if (options.rejectOlderThanMinutes !== undefined) {
			const createdAt = typeof event.created_at === 'string' ? Date.parse(event.created_at) : NaN;
			const now = Date.now();
			if (Number.isNaN(createdAt)) {
				return reject(this, 400, 'invalid_created_at', 'The event has no valid "created_at" timestamp');
			}
			if (now - createdAt > options.rejectOlderThanMinutes * 60_000 || createdAt - now > CLOCK_SKEW_MS) {
				return reject(
					this,
					400,
					'event_outside_window',
					`The event was created at ${event.created_at}, outside the accepted window of ${options.rejectOlderThanMinutes} minutes`,
				);
			}
		}

		// Not while listening for a test event: resending the same event from the dashboard must run each time.
		const { typeVersion } = this.getNode();
		const dropDuplicates = this.getMode() !== 'manual' && dropsDuplicates(options, typeVersion);
		const delivery = randomUUID();
		if (dropDuplicates && !rememberEvent(scopeOf(this), event.id, Date.now(), delivery)) {
			return respond(this, 200, { received: true, skipped: 'duplicate_event' });
		}

		const item: IDataObject = {
			id: event.id,
			type: event.type,
			created_at: event.created_at,
			data: event.data,
		};
		if (catchesUp(options, typeVersion)) item[SOURCE_FIELD] = 'webhook';
		if (options.includeHeaders === true) item.headers = filterHeaders(request.headers as IDataObject);

		const output: INodeExecutionData = { json: item };
		if (dropDuplicates) output[DELIVERY_KEY] = delivery;
		return { webhookResponse: ACK, workflowData: [[output]] };
	}

	// Catch Up After Downtime and Reconcile Every (./reconcile). n8n calls trigger() of an active workflow's node that
	// has one when it activates the workflow and whenever n8n starts with it active — on main only: queue-mode webhook
	// processors and workers never do (n8n's ActiveWorkflowManager, both lines; docs/trigger.md). The runs it starts go
	// through execute() below like a delivery's, where each change is claimed. The reading goes on after trigger()
	// returns; n8n calls closeFunction and drops the schedule when it deactivates the workflow.
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const options = this.getNodeParameter('options', {}) as Options;
		const { typeVersion } = this.getNode();
		if (this.getMode() === 'manual' || !catchesUp(options, typeVersion)) return {};
		const workflow = this.getWorkflow();
		const reconciler = await Reconciler.create(this, {
			events: this.getNodeParameter('events', []) as string[],
			scope: `${workflow.id ?? ''}:${this.getNode().id}`,
			about: `workflow "${workflow.name ?? ''}" (id ${workflow.id ?? ''})`,
			start: (events) => {
				const token = randomUUID();
				this.emit([events.map((event) => ({ json: { ...event, [SOURCE_FIELD]: 'catchUp' }, [DELIVERY_KEY]: token }))]);
			},
		});
		const first = reconciler.read(0);
		// A user activating by hand hears why the first reading failed (a wrong key, say), within a few seconds; n8n's
		// start, which activates workflows in batches, never waits for it.
		if (['activate', 'create', 'update'].includes(this.getActivationMode())) {
			const error = await Promise.race([first, sleep(ACTIVATION_WAIT_MS)]);
			if (isRefusal(error)) {
				reconciler.stop();
				throw new NodeOperationError(this.getNode(), error, {
					description: 'The trigger reads the order and product lists to run the changes no delivery brought. Check the credentials, or turn off "Catch Up After Downtime".',
				});
			}
		}
		const minutes = reconcileMinutes(options, typeVersion);
		// A change younger than half the interval (30 s at most) is left to its delivery until the next reading.
		const settleMs = Math.min(SETTLE_MS, minutes * 30_000);
		if (minutes > 0) this.helpers.registerCron({ expression: scheduleOf(minutes) as never }, () => void reconciler.read(settleMs, true));
		return { closeFunction: async () => reconciler.stop() };
	}

	// n8n runs this as the first step of every execution the trigger started (a node with both webhook() and
	// execute() gets execute() called with the webhook's items, as n8n's Wait and Form nodes do; so does the run a
	// catch-up starts). It passes each event on unless another delivery of the same event got there first: in this
	// running n8n (free: after a crash n8n re-runs accepted executions itself while the service redelivers them), then
	// in n8n's database, which every n8n shares (another webhook processor or worker in queue mode, this n8n before a
	// restart; ./sharedClaims). With the catch-up on, what is claimed there is the change (changeKey), so a delivery
	// and a catch-up that report the same change run it once. A retry from the executions list always runs: the user
	// asked for it.
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const refused = items.find((item) => typeof item[REFUSED_KEY] === 'string');
		if (refused) {
			// Asked to continue on errors, n8n would pass the error on as an item: the next node must never run for a
			// refused delivery. The refusal is in n8n's log (webhook()).
			if (this.continueOnFail()) return [[]];
			const { code, message } = (refused.json.refused ?? {}) as IDataObject;
			throw new NodeOperationError(this.getNode(), `Refused a delivery: ${String(message)}`, {
				description: REFUSAL_ADVICE[String(code)] ?? '',
			});
		}
		const mode = this.getMode();
		const claim = !['manual', 'retry'].includes(mode);
		const options = this.getNodeParameter('options', 0, {}) as Options;
		const { typeVersion } = this.getNode();
		const byChange = catchesUp(options, typeVersion);
		const staticData = byChange && mode !== 'manual' ? this.getWorkflowStaticData('node') : undefined;
		const scope = scopeOf(this);
		const shared = claim ? sharedStore(this, scope) : undefined;
		const now = Date.now();
		// The items' claims go out together, so a catch-up's run asks n8n's database once (one batch) rather than once
		// per change; the in-memory steps before it still take the items in order.
		const goesOn = await Promise.all(
			items.map(async (item) => {
				const delivery = item[DELIVERY_KEY];
				const { id, type, data, created_at } = item.json;
				if (staticData) noteSeen(staticData, created_at, now);
				if (!claim || typeof delivery !== 'string' || typeof id !== 'string') return true;
				if (!claimRun(scope, id, delivery, now)) return false;
				const claimed = (byChange && changeKey(type, data)) || id;
				const runs = !shared || (await claimInDatabase(this, shared, claimed, delivery));
				// Ran here or elsewhere, it is not started again by this n8n's reconciliations.
				if (byChange) noteKnown(scope, claimed);
				return runs;
			}),
		);
		const passed = items.flatMap((item, index) => (goesOn[index] ? [{ json: item.json, pairedItem: { item: index } }] : []));
		return [passed];
	}
}

/**
 * The shared-database claim of one event; true when the run goes on. Should n8n's database not answer, the event
 * runs (and a warning says why): dropping it would lose it, and the in-memory checks have already passed.
 */
async function claimInDatabase(context: IExecuteFunctions, store: SharedStore, id: string, delivery: string) {
	try {
		return await claimShared(store, id, delivery);
	} catch (error) {
		context.logger.warn(
			`Storefront Trigger: could not check event ${id} for duplicates in n8n's database, so it runs: ${(error as Error).message}`,
		);
		return true;
	}
}

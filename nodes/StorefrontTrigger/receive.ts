// webhook(): a delivery is checked in the steps below and handed to n8n as one item; its run claims it (./claim). A
// refusal answers the service at once and is reported where a user looks (./refusals).
import { randomUUID } from 'crypto';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { SIGNATURE_FAILURE_MESSAGES, SIGNATURE_HEADER, verifySignature } from '../shared/signature';
import { scopeOf } from '../shared/n8n';
import { isObject } from '../shared/transport';
import {
	catchesUp,
	dropsDuplicates,
	rememberMs,
	runItem,
	SOURCE_FIELD,
	type Options,
} from './options';
import { noteRefusal, REFUSED_KEY } from './refusals';
import { acceptDelivery, ranHere } from './ranHere';
import { release } from './release';
import { keysOf, knowChange } from './changeKeys';
import type { Judgement } from './statusesKnown';

/** Allowed lead of an event's created_at over this server's clock before "Reject Events Older Than" refuses it. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Request headers never copied into items by "Include Headers": the signature and any caller credentials. */
const OMITTED_HEADERS = new Set([
	SIGNATURE_HEADER,
	'authorization',
	'proxy-authorization',
	'cookie',
]);

interface StorefrontEvent extends IDataObject {
	id: string;
	type: string;
	created_at?: string;
	data?: IDataObject;
}

const isEvent = (value: unknown): value is StorefrontEvent =>
	isObject(value) &&
	typeof value.id === 'string' &&
	value.id !== '' &&
	typeof value.type === 'string' &&
	value.type !== '';

export async function receive(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const { webhookSecret, previousWebhookSecret } = await context.getCredentials<{
		webhookSecret?: string;
		previousWebhookSecret?: string;
	}>('storefrontApi');
	const request = context.getRequestObject();
	if (request.rawBody === undefined && typeof request.readRawBody === 'function') {
		await request.readRawBody();
	}
	const rawBody = request.rawBody;

	// 1. Authenticity first, over the bytes exactly as received; nothing else is looked at before it passes.
	const check = verifySignature(
		rawBody,
		request.headers[SIGNATURE_HEADER],
		webhookSecret,
		previousWebhookSecret,
	);
	if (!check.valid) {
		const code = check.reason === 'missing_secret' ? 'webhook_secret_missing' : 'invalid_signature';
		return reject(context, 401, code, SIGNATURE_FAILURE_MESSAGES[check.reason]);
	}

	// 2. Shape. n8n has already parsed a JSON body from these same bytes: reuse it rather than parse twice.
	const event = readEvent(context, rawBody);
	if (event === undefined) {
		return reject(
			context,
			400,
			'invalid_event',
			'The body must be a UTF-8 JSON event with string "id" and "type"',
		);
	}

	const kinds = context.getNodeParameter('events', []) as string[];
	if (!kinds.includes('*') && !kinds.includes(event.type)) {
		return respond(context, 200, { received: true, skipped: 'event_type_not_selected' });
	}

	const options = context.getNodeParameter('options', {}) as Options;
	const now = Date.now();
	const maxAgeMinutes = options.rejectOlderThanMinutes;
	if (maxAgeMinutes !== undefined) {
		const createdAt = typeof event.created_at === 'string' ? Date.parse(event.created_at) : NaN;
		if (Number.isNaN(createdAt)) {
			return reject(
				context,
				400,
				'invalid_created_at',
				'The event has no valid "created_at" timestamp',
			);
		}
		if (now - createdAt > maxAgeMinutes * 60_000 || createdAt - now > CLOCK_SKEW_MS) {
			return reject(
				context,
				400,
				'event_outside_window',
				`The event was created at ${event.created_at}, outside the accepted window of ${maxAgeMinutes} minutes`,
			);
		}
	}

	// 3. A redelivery this n8n took already. Not while listening for a test event: resending the same event from the
	// dashboard must run each time.
	const dropDuplicates = context.getMode() !== 'manual' && dropsDuplicates(options);
	const delivery = randomUUID();
	const scope = scopeOf(context);
	release(now); // what this process kept of triggers deactivated since
	if (dropDuplicates && !acceptDelivery(scope, event.id, delivery, now)) {
		return respond(context, 200, { received: true, skipped: 'duplicate_event' });
	}

	// 4. A change this n8n knows it ran (a delivery's, a catch-up's, a check's), whatever the event id. What it knows of
	// the order goes with the item: the run may be a queue worker's, which knows only the claims (./changeKeys).
	let known: Judgement | undefined;
	if (dropDuplicates && catchesUp(options)) {
		const change = knowChange(scope, event, false, now);
		if (keysOf(change.claim).some((key) => ranHere(scope, key, now, rememberMs(options)))) {
			return respond(context, 200, { received: true, skipped: 'duplicate_change' });
		}
		known = change.known;
	}

	const { id, type, created_at, data } = event;
	const item: IDataObject = { id, type, created_at, data };
	if (catchesUp(options)) item[SOURCE_FIELD] = 'webhook';
	if (options.includeHeaders === true) item.headers = filterHeaders(request.headers as IDataObject);

	const output = runItem(item, dropDuplicates ? delivery : undefined, known);
	return { webhookResponse: { received: true }, workflowData: [[output]] };
}

/** Answers the request directly and tells n8n not to run the workflow nor send its own response. */
function respond(context: IWebhookFunctions, status: number, body: IDataObject) {
	context.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

/** Answers a delivery with an error (never a secret or digest) and reports it: a log warning, a failed run. */
function reject(context: IWebhookFunctions, status: number, code: string, message: string) {
	respond(context, status, { error: { code, message } });
	const workflow = context.getWorkflow();
	const test = context.getMode() === 'manual';
	const report = noteRefusal(`${scopeOf(context)}${test ? ':test' : ''}`, Date.now());
	if (report.warn) {
		const more =
			report.warn > 1 ? ` (${report.warn} deliveries refused since the last such warning)` : '';
		context.logger.warn(
			`Storefront Trigger: refused a delivery to workflow "${workflow.name ?? ''}" (id ${workflow.id ?? ''}, node ` +
				`"${context.getNode().name}") with ${status} ${code}: ${message}${more}`,
		);
	}
	if (!(test || report.execution)) return { noWebhookResponse: true };
	return {
		noWebhookResponse: true,
		workflowData: [[{ json: { refused: { status, code, message } }, [REFUSED_KEY]: code }]],
	};
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
	const fromRaw = jsonParse<unknown>(rawBody.toString('utf8'), { fallbackValue: null });
	return isEvent(fromRaw) ? fromRaw : undefined;
}

const filterHeaders = (headers: IDataObject): IDataObject =>
	Object.fromEntries(
		Object.entries(headers).filter(([name]) => !OMITTED_HEADERS.has(name.toLowerCase())),
	);

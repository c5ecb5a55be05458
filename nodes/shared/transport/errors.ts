// Error bodies (docs/api-contract.md row 10) and the errors the node raises from them: the service's own words,
// never the request options (which carry the Authorization header).
import type {
	IDataObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	ITriggerFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { isObject } from './envelope';

/**
 * Who calls the API: the action node, its resource-locator searches, the polling trigger and the webhook trigger's
 * catch-up.
 */
export type Context =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IPollFunctions
	| ITriggerFunctions;

const HTML_ENTITIES: Record<string, string> = {
	'&amp;': '&',
	'&lt;': '<',
	'&gt;': '>',
	'&quot;': '"',
	'&#39;': "'",
};

/** Readable text of a non-JSON body: its first line, or for an HTML page its first two distinct text lines. */
export function firstLine(text: string): string {
	const isHtml = /<(html|body|head|title|p|h1)\b/i.test(text);
	const stripped = isHtml
		? text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, '\n')
		: text;
	const lines = [
		...new Set(
			stripped
				.split(/\r?\n/)
				.map((part) => part.trim())
				.filter((part) => part.length > 0),
		),
	];
	const line = lines.slice(0, isHtml ? 2 : 1).join(' — ');
	const decoded = isHtml
		? line.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => HTML_ENTITIES[entity] ?? entity)
		: line;
	return decoded.slice(0, 300);
}

function fieldErrors(list: unknown): string | undefined {
	if (!Array.isArray(list)) return undefined;
	const parts = list
		.map((entry) => {
			if (typeof entry === 'string') return entry;
			if (!isObject(entry)) return '';
			const message = String(entry.message ?? entry.detail ?? entry.msg ?? '');
			return entry.field ? `${String(entry.field)}: ${message}` : message;
		})
		.filter((part) => part.length > 0);
	return parts.length ? parts.join('; ') : undefined;
}

/**
 * The service's own words from any error body the contract admits (row 10): `{error: {message, details}}`,
 * `{message}`, `{error: "…"}`, `{error_description}`, `{errors: […]}`, `{detail}`, plain text or an HTML page.
 */
export function serviceMessage(body: unknown): { message: string; code?: string } {
	let parsed = body;
	if (typeof body === 'string') {
		const text = body.trim();
		if (text.startsWith('{') || text.startsWith('[')) {
			try {
				parsed = JSON.parse(text);
			} catch {
				return { message: firstLine(text) };
			}
		} else {
			return { message: firstLine(text) };
		}
	}
	if (Array.isArray(parsed)) return { message: fieldErrors(parsed) ?? '' };
	if (!isObject(parsed)) return { message: '' };
	const { error } = parsed;
	if (isObject(error)) {
		const details = fieldErrors(error.details);
		const message = String(error.message ?? error.description ?? '');
		return {
			message: details ? `${message} (${details})` : message,
			code: typeof error.code === 'string' ? error.code : undefined,
		};
	}
	const errors = fieldErrors(parsed.errors);
	const candidates = [
		parsed.message,
		typeof error === 'string' ? error : undefined,
		parsed.error_description,
		errors,
		typeof parsed.detail === 'string' ? parsed.detail : fieldErrors(parsed.detail),
	];
	const message = candidates.find(
		(candidate) => typeof candidate === 'string' && candidate.length > 0,
	);
	const details =
		typeof parsed.error_description === 'string' && message !== parsed.error_description;
	return {
		message: details
			? `${String(message)}: ${String(parsed.error_description)}`
			: String(message ?? ''),
		code: typeof parsed.code === 'string' ? parsed.code : undefined,
	};
}

/** The network error code of a failed request, looked up along the `cause` chain of n8n's wrapper. */
export function networkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && isObject(current); depth++) {
		const code = (current as IDataObject).code;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		const message = (current as IDataObject).message;
		if (typeof message === 'string' && /socket hang up/i.test(message)) return 'ECONNRESET';
		current = (current as IDataObject).cause;
	}
	return undefined;
}

/**
 * A NodeApiError keeping our message as written: NodeApiError swaps any message that mentions a network code
 * (ECONNRESET, EPERM…) for a generic sentence, which would hide the service's own words.
 */
export function nodeApiError(
	ctx: Context,
	response: IDataObject,
	options: { message: string; description?: string; httpCode?: string; itemIndex?: number },
): NodeApiError {
	const error = new NodeApiError(ctx.getNode(), response as JsonObject, options);
	error.message = options.message;
	return error;
}

/**
 * Whether a failed request got no answer at all (a dropped connection or a time-out): the only NodeApiError the client
 * raises without an HTTP status. A create that failed so may have reached the service.
 */
export function gotNoAnswer(error: unknown): boolean {
	return error instanceof NodeApiError && !error.httpCode;
}

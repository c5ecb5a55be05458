// The errors a request ends in, with the service's own words (docs/api-contract.md row 10), built from plain objects,
// never from the helper's error or the request options: they carry the Authorization header.
import type { IAllExecuteFunctions, IDataObject, JsonObject } from 'n8n-workflow';
import { jsonParse, NodeApiError } from 'n8n-workflow';

import { RATE_LIMIT_PLANS } from '../constants';
import { isObject } from './envelope';
import type { RateLimitWaitError } from './governor';

const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** Readable text of a non-JSON body: its first line, or for an HTML page its first two distinct text lines. */
function firstLine(text: string): string {
	const isHtml = /<(html|body|head|title|p|h1)\b/i.test(text);
	const stripped = isHtml
		? text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]+>/g, '\n')
		: text;
	const parts = stripped.split(/\r?\n/).map((part) => part.trim());
	const lines = parts.filter((part) => part.length > 0);
	if (!isHtml) return (lines[0] ?? '').slice(0, 300);
	const line = [...new Set(lines)].slice(0, 2).join(' — ');
	const entity = /&(amp|lt|gt|quot|#39);/g;
	return line.replace(entity, (match, name: string) => HTML_ENTITIES[name] ?? match).slice(0, 300);
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

/** The service's own words from any error body the contract admits (row 10), JSON, plain text or an HTML page. */
export function serviceMessage(body: unknown): { message: string; code?: string } {
	let parsed = body;
	if (typeof body === 'string') {
		// Text that does not parse as JSON stays text (JSON from `{` or `[` is never a string).
		const text = body.trim();
		if (/^[[{]/.test(text)) parsed = jsonParse(text, { fallbackValue: text });
		if (typeof parsed === 'string') return { message: firstLine(text) };
	}
	if (Array.isArray(parsed)) return { message: fieldErrors(parsed) ?? '' };
	if (!isObject(parsed)) return { message: '' };
	const { error } = parsed;
	const coded = isObject(error) ? error : parsed;
	const code = typeof coded.code === 'string' ? coded.code : undefined;
	if (isObject(error)) {
		const details = fieldErrors(error.details);
		const message = String(error.message ?? error.description ?? '');
		return { message: details ? `${message} (${details})` : message, code };
	}
	const candidates = [
		parsed.message,
		typeof error === 'string' ? error : undefined,
		parsed.error_description,
		fieldErrors(parsed.errors),
		typeof parsed.detail === 'string' ? parsed.detail : fieldErrors(parsed.detail),
	];
	const message = candidates.find((candidate) => typeof candidate === 'string' && candidate !== '');
	const { error_description: described } = parsed;
	if (typeof described === 'string' && message !== described)
		return { message: `${String(message)}: ${described}`, code };
	return { message: String(message ?? ''), code };
}

/** The network error code of a failed request, looked up along the `cause` chain of n8n's wrapper. */
export function networkCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && isObject(current); depth++) {
		const { code, message, cause } = current as IDataObject;
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		if (typeof message === 'string' && /socket hang up/i.test(message)) return 'ECONNRESET';
		current = cause;
	}
	return undefined;
}

/**
 * A NodeApiError of a request, with our message kept: NodeApiError swaps one naming a network code (EPERM…) for a
 * generic one. `said`, the error's response: the service's words, its code; `status` undefined: no answer.
 */
function nodeApiError(
	context: IAllExecuteFunctions,
	target: RequestTarget,
	status: number | undefined,
	words: { said: string; code?: string; message: string; description?: string },
): NodeApiError {
	const { said, code, message, description } = words;
	const httpCode = status === undefined ? undefined : String(status);
	const response = { message: said, ...(httpCode ? { httpCode } : {}), ...(code ? { code } : {}) };
	const options = { message, description, httpCode, itemIndex: target.itemIndex };
	const error = new NodeApiError(context.getNode(), response as JsonObject, options);
	error.message = message;
	return error;
}

/** Whether a request got no answer (the only NodeApiError without a status): a create may have gone through. */
export function gotNoAnswer(error: unknown): boolean {
	return error instanceof NodeApiError && !error.httpCode;
}

export interface RequestTarget {
	/** Shown in 404 messages, e.g. "Product". */
	resourceLabel?: string;
	id?: string;
	itemIndex?: number;
}

export interface FullResponse {
	body: unknown;
	headers: IDataObject;
	statusCode: number;
	/** "GET /orders/ord_00001": named in errors about the body. */
	endpoint?: string;
}

/** A request that waited for the rate limit as long as its budget allows; `refused`: its 429s, and the last one. */
export function waitedTooLong(
	context: IAllExecuteFunctions,
	error: RateLimitWaitError,
	budgetMs: number,
	started: number,
	refused: { count: number; last?: FullResponse },
	target: RequestTarget,
): NodeApiError {
	const waited = duration(Date.now() - started);
	const times = refused.count === 1 ? 'time' : 'times';
	const turnedAway =
		refused.count > 0 ? `, turned away ${refused.count} ${times} by the rate limit,` : '';
	const said = refused.last ? serviceMessage(refused.last.body).message : '';
	const saidText = said ? ` The service's last answer: ${said}.` : '';
	const more = error.stillToWaitMs
		? ` The service asked to wait ${duration(error.stillToWaitMs)} more.`
		: '';
	return nodeApiError(context, target, 429, {
		said: `Waited ${waited} for the rate limit`,
		message:
			`Storefront rate limit: this request waited ${waited}${turnedAway} and was not sent, ` +
			`the "Max Wait for Rate Limit" of ${duration(budgetMs)} being used up. ` +
			`The limit: ${error.limitText}; plan limits: ${RATE_LIMIT_PLANS}.${saidText}${more}`,
		description:
			'Many runs are sharing this API key\'s rate limit. Raise "Max Wait for Rate Limit" in the node\'s options, ' +
			"let fewer runs start at once (n8n's N8N_CONCURRENCY_PRODUCTION_LIMIT), or move to a larger plan.",
	});
}

export function apiError(
	context: IAllExecuteFunctions,
	status: number,
	response: FullResponse,
	target: RequestTarget,
): NodeApiError {
	const { message: said, code } = serviceMessage(response.body);
	const service = said || `HTTP ${status}`;
	let message: string;
	let description: string | undefined;
	if (status === 401 || status === 403) {
		message = `Storefront rejected the API key (${status}): ${service}`;
		description = 'Check the API key (and Base URL) in the Storefront API credentials.';
	} else if (status === 404 && target.resourceLabel && target.id !== undefined) {
		message = `${target.resourceLabel} "${target.id}" was not found: ${service}`;
		description = `Check the ${target.resourceLabel.toLowerCase()} ID; it may have been deleted.`;
	} else {
		// n8n's UX guidelines: say what happened without "error" or "failure" in the node's own words; the service's
		// words follow. No description here: a continue-on-fail item would gain a `details` key it never had.
		const outcome = status >= 500 ? 'could not complete' : 'did not accept';
		message = `Storefront ${outcome} the request (${status}): ${service}`;
	}
	return nodeApiError(context, target, status, { said: service, code, message, description });
}

export function notJson(
	context: IAllExecuteFunctions,
	response: FullResponse,
	target: RequestTarget,
	what = 'not JSON',
): NodeApiError {
	const body = response.body ?? '';
	const text =
		typeof body !== 'string'
			? JSON.stringify(body).slice(0, 200)
			: body.trim() === ''
				? 'empty body'
				: firstLine(body);
	return nodeApiError(context, target, response.statusCode, {
		said: text,
		message:
			`Storefront answered ${response.endpoint ?? 'the request'} with ${response.statusCode} ` +
			`and an unexpected body (${what}): ${text}`,
	});
}

export function connectionError(
	context: IAllExecuteFunctions,
	timeoutMs: number,
	method: string,
	url: string,
	code: string | undefined,
	error: unknown,
	target: RequestTarget,
): NodeApiError {
	// Axios names its own time-out ECONNABORTED; ETIMEDOUT is the system's.
	const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT';
	const said =
		isObject(error) && typeof error.message === 'string' ? error.message : 'unknown error';
	const reason = timedOut ? `no answer within ${duration(timeoutMs)} (${code})` : (code ?? said);
	return nodeApiError(context, target, undefined, {
		said: `Could not reach the Storefront API: ${reason}`,
		message: `Could not reach the Storefront API (${method} ${url}): ${reason}`,
		description:
			timedOut && method === 'POST'
				? 'The request may have reached the service before the time-out: ' +
					'check whether it took effect before running it again.'
				: 'Check the Base URL in the Storefront API credentials and that the service is reachable.',
	});
}

/** "15 min 0 s", "42 s": a wait as a user reads it. */
export function duration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}

// The errors a request to the Storefront API ends in, as a user reads them in n8n: built from plain, sanitised
// objects, because the helper's own error carries the request options, Authorization header included.
import type { IDataObject, NodeApiError } from 'n8n-workflow';

import { RATE_LIMIT_PLANS } from '../constants';
import { isObject } from './envelope';
import { firstLine, nodeApiError, serviceMessage, type Context } from './errors';
import type { RateLimitWaitError } from './governor';
import { duration } from './waits';

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

/** A request that waited for the rate limit as long as its budget allows: not sent (again). */
export function waitedTooLong(
	ctx: Context,
	budgetMs: number,
	error: RateLimitWaitError,
	waitedMs: number,
	refusals: number,
	target: RequestTarget,
	lastRefusal?: FullResponse,
): NodeApiError {
	const refused =
		refusals > 0 ? `, refused ${refusals} time${refusals === 1 ? '' : 's'} with 429,` : '';
	const said = lastRefusal ? serviceMessage(lastRefusal.body).message : '';
	const saidText = said ? ` The service's last answer: ${said}.` : '';
	const more = error.stillToWaitMs
		? ` The service asked to wait ${duration(error.stillToWaitMs)} more.`
		: '';
	const budget = duration(budgetMs);
	return nodeApiError(
		ctx,
		{ message: `Waited ${duration(waitedMs)} for the rate limit`, httpCode: '429' },
		{
			message:
				`Storefront rate limit: this request waited ${duration(waitedMs)}${refused} and was not sent, ` +
				`the "Max Wait for Rate Limit" of ${budget} being used up. ` +
				`The limit: ${error.limitText}; plan limits: ${RATE_LIMIT_PLANS}.${saidText}${more}`,
			description:
				'Many runs are sharing this API key\'s rate limit. Raise "Max Wait for Rate Limit" in the node\'s options, ' +
				"let fewer runs start at once (n8n's N8N_CONCURRENCY_PRODUCTION_LIMIT), or move to a larger plan.",
			httpCode: '429',
			itemIndex: target.itemIndex,
		},
	);
}

export function apiError(
	ctx: Context,
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
	return nodeApiError(
		ctx,
		{ message: service, httpCode: String(status), ...(code ? { code } : {}) },
		{ message, description, httpCode: String(status), itemIndex: target.itemIndex },
	);
}

export function notJson(
	ctx: Context,
	response: FullResponse,
	target: RequestTarget,
	what = 'not JSON',
): NodeApiError {
	const empty =
		response.body === undefined ||
		response.body === null ||
		(typeof response.body === 'string' && response.body.trim() === '');
	const text = empty
		? 'empty body'
		: typeof response.body === 'string'
			? firstLine(response.body)
			: JSON.stringify(response.body).slice(0, 200);
	return nodeApiError(
		ctx,
		{ message: text, httpCode: String(response.statusCode) },
		{
			message:
				`Storefront answered ${response.endpoint ?? 'the request'} with ${response.statusCode} ` +
				`and an unexpected body (${what}): ${text}`,
			httpCode: String(response.statusCode),
			itemIndex: target.itemIndex,
		},
	);
}

export function connectionError(
	ctx: Context,
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
	return nodeApiError(
		ctx,
		{ message: `Could not reach the Storefront API: ${reason}` },
		{
			message: `Could not reach the Storefront API (${method} ${url}): ${reason}`,
			description:
				timedOut && method === 'POST'
					? 'The request may have reached the service before the time-out: ' +
						'check whether it took effect before running it again.'
					: 'Check the Base URL in the Storefront API credentials and that the service is reachable.',
			itemIndex: target.itemIndex,
		},
	);
}

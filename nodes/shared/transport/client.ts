// The one place that talks HTTP to the Storefront API (docs/api-contract.md), through n8n's
// httpRequestWithAuthentication: retries, pacing, records and list walks.
import type {
	IAllExecuteFunctions,
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IDataObject,
	IHttpRequestMethods,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../constants';
import { unwrapList, unwrapSingle } from './envelope';
import {
	apiError,
	connectionError,
	networkCode,
	notJson,
	waitedTooLong,
	type FullResponse,
	type RequestTarget,
} from './errors';
import {
	accountOf,
	governorFor,
	type Governor,
	type RateLimitWaitError,
	type Ticket,
} from './governor';
import {
	countIn,
	nextPageNumber,
	pageSignature,
	pagesOf,
	paginationMeta,
	type Page,
} from './pagination';

/** Defaults of "Max Wait for Rate Limit (Seconds)" and "Timeout (Seconds)". */
export const DEFAULT_RATE_LIMIT_WAIT_S = 900;
export const DEFAULT_TIMEOUT_S = 60;

/** An option's number, at least `min`; its default where it is unset or not a number. */
const numberIn = (value: unknown, fallback: number, min = 0) =>
	typeof value === 'number' ? Math.max(min, value) : fallback;

/**
 * The client's settings from the node's options (docs/storefront-node.md, "Rate limits", "Other faults"), by the names
 * the node gives them: maxRetries, retryDelay (ms), maxRequestsPerMinute (0: no cap), maxRateLimitWait, timeout (s).
 */
function settingsOf(options: IDataObject) {
	return {
		maxRetries: Math.floor(numberIn(options.maxRetries, 5)),
		retryDelayMs: numberIn(options.retryDelay, 1000),
		maxRequestsPerMinute: numberIn(options.maxRequestsPerMinute, 0),
		rateLimitWaitMs: numberIn(options.maxRateLimitWait, DEFAULT_RATE_LIMIT_WAIT_S) * 1000,
		timeoutMs: numberIn(options.timeout, DEFAULT_TIMEOUT_S, 1) * 1000,
	};
}

const RETRYABLE_STATUSES = [502, 503, 504];
const RETRYABLE_NETWORK_CODES = [
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ECONNREFUSED',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
];

const MAX_BACKOFF_MS = 60_000;

/** Milliseconds to wait from a Retry-After header: delta seconds or an HTTP date. */
export function retryAfterMs(value: unknown, now = Date.now()): number | undefined {
	const text = String(Array.isArray(value) ? value[0] : value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with full jitter in [delay/2, delay], capped. */
export function backoffMs(attempt: number, baseMs: number): number {
	const delay = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** attempt);
	return Math.round(delay / 2 + (Math.random() * delay) / 2);
}

export class StorefrontClient {
	private nextPacedAt = 0;

	private readonly credentials: ICredentialsDecrypted;
	private readonly governor: Governor;
	private readonly waiting = { count: 0, since: 0 };
	readonly account: string;

	/** Time this client had a request waiting for Storefront's rate limit (wall time: overlapping waits count once). */
	waitedForLimitMs = 0;

	/** API calls asked of this client (a retry is not another). */
	calls = 0;

	private constructor(
		private readonly context: IAllExecuteFunctions,
		readonly baseUrl: string,
		data: ICredentialDataDecryptedObject,
		private readonly settings: ReturnType<typeof settingsOf>,
	) {
		// Handing the decrypted credentials to the helper spares it a credential look-up on every page.
		this.credentials = { id: '', name: 'storefrontApi', type: 'storefrontApi', data };
		this.account = accountOf(baseUrl, data.apiKey);
		this.governor = governorFor(this.account);
	}

	static async create(
		context: IAllExecuteFunctions,
		options: IDataObject = {},
	): Promise<StorefrontClient> {
		const data = await context.getCredentials('storefrontApi');
		const baseUrl = String(data.baseUrl ?? '')
			.trim()
			.replace(/\/+$/, '');
		if (!baseUrl)
			throw new NodeOperationError(
				context.getNode(),
				'The Storefront credentials have no Base URL',
				{
					description: 'Set the Base URL (including /v1) in the Storefront API credentials.',
				},
			);
		return new StorefrontClient(context, baseUrl, data, settingsOf(options));
	}

	/** One API call, resolved only for 2xx: a 429 goes back to its place in the queue, other faults are retried. */
	async request(
		method: IHttpRequestMethods,
		segments: string[],
		{ qs, body }: { qs?: IDataObject; body?: IDataObject } = {},
		target: RequestTarget = {},
	): Promise<FullResponse> {
		const path = segments.map((segment) => encodeURIComponent(segment)).join('/');
		const url = `${this.baseUrl}/${path}`;
		const { maxRetries, retryDelayMs, rateLimitWaitMs, timeoutMs } = this.settings;
		this.calls++;
		const started = Date.now();
		const deadline = started + rateLimitWaitMs;
		let seq: number | undefined;
		const refused: { count: number; last?: FullResponse } = { count: 0 };
		for (let attempt = 0; ; ) {
			// A POST may have reached the service before the connection broke or the service failed: never sent twice.
			const mayRetry = method !== 'POST' && attempt < maxRetries;
			await this.pace();
			const ticket = await this.slot(deadline, seq).catch((error: RateLimitWaitError) => {
				throw waitedTooLong(this.context, error, rateLimitWaitMs, started, refused, target);
			});
			seq = ticket.seq;
			let response: FullResponse;
			try {
				response = (await this.context.helpers.httpRequestWithAuthentication.call(
					this.context,
					'storefrontApi',
					{
						method,
						url,
						qs,
						body,
						json: true,
						headers: { Accept: 'application/json' },
						returnFullResponse: true,
						ignoreHttpStatusErrors: true,
						timeout: timeoutMs,
					},
					{ credentialsDecrypted: this.credentials },
				)) as FullResponse;
			} catch (error) {
				this.governor.settle(ticket, undefined);
				const code = networkCode(error);
				if (!mayRetry || !code || !RETRYABLE_NETWORK_CODES.includes(code))
					throw connectionError(this.context, timeoutMs, method, url, code, error, target);
				await sleep(backoffMs(attempt++, retryDelayMs));
				continue;
			}
			const { statusCode, headers } = response;
			if (statusCode === 429) {
				// Not processed (the contract), so even a POST goes again; every caller of the key pauses.
				const wait = retryAfterMs(headers['retry-after']) ?? backoffMs(refused.count, retryDelayMs);
				this.governor.settle(ticket, statusCode, headers, wait);
				refused.count++;
				refused.last = response;
				continue;
			}
			this.governor.settle(ticket, statusCode, headers);
			if (statusCode >= 200 && statusCode < 300)
				return { ...response, endpoint: `${method} /${path}` };
			if (!mayRetry || !RETRYABLE_STATUSES.includes(statusCode))
				throw apiError(this.context, statusCode, response, target);
			await sleep(backoffMs(attempt++, retryDelayMs));
		}
	}

	/** The record under `resourceKey` a request answers with: a GET's, or a write's (`body`) answer. */
	async requestRecord(
		method: IHttpRequestMethods,
		segments: string[],
		resourceKey: string,
		target: RequestTarget = {},
		body?: IDataObject,
	): Promise<IDataObject> {
		return this.single(await this.request(method, segments, { body }, target), resourceKey, target);
	}

	/** The record a response carries; an empty or non-JSON body is an error, never an empty item. */
	single(response: FullResponse, resourceKey: string, target: RequestTarget): IDataObject {
		const { body } = response;
		if (typeof body === 'string' && body.trim() !== '')
			throw notJson(this.context, response, target);
		const record = unwrapSingle(body, resourceKey);
		if (Object.keys(record).length === 0)
			throw notJson(this.context, response, target, `no ${resourceKey}`);
		return record;
	}

	/**
	 * Page `page` of the list at /`resource` (the key it is under), of the largest size or `size`, with the page that
	 * follows it (searches, the triggers, Create or Update); a body without the list is an error.
	 */
	async getPage(
		resource: string,
		qs: IDataObject,
		page: number,
		target: RequestTarget = {},
		size = MAX_PAGE_SIZE,
	): Promise<Page & { meta: IDataObject }> {
		const query = { qs: { ...qs, page, limit: size } };
		const response = await this.request('GET', [resource], query, target);
		const items = unwrapList(response.body, resource);
		if (!items) throw notJson(this.context, response, target, `no "${resource}" list`);
		const meta = paginationMeta(response.body);
		const nextPage = nextPageNumber(meta, page, items.length, size, items.length);
		const pages = pagesOf(meta, size, items.length);
		return { items, meta, nextPage, total: countIn(meta.total), pages };
	}

	/**
	 * Every item of a list (`limit` undefined) or the first `limit`, in pages of the largest size (or `limit`), from
	 * page 1 or on from `after`: a first page getPage read with these filters and this size.
	 */
	async getMany(
		resource: string,
		filters: IDataObject,
		limit: number | undefined,
		target: RequestTarget = {},
		after?: Page,
	): Promise<IDataObject[]> {
		const wanted = limit === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(limit));
		const size = Math.min(MAX_PAGE_SIZE, wanted);
		const collected: IDataObject[] = after ? after.items.slice(0, wanted) : [];
		if (collected.length >= wanted) return collected;
		for await (const { items } of this.pages(resource, filters, { target, size, after })) {
			collected.push(...items.slice(0, wanted - collected.length));
			if (collected.length >= wanted) break;
		}
		return collected;
	}

	/**
	 * The pages of a list from page 1, or those after `after` (a first page getPage read with these filters and size),
	 * until the contract's end signals (row 6) or an empty page, or a page the same as the one before (a service that
	 * ignores `page`). `beforeRequest` is awaited before each request.
	 */
	async *pages(
		resource: string,
		filters: IDataObject,
		walk: {
			target?: RequestTarget;
			size?: number;
			after?: Page;
			beforeRequest?: () => Promise<void>;
		},
	): AsyncGenerator<Page & { meta: IDataObject }> {
		const { target = {}, size = MAX_PAGE_SIZE, after, beforeRequest } = walk;
		let page: number | undefined = after ? after.nextPage : 1;
		let firstPageCount = after ? after.items.length : 0;
		let read = firstPageCount;
		let previous: string | undefined = after ? pageSignature(after.items, resource) : undefined;
		while (page !== undefined) {
			await beforeRequest?.();
			const fetched = await this.getPage(resource, filters, page, target, size);
			const { items, meta } = fetched;
			const signature = pageSignature(items, resource);
			if (items.length === 0 || signature === previous) return;
			previous = signature;
			if (page === 1) firstPageCount = items.length;
			read += items.length;
			yield fetched;
			page = nextPageNumber(meta, page, items.length, firstPageCount, read);
		}
	}

	/** The governor's slot for one request, its wait counted in `waitedForLimitMs` if for a limit the service showed. */
	private async slot(deadline: number, seq: number | undefined): Promise<Ticket> {
		if (this.waiting.count++ === 0) this.waiting.since = Date.now();
		try {
			return await this.governor.acquire(deadline, seq);
		} finally {
			if (--this.waiting.count === 0 && this.governor.knowsLimit())
				this.waitedForLimitMs += Date.now() - this.waiting.since;
		}
	}

	/** This run's own cap: each request reserves the next slot first, so concurrent items share the pace. */
	private async pace(): Promise<void> {
		const rpm = this.settings.maxRequestsPerMinute;
		if (rpm <= 0) return;
		const now = Date.now();
		const at = Math.max(now, this.nextPacedAt);
		this.nextPacedAt = at + 60_000 / rpm;
		if (at > now) await sleep(at - now);
	}
}

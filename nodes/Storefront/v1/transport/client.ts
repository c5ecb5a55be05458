// The one place that talks HTTP to the Storefront API (docs/api-contract.md): URL building, the request through
// n8n's httpRequestWithAuthentication, retries, pacing, records and list walks. Envelopes, pagination rules and
// error bodies have their own files beside this one.
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { MAX_PAGE_SIZE, RATE_LIMIT_PLANS } from '../../../shared/constants';
import { isObject, unwrapList, unwrapSingle } from './envelope';
import { firstLine, networkCode, nodeApiError, serviceMessage, type Context } from './errors';
import { nextPageNumber, pageSignature, paginationMeta, type Page } from './pagination';

export interface ClientSettings {
	/** Retries after the first attempt, for 429 and (idempotent methods only) 502/503/504 and connection resets. */
	maxRetries: number;
	/** Base of the exponential backoff when the service gives no Retry-After. */
	retryDelayMs: number;
	/** Pace cap for this node run; 0 = as fast as the service allows. */
	maxRequestsPerMinute: number;
}

export const DEFAULT_SETTINGS: ClientSettings = {
	maxRetries: 5,
	retryDelayMs: 1000,
	maxRequestsPerMinute: 0,
};

/** Longest single wait; a Retry-After beyond it fails at once rather than blocking the workflow. */
export const MAX_WAIT_MS = 60_000;

const RETRYABLE_STATUSES = [502, 503, 504];
const RETRYABLE_NETWORK_CODES = ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ECONNREFUSED', 'ERR_SOCKET_CONNECTION_TIMEOUT'];

export interface RequestTarget {
	/** Shown in 404 messages, e.g. "Product". */
	resourceLabel?: string;
	id?: string;
	itemIndex?: number;
}

interface FullResponse {
	body: unknown;
	headers: IDataObject;
	statusCode: number;
	/** "GET /orders/ord_00001": named in errors about the body. */
	endpoint?: string;
}

/** Milliseconds to wait from a Retry-After header: delta seconds or an HTTP date. */
export function retryAfterMs(value: unknown, now = Date.now()): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const text = String(Array.isArray(value) ? value[0] : value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Exponential backoff with full jitter in [delay/2, delay], capped. */
export function backoffMs(attempt: number, baseMs: number): number {
	const delay = Math.min(MAX_WAIT_MS, baseMs * 2 ** attempt);
	return Math.round(delay / 2 + (Math.random() * delay) / 2);
}

export class StorefrontClient {
	private lastRequestAt = 0;

	private readonly credentials: ICredentialsDecrypted;

	private constructor(
		private readonly ctx: Context,
		readonly baseUrl: string,
		data: ICredentialDataDecryptedObject,
		private readonly settings: ClientSettings,
	) {
		// Handing the decrypted credentials to the helper spares it a credential look-up on every page.
		this.credentials = { id: '', name: 'storefrontApi', type: 'storefrontApi', data };
	}

	static async create(ctx: Context, settings: Partial<ClientSettings> = {}): Promise<StorefrontClient> {
		const data = await ctx.getCredentials('storefrontApi');
		const baseUrl = String(data.baseUrl ?? '')
			.trim()
			.replace(/\/+$/, '');
		if (!baseUrl) {
			throw new NodeOperationError(ctx.getNode(), 'The Storefront credentials have no Base URL', {
				description: 'Set the Base URL (including /v1) in the Storefront API credentials.',
			});
		}
		return new StorefrontClient(ctx, baseUrl, data, { ...DEFAULT_SETTINGS, ...settings });
	}

	url(segments: string[]): string {
		return `${this.baseUrl}/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`;
	}

	/** One API call with retries; resolves only for 2xx. */
	async request(
		method: IHttpRequestMethods,
		segments: string[],
		{ qs, body }: { qs?: IDataObject; body?: IDataObject } = {},
		target: RequestTarget = {},
	): Promise<FullResponse> {
		const url = this.url(segments);
		for (let attempt = 0; ; attempt++) {
			await this.pace();
			const options: IHttpRequestOptions = {
				method,
				url,
				qs,
				body,
				json: true,
				headers: { Accept: 'application/json' },
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			};
			let response: FullResponse;
			try {
				response = (await this.ctx.helpers.httpRequestWithAuthentication.call(
					this.ctx,
					'storefrontApi',
					options,
					{ credentialsDecrypted: this.credentials },
				)) as FullResponse;
			} catch (error) {
				const code = networkCode(error);
				// A POST may have reached the service before the connection broke: never send it twice.
				if (code && RETRYABLE_NETWORK_CODES.includes(code) && method !== 'POST' && attempt < this.settings.maxRetries) {
					await sleep(backoffMs(attempt, this.settings.retryDelayMs));
					continue;
				}
				throw this.connectionError(method, url, code, error, target);
			}
			const { statusCode } = response;
			if (statusCode >= 200 && statusCode < 300) {
				return { ...response, endpoint: `${method} /${segments.map((s) => encodeURIComponent(s)).join('/')}` };
			}

			// 429 means the request was refused and not processed, so even a POST may be sent again.
			const retryable =
				statusCode === 429 || (RETRYABLE_STATUSES.includes(statusCode) && method !== 'POST');
			if (retryable && attempt < this.settings.maxRetries) {
				const hinted = statusCode === 429 ? retryAfterMs(response.headers['retry-after']) : undefined;
				const wait = hinted ?? backoffMs(attempt, this.settings.retryDelayMs);
				if (wait <= MAX_WAIT_MS) {
					await sleep(wait);
					continue;
				}
			}
			throw this.apiError(statusCode, response, target, attempt + 1);
		}
	}

	async getOne(segments: string[], resourceKey: string, target: RequestTarget = {}): Promise<IDataObject> {
		const response = await this.request('GET', segments, {}, target);
		return this.single(response, resourceKey, target);
	}

	/** The record a response carries; an empty or non-JSON body is an error, never an empty item. */
	single(response: FullResponse, resourceKey: string, target: RequestTarget): IDataObject {
		const { body } = response;
		if (typeof body === 'string' && body.trim() !== '') throw this.notJson(response, target);
		const record = unwrapSingle(body, resourceKey);
		if (Object.keys(record).length === 0) throw this.notJson(response, target, `no ${resourceKey}`);
		return record;
	}

	/** One page of a list, with the page that follows it (for resource-locator searches). */
	async getPage(
		segments: string[],
		resourceKey: string,
		qs: IDataObject,
		page: number,
		size: number,
		target: RequestTarget = {},
	): Promise<Page> {
		const response = await this.request('GET', segments, { qs: { ...qs, page, limit: size } }, target);
		const items = unwrapList(response.body, resourceKey);
		if (!items) throw this.notJson(response, target, `no "${resourceKey}" list`);
		const meta = paginationMeta(response.body);
		return { items, nextPage: nextPageNumber(meta, page, items.length, size, items.length) };
	}

	/**
	 * Every item of a list (`limit` undefined) or the first `limit` ones, walking pages of the largest size the
	 * contract allows (or just `limit` when that is smaller) with the filters on every page.
	 */
	async getMany(
		segments: string[],
		resourceKey: string,
		filters: IDataObject,
		limit: number | undefined,
		target: RequestTarget = {},
	): Promise<IDataObject[]> {
		const wanted = limit === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(limit));
		const size = Math.min(MAX_PAGE_SIZE, wanted);
		const collected: IDataObject[] = [];
		let page: number | undefined = 1;
		let firstPageCount = 0;
		let previous: string | undefined;
		while (page !== undefined) {
			const response = await this.request('GET', segments, { qs: { ...filters, page, limit: size } }, target);
			const items = unwrapList(response.body, resourceKey);
			if (!items) throw this.notJson(response, target, `no "${resourceKey}" list`);
			if (items.length === 0) break;
			const signature = pageSignature(items);
			if (signature === previous) break;
			previous = signature;
			if (page === 1) firstPageCount = items.length;
			for (const item of items) {
				if (collected.length >= wanted) break;
				collected.push(item);
			}
			if (collected.length >= wanted) break;
			page = nextPageNumber(paginationMeta(response.body), page, items.length, firstPageCount, collected.length);
		}
		return collected;
	}

	private async pace(): Promise<void> {
		const rpm = this.settings.maxRequestsPerMinute;
		if (rpm > 0) {
			const wait = this.lastRequestAt + 60_000 / rpm - Date.now();
			if (wait > 0) await sleep(wait);
		}
		this.lastRequestAt = Date.now();
	}

	// Errors are built from plain, sanitised objects: the helper's own error carries the request options,
	// Authorization header included, and must never reach the output.
	private apiError(status: number, response: FullResponse, target: RequestTarget, attempts: number): NodeApiError {
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
		} else if (status === 429) {
			message = `Storefront rate limit exceeded (429) after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${service}. Plan limits: ${RATE_LIMIT_PLANS}.`;
			description =
				'Wait for the limit window to pass, lower the pace with the "Max Requests per Minute" option, or move to a larger plan.';
		} else {
			message = `Storefront API error ${status}: ${service}`;
		}
		return nodeApiError(
			this.ctx,
			{ message: service, httpCode: String(status), ...(code ? { code } : {}) },
			{ message, description, httpCode: String(status), itemIndex: target.itemIndex },
		);
	}

	private notJson(response: FullResponse, target: RequestTarget, what = 'not JSON'): NodeApiError {
		const empty = response.body === undefined || response.body === null || (typeof response.body === 'string' && response.body.trim() === '');
		const text = empty
			? 'empty body'
			: typeof response.body === 'string'
				? firstLine(response.body)
				: JSON.stringify(response.body).slice(0, 200);
		return nodeApiError(
			this.ctx,
			{ message: text, httpCode: String(response.statusCode) },
			{
				message: `Storefront answered ${response.endpoint ?? 'the request'} with ${response.statusCode} and an unexpected body (${what}): ${text}`,
				httpCode: String(response.statusCode),
				itemIndex: target.itemIndex,
			},
		);
	}

	private connectionError(
		method: string,
		url: string,
		code: string | undefined,
		error: unknown,
		target: RequestTarget,
	): NodeApiError {
		const reason = code ?? (isObject(error) && typeof error.message === 'string' ? error.message : 'unknown error');
		return nodeApiError(
			this.ctx,
			{ message: `Could not reach the Storefront API: ${reason}` },
			{
				message: `Could not reach the Storefront API (${method} ${url}): ${reason}`,
				description: 'Check the Base URL in the Storefront API credentials and that the service is reachable.',
				itemIndex: target.itemIndex,
			},
		);
	}
}

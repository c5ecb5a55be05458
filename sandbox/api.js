'use strict';
// The public API under /v1 (docs/api-contract.md). Order of checks for every request: API key (401, before
// anything else), injected faults, rate limit (429), route (404/405), body (413/415/400), validation (422/409).
const { ORDER_STATUSES, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE } = require('./catalog');
const { ApiError } = require('./errors');
const { listJson, idKey, recordView, singleBody, errorPayload } = require('./compat');
const { sendRaw, sendJson, sendEmpty, readJson } = require('./http');

const intParam = (q, name, def, min, max, details) => {
	const raw = q.get(name);
	if (raw === null) return def;
	const n = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
	if (!(n >= min && n <= max)) {
		details.push({
			field: name,
			message:
				max === Infinity
					? `must be an integer >= ${min}`
					: `must be an integer between ${min} and ${max}`,
		});
	}
	return n;
};

/** Validated query of a list endpoint; unknown parameters are ignored (contract row 7). */
function listQuery(search, extra) {
	const q = new URLSearchParams(search);
	const details = [];
	const query = {
		page: intParam(q, 'page', 1, 1, Number.MAX_SAFE_INTEGER, details),
		limit: intParam(q, 'limit', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE, details),
	};
	for (const name of extra) query[name] = q.get(name) || undefined; // an empty filter is no filter
	if (query.status !== undefined && !ORDER_STATUSES.includes(query.status)) {
		details.push({ field: 'status', message: `must be one of: ${ORDER_STATUSES.join(', ')}` });
	}
	if (details.length) throw new ApiError(400, 'invalid_query', 'Invalid query parameters', details);
	return query;
}

function page(sb, resource, all, query) {
	const { compat } = sb;
	if (compat.list_order === 'id' && resource !== 'customers')
		all = sb.state.inIdOrder(resource, all);
	const limit = compat.page_size_cap ? Math.min(query.limit, compat.page_size_cap) : query.limit;
	const pageNo = compat.ignore_page ? 1 : query.page;
	const start = (pageNo - 1) * limit;
	const singular = resource.slice(0, -1); // products → product: the record's name in its id key
	const items = all.slice(start, start + limit).map((record) => {
		const view = recordView(compat, singular, record);
		// The contract's shape is the record itself, whose JSON is memoised; other shapes are serialised here (the
		// whole page is cached anyway).
		return view === record ? sb.state.jsonOf(record) : JSON.stringify(view);
	});
	return {
		status: 200,
		text: listJson(compat, resource, items, { page: pageNo, limit, total: all.length }),
	};
}

const json = (status, value) => ({ status, value });

/** [path pattern, {METHOD: handler(sb, params, query string, body) → {status, value} | {status, text}}] */
const ROUTES = [
	[
		/^\/stores\/([^/]+)$/,
		{ GET: (sb, [id]) => json(200, singleBody(sb.compat, 'store', sb.state.getStore(id))) },
	],
	[
		/^\/products$/,
		{
			GET: (sb, _, search) => {
				const q = listQuery(search, ['category', 'search']);
				return page(
					sb,
					'products',
					sb.state.listProducts({ ...q, searchIn: sb.compat.product_search }),
					q,
				);
			},
			POST: (sb, _, __, body) =>
				json(
					sb.compat.create_status,
					singleBody(
						sb.compat,
						'product',
						sb.state.createProduct(body, idKey(sb.compat, 'product'), sb.compat.unique_sku),
					),
				),
		},
	],
	[
		/^\/products\/([^/]+)$/,
		{
			PUT: (sb, [id], _, body) =>
				json(
					200,
					singleBody(
						sb.compat,
						'product',
						sb.state.updateProduct(id, body, idKey(sb.compat, 'product'), sb.compat.unique_sku),
					),
				),
			DELETE: (sb, [id]) => {
				sb.state.deleteProduct(id);
				return { status: 204 };
			},
		},
	],
	[
		/^\/orders$/,
		{
			GET: (sb, _, search) => {
				const q = listQuery(search, ['status']);
				return page(sb, 'orders', sb.state.listOrders(q), q);
			},
		},
	],
	[
		/^\/orders\/([^/]+)$/,
		{ GET: (sb, [id]) => json(200, singleBody(sb.compat, 'order', sb.state.getOrder(id))) },
	],
	[
		/^\/orders\/([^/]+)\/status$/,
		{
			PUT: (sb, [id], _, body) =>
				json(
					200,
					singleBody(
						sb.compat,
						'order',
						sb.state.setOrderStatus(id, body, sb.compat.order_transitions === 'any'),
					),
				),
		},
	],
	[
		/^\/customers$/,
		{
			GET: (sb, _, search) => {
				const q = listQuery(search, ['search']);
				return page(sb, 'customers', sb.state.listCustomers(q), q);
			},
		},
	],
	[/^\/analytics\/summary$/, { GET: (sb) => json(200, sb.state.analytics()) }],
];

const LIST_PATHS = new Set(['/products', '/orders', '/customers']);

function route(method, path) {
	for (const [pattern, methods] of ROUTES) {
		const m = pattern.exec(path);
		if (!m) continue;
		const handler = methods[method];
		if (!handler) {
			const allow = Object.keys(methods).join(', ');
			throw new ApiError(
				405,
				'method_not_allowed',
				`Method ${method} is not allowed on /v1${path} (allowed: ${allow})`,
				undefined,
				{ Allow: allow },
			);
		}
		let params;
		try {
			params = m.slice(1).map(decodeURIComponent);
		} catch {
			break; // a malformed %-escape names nothing that exists
		}
		return { handler, params, cacheable: method === 'GET' && LIST_PATHS.has(path) };
	}
	throw new ApiError(404, 'not_found', `No endpoint ${method} /v1${path}`);
}

function bearerKey(req) {
	const header = req.headers.authorization;
	if (!header) return undefined;
	const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
	return m ? m[1] : undefined;
}

/** Writes an API error in the current error style, with the headers gathered so far. */
function sendError(sb, res, err, headers) {
	const payload = errorPayload(sb.compat, err);
	sendRaw(
		res,
		err.status,
		payload.type,
		payload.text,
		err.headers ? { ...headers, ...err.headers } : headers,
	);
}

/** Serves one /v1 request. `path` is the part after /v1 (no trailing slash); `search` the raw query string. */
async function handleApi(sb, req, res, path, search) {
	const method = req.method;
	let headers;
	let lost = false;
	try {
		const key = bearerKey(req);
		const plan = key === undefined ? undefined : sb.keys.get(key);
		if (!plan)
			throw new ApiError(401, 'unauthorized', 'Missing or invalid API key', undefined, {
				'WWW-Authenticate': 'Bearer',
			});

		// Service and network time (PUT /__admin/latency): before the rate limiter counts the request.
		if (sb.latencyMs > 0) {
			await new Promise((resolve) => setTimeout(resolve, sb.latencyMs).unref());
			if (res.destroyed) return res.statusCode;
		}

		const fault = sb.faults.take(method, '/v1' + path);
		if (fault && fault.type !== 'slow' && fault.type !== 'lost')
			return injectFault(sb, req, res, fault);
		if (fault?.type === 'slow') {
			await new Promise((resolve) => setTimeout(resolve, fault.delay_ms).unref());
			if (res.destroyed) return res.statusCode;
		}
		// 'lost': the request is served (a POST creates), then the connection closes before the answer: a response lost
		// on its way back, which the client cannot tell from a request that never arrived.
		lost = fault?.type === 'lost';

		headers = sb.limiter.take(key, plan);
		const { handler, params, cacheable } = route(method, path);

		// Serialised list pages are reused until the data or the compat settings change (the benchmark's hot path).
		const cacheKey = cacheable ? path + '?' + search : undefined;
		const cache = cacheable ? sb.listCache() : undefined;
		const hit = cache && cache.get(cacheKey);
		if (hit && lost) return loseAnswer(req);
		if (hit) {
			sendRaw(res, 200, 'application/json', hit, headers);
			return 200;
		}

		const body = method === 'POST' || method === 'PUT' ? await readJson(req) : undefined;
		const result = handler(sb, params, search, body);
		if (method !== 'GET') sb.persist();
		if (lost) return loseAnswer(req);
		if (result.status === 204) {
			sendEmpty(res, 204, headers);
			return 204;
		}
		if (result.text !== undefined) {
			const bytes = Buffer.from(result.text, 'utf8');
			if (cache && cache.size < 1000) cache.set(cacheKey, bytes);
			sendRaw(res, result.status, 'application/json', bytes, headers);
		} else sendJson(res, result.status, result.value, headers);
		return result.status;
	} catch (err) {
		if (!(err instanceof ApiError)) {
			sb.log(`internal error on ${method} /v1${path}: ${err.stack}`);
			err = new ApiError(500, 'internal_error', 'Internal sandbox error');
		}
		if (lost) return loseAnswer(req);
		sendError(sb, res, err, headers);
		return err.status;
	}
}

/** Closes the connection instead of answering (fault 'lost', after the request was served); logged as dropped. */
function loseAnswer(req) {
	req.socket.destroy();
	return 'dropped';
}

function injectFault(sb, req, res, fault) {
	if (fault.type === 'drop') {
		req.socket.destroy();
		return 'dropped';
	}
	if (fault.type === 'empty') {
		// 200 with nothing in it: a proxy or a broken service that "succeeds" without the record.
		sendRaw(res, 200, 'application/json', '');
		return 200;
	}
	if (fault.type === 'malformed') {
		sendRaw(res, 200, 'application/json', '{"data": [{"id": "trunc');
		return 200;
	}
	const headers = {};
	if (fault.retry_after !== null) headers['Retry-After'] = String(fault.retry_after);
	const messages = {
		429: 'Too many requests (injected fault)',
		500: 'Internal server error (injected fault)',
		502: 'Bad gateway (injected fault)',
		503: 'Service unavailable (injected fault)',
		504: 'Gateway timeout (injected fault)',
	};
	const codes = {
		429: 'rate_limited',
		500: 'internal_error',
		502: 'bad_gateway',
		503: 'service_unavailable',
		504: 'gateway_timeout',
	};
	sendError(
		sb,
		res,
		new ApiError(fault.status, codes[fault.status], messages[fault.status]),
		headers,
	);
	return fault.status;
}

module.exports = { handleApi };

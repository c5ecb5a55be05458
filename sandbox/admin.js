'use strict';
// The admin API under /__admin: the sandbox's "dashboard" (webhook registration, keys) and test controls
// (reset, simulations, faults, compat modes, logs). Local development tool: no auth, contract-style errors.
const crypto = require('crypto');
const { PLANS, DEFAULT_SIZES, EVENT_KINDS } = require('./catalog');
const { ApiError, validationError } = require('./errors');
const {
	DEFAULT_COMPAT,
	PROFILES,
	profileOf,
	mergeCompat,
	errorPayload,
	objectEventData,
} = require('./compat');
const { sendJson, sendEmpty, sendRaw, readJson } = require('./http');
const { isPlainObject, isHttpUrl } = require('./state');
const { rateLimitSettings } = require('./ratelimit');

/** The highest latency setting (ms): every /v1 request is answered this much later, for benchmarks. */
const MAX_LATENCY_MS = 10_000;
const isLatency = (ms) => Number.isInteger(ms) && ms >= 0 && ms <= MAX_LATENCY_MS;

const ENDPOINTS = [
	'GET /__admin',
	'POST /__admin/reset {seed?, sizes?}',
	'GET|PUT /__admin/webhook {url, secret}',
	'POST /__admin/webhook/rotate {secret?}',
	'POST /__admin/simulate/events {count, kinds?}',
	'POST /__admin/simulate/checkout {customer_id?, items?: [{product_id, quantity}]}',
	'POST /__admin/simulate/payment {order_id, method?}',
	'POST /__admin/simulate/stock {product_id, stock}',
	'GET|POST|DELETE /__admin/faults',
	'GET|PUT|DELETE /__admin/compat',
	`GET|PUT /__admin/profile {profile: ${Object.keys(PROFILES).join('|')}}`,
	'POST /__admin/keys {key, plan} · DELETE /__admin/keys/{key}',
	'GET|PUT|DELETE /__admin/ratelimit {window_ms?, limits?: {starter?, pro?}, headers?}',
	'GET|PUT|DELETE /__admin/latency {ms}',
	'GET|DELETE /__admin/requests',
	'GET|DELETE /__admin/deliveries',
	'GET|DELETE /__admin/events',
	'GET|POST /__admin/snapshot',
];

function checkSizes(sizes, details) {
	if (sizes === undefined) return;
	if (!isPlainObject(sizes))
		return void details.push({ field: 'sizes', message: 'must be an object' });
	for (const [k, v] of Object.entries(sizes)) {
		if (!(k in DEFAULT_SIZES))
			details.push({ field: `sizes.${k}`, message: 'is not a size (products, orders, customers)' });
		else if (!Number.isInteger(v) || v < 0 || v > 1_000_000)
			details.push({ field: `sizes.${k}`, message: 'must be an integer 0-1000000' });
	}
}

/** The profile in force (null when the settings match none), with the settings it covers. */
const profileJson = (sb) => ({
	profile: profileOf(sb.compat, sb.limiter.headers),
	compat: sb.compat,
	ratelimit: sb.limiter.toJSON(),
});

/** {"METHOD /path": (sb, body, param) → [status, value] } */
const ROUTES = {
	'GET /': (sb) => [
		200,
		{
			base_url: sb.baseUrl,
			store_id: sb.state.store.id,
			counts: {
				products: sb.state.products.size,
				orders: sb.state.orders.size,
				customers: sb.state.customers.size,
			},
			webhook: { url: sb.webhooks.url, secret_set: Boolean(sb.webhooks.secret) },
			profile: profileOf(sb.compat, sb.limiter.headers),
			compat: sb.compat,
			faults: sb.faults.list,
			ratelimit: sb.limiter.toJSON(),
			latency_ms: sb.latencyMs,
			pending_deliveries: sb.webhooks.pending(),
			endpoints: ENDPOINTS,
		},
	],
	'POST /reset': (sb, body = {}) => {
		const details = [];
		if (body.seed !== undefined && !Number.isInteger(body.seed))
			details.push({ field: 'seed', message: 'must be an integer' });
		checkSizes(body.sizes, details);
		if (details.length) throw validationError(details);
		sb.reset(body.seed ?? sb.state.seed, { ...sb.state.sizes, ...body.sizes });
		return [200, { reset: true, seed: sb.state.seed, sizes: sb.state.sizes }];
	},
	'GET /webhook': (sb) => [200, { url: sb.webhooks.url, secret: sb.webhooks.secret }],
	'PUT /webhook': (sb, body = {}) => {
		const details = [];
		for (const key of Object.keys(body))
			if (!['url', 'secret'].includes(key))
				details.push({ field: key, message: 'is not a webhook setting' });
		if (
			body.url !== undefined &&
			body.url !== null &&
			(typeof body.url !== 'string' || !isHttpUrl(body.url))
		)
			details.push({ field: 'url', message: 'must be an http(s) URL or null' });
		if (body.secret !== undefined && (typeof body.secret !== 'string' || body.secret === ''))
			details.push({ field: 'secret', message: 'must be a non-empty string' });
		if (details.length) throw validationError(details);
		if (body.url !== undefined) sb.webhooks.url = body.url;
		if (body.secret !== undefined) sb.webhooks.secret = body.secret;
		return [200, { url: sb.webhooks.url, secret: sb.webhooks.secret }];
	},
	'POST /webhook/rotate': (sb, body = {}) => {
		const details = [];
		for (const key of Object.keys(body))
			if (key !== 'secret') details.push({ field: key, message: 'is not a rotation setting' });
		if (body.secret !== undefined && (typeof body.secret !== 'string' || body.secret === ''))
			details.push({ field: 'secret', message: 'must be a non-empty string' });
		if (body.secret === sb.webhooks.secret)
			details.push({ field: 'secret', message: 'must differ from the current secret' });
		if (details.length) throw validationError(details);
		return [
			200,
			sb.webhooks.rotate(body.secret ?? `whsec_${crypto.randomBytes(16).toString('hex')}`),
		];
	},
	'POST /simulate/events': (sb, body = {}) => {
		const details = [];
		if (!Number.isInteger(body.count) || body.count < 1 || body.count > 100_000)
			details.push({ field: 'count', message: 'must be an integer 1-100000' });
		if (
			body.kinds !== undefined &&
			(!Array.isArray(body.kinds) ||
				!body.kinds.length ||
				body.kinds.some((k) => !EVENT_KINDS.includes(k)))
		)
			details.push({
				field: 'kinds',
				message: `must be a non-empty list of ${EVENT_KINDS.join(', ')}`,
			});
		if (details.length) throw validationError(details);
		// Under compat event_data 'object' keyed by `id` as real events are (a sample payment: its order's paid_at, null if unpaid).
		const view = (type, data) =>
			sb.compat.event_data === 'object'
				? objectEventData(type, data, sb.state.orders.get(data.order_id)?.paid_at)
				: data;
		const events = sb.state
			.sampleEvents(body.count, body.kinds ?? EVENT_KINDS)
			.map(([type, data]) => sb.webhooks.emit(type, view(type, data)));
		return [201, { count: events.length, ids: events.map((e) => e.id) }];
	},
	'POST /simulate/checkout': (sb, body) => [201, sb.state.checkout(body)],
	'POST /simulate/payment': (sb, body) => [200, sb.state.pay(body ?? {})],
	'POST /simulate/stock': (sb, body) => [200, sb.state.setStock(body ?? {})],
	'GET /faults': (sb) => [200, sb.faults.list],
	'POST /faults': (sb, body) => [201, sb.faults.add(body)],
	'DELETE /faults': (sb) => {
		sb.faults.clear();
		return [204];
	},
	'GET /compat': (sb) => [200, sb.compat],
	'PUT /compat': (sb, body = {}) => {
		sb.setCompat(mergeCompat(sb.compat, body));
		return [200, sb.compat];
	},
	'DELETE /compat': (sb) => {
		sb.setCompat({ ...DEFAULT_COMPAT });
		return [200, sb.compat];
	},
	'GET /profile': (sb) => [200, profileJson(sb)],
	'PUT /profile': (sb, body = {}) => {
		const details = [];
		for (const key of Object.keys(body))
			if (key !== 'profile') details.push({ field: key, message: 'is not a profile setting' });
		if (!Object.hasOwn(PROFILES, body.profile))
			details.push({
				field: 'profile',
				message: `must be one of: ${Object.keys(PROFILES).join(', ')}`,
			});
		if (details.length) throw validationError(details);
		const { compat, rateHeaders } = PROFILES[body.profile];
		sb.setCompat({ ...compat }); // a new compat revision: cached list pages go
		sb.limiter.configure(rateLimitSettings({ headers: rateHeaders }, sb.limiter)); // window and limits stay
		return [200, profileJson(sb)];
	},
	'POST /keys': (sb, body = {}) => {
		const details = [];
		if (typeof body.key !== 'string' || !/^\S{8,200}$/.test(body.key))
			details.push({ field: 'key', message: 'must be 8-200 characters without spaces' });
		if (!(body.plan in PLANS))
			details.push({ field: 'plan', message: `must be one of: ${Object.keys(PLANS).join(', ')}` });
		if (details.length) throw validationError(details);
		sb.keys.set(body.key, body.plan);
		return [201, { key: body.key, plan: body.plan }];
	},
	'DELETE /keys/*': (sb, _, key) => {
		if (!sb.keys.delete(key)) throw new ApiError(404, 'not_found', 'No such API key');
		return [204];
	},
	'GET /ratelimit': (sb) => [200, sb.limiter.toJSON()],
	'PUT /ratelimit': (sb, body = {}) => {
		sb.limiter.configure(rateLimitSettings(body, sb.limiter));
		return [200, sb.limiter.toJSON()];
	},
	'DELETE /ratelimit': (sb) => {
		sb.limiter.configure(); // the contract's settings
		return [200, sb.limiter.toJSON()];
	},
	'GET /latency': (sb) => [200, { ms: sb.latencyMs }],
	'PUT /latency': (sb, body = {}) => {
		const details = [];
		for (const key of Object.keys(body))
			if (key !== 'ms') details.push({ field: key, message: 'is not a latency setting' });
		if (!isLatency(body.ms))
			details.push({ field: 'ms', message: `must be an integer 0-${MAX_LATENCY_MS}` });
		if (details.length) throw validationError(details);
		sb.latencyMs = body.ms;
		return [200, { ms: sb.latencyMs }];
	},
	'DELETE /latency': (sb) => {
		sb.latencyMs = 0;
		return [200, { ms: 0 }];
	},
	'GET /requests': (sb) => [200, sb.requests],
	'DELETE /requests': (sb) => {
		sb.requests.length = 0;
		return [204];
	},
	'GET /deliveries': (sb) => [200, sb.webhooks.deliveries],
	'DELETE /deliveries': (sb) => {
		sb.webhooks.clear();
		return [204];
	},
	'GET /events': (sb) => [200, sb.webhooks.events],
	'DELETE /events': (sb) => {
		sb.webhooks.clear();
		return [204];
	},
	'GET /snapshot': (sb) => [200, sb.snapshotData()],
	'POST /snapshot': (sb, body = {}) => {
		const file = body.path ?? sb.snapshotPath;
		if (typeof file !== 'string' || file === '')
			throw validationError([
				{
					field: 'path',
					message: 'is required when the sandbox was started without a snapshot file',
				},
			]);
		sb.saveSnapshot(file);
		return [200, { saved: file }];
	},
};

async function handleAdmin(sb, req, res, path) {
	try {
		const sub = path.slice('/__admin'.length) || '/';
		let handler = ROUTES[`${req.method} ${sub}`];
		let param;
		if (!handler && sub.startsWith('/keys/')) {
			handler = ROUTES[`${req.method} /keys/*`];
			param = decodeURIComponent(sub.slice('/keys/'.length));
		}
		if (!handler) {
			const allowed = Object.keys(ROUTES)
				.filter((k) => k.split(' ')[1] === sub)
				.map((k) => k.split(' ')[0]);
			if (allowed.length)
				throw new ApiError(
					405,
					'method_not_allowed',
					`Method ${req.method} is not allowed on ${path}`,
					undefined,
					{ Allow: allowed.join(', ') },
				);
			throw new ApiError(404, 'not_found', `No admin endpoint ${req.method} ${path}`);
		}
		const body = req.method === 'POST' || req.method === 'PUT' ? await readJson(req) : undefined;
		if (body !== undefined && !isPlainObject(body))
			throw validationError([{ field: 'body', message: 'must be a JSON object' }]);
		const [status, value] = handler(sb, body, param);
		if (req.method !== 'GET') sb.persist();
		if (status === 204) sendEmpty(res, 204);
		else sendJson(res, status, value);
	} catch (err) {
		if (!(err instanceof ApiError)) {
			sb.log(`admin error: ${err.stack}`);
			err = new ApiError(500, 'internal_error', err.message);
		}
		const payload = errorPayload(DEFAULT_COMPAT, err); // the admin API always answers in the contract's style
		sendRaw(res, err.status, payload.type, payload.text, err.headers);
	}
}

module.exports = { handleAdmin, ENDPOINTS, isLatency, MAX_LATENCY_MS };

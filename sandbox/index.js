'use strict';
// startSandbox(opts): a local, stateful Storefront API (docs/api-contract.md) with an admin API and signed
// webhooks, for tests, benchmarks and demos. See sandbox/README.md.
const fs = require('fs');
const path = require('path');
const http = require('http');
const catalog = require('./catalog');
const { State } = require('./state');
const { Webhooks } = require('./webhooks');
const { RateLimiter } = require('./ratelimit');
const { Faults } = require('./faults');
const { PROFILES, recordView, objectEventData } = require('./compat');
const { handleApi } = require('./api');
const { handleAdmin, isLatency, MAX_LATENCY_MS } = require('./admin');
const { sendJson } = require('./http');

const REQUEST_LOG_SIZE = 5000;
const SNAPSHOT_DEBOUNCE_MS = 250;

function readSnapshot(file) {
	if (!file || !fs.existsSync(file)) return undefined;
	const data = JSON.parse(fs.readFileSync(file, 'utf8'));
	if (data.version !== 1 || !Array.isArray(data.products))
		throw new Error(`${file} is not a sandbox snapshot`);
	return data;
}

/**
 * Starts a sandbox HTTP server. Options and the returned handle are described in sandbox/README.md.
 * @param {object} [opts]
 */
async function startSandbox(opts = {}) {
	const profile = opts.profile ?? 'contract';
	if (!Object.hasOwn(PROFILES, profile))
		throw new Error(
			`Invalid sandbox option: profile must be one of: ${Object.keys(PROFILES).join(', ')} (got ${profile})`,
		);
	// The profile decides the headers unless rateLimit.headers says otherwise; throws on invalid settings.
	const limiter = new RateLimiter({
		...opts.rateLimit,
		headers: opts.rateLimit?.headers ?? PROFILES[profile].rateHeaders,
	});
	if (opts.latencyMs !== undefined && !isLatency(opts.latencyMs))
		throw new Error(
			`Invalid sandbox option: latencyMs must be an integer 0-${MAX_LATENCY_MS} (got ${opts.latencyMs})`,
		);
	const log = opts.quiet ? () => {} : (opts.log ?? ((line) => console.log(`[sandbox] ${line}`)));
	const snapshotPath = opts.snapshot ? path.resolve(opts.snapshot) : undefined;
	const snapshot = readSnapshot(snapshotPath);
	const webhooks = new Webhooks({
		url: opts.webhook?.url ?? snapshot?.webhook?.url ?? null,
		secret: opts.webhook?.secret ?? snapshot?.webhook?.secret ?? catalog.DEFAULT_WEBHOOK_SECRET,
		delivery: { attempts: 5, baseDelayMs: 1000, timeoutMs: 10_000, ...opts.delivery },
		log,
	});
	const state = new State({
		seed: opts.seed ?? catalog.DEFAULT_SEED,
		sizes: { ...catalog.DEFAULT_SIZES, ...opts.sizes },
		lowStockThreshold: opts.lowStockThreshold,
		data: snapshot,
		// Contract row 16's decision, or (compat event_data 'record') the record itself as the API shows it, read when the
		// event happens: events other than order.created then carry no previous_status, payment_id or method. Under
		// 'object', row 16's data keyed by its own `id` (a payment's record is the paid order: its paid_at).
		emit: (type, data, [resource, record] = []) =>
			webhooks.emit(
				type,
				sb.compat.event_data === 'object'
					? objectEventData(type, data, record?.paid_at)
					: record && sb.compat.event_data === 'record'
						? { ...recordView(sb.compat, resource, record) }
						: data,
			),
	});
	const keyList = opts.keys ?? snapshot?.keys ?? catalog.DEFAULT_KEYS;
	for (const { plan } of keyList)
		if (!(plan in catalog.PLANS)) throw new Error(`Unknown plan "${plan}"`);

	let compatRev = 0;
	let cache = { rev: -1, compatRev: -1, map: new Map() };
	let saveTimer;

	/** Internal context shared by the API and admin handlers. */
	const sb = {
		state,
		webhooks,
		keys: new Map(keyList.map(({ key, plan }) => [key, plan])),
		limiter,
		/** Milliseconds every /v1 request takes before it is served (service and network time, for benchmarks). */
		latencyMs: opts.latencyMs ?? 0,
		faults: new Faults(),
		compat: { ...PROFILES[profile].compat },
		requests: [],
		snapshotPath,
		log,
		baseUrl: '',
		setCompat(next) {
			sb.compat = next;
			compatRev++;
		},
		listCache() {
			if (cache.rev !== state.rev || cache.compatRev !== compatRev)
				cache = { rev: state.rev, compatRev, map: new Map() };
			return cache.map;
		},
		reset(seed, sizes) {
			webhooks.clear();
			state.reset(seed, sizes);
			sb.limiter.clear();
			sb.requests.length = 0;
		},
		snapshotData() {
			return {
				...state.toJSON(),
				keys: [...sb.keys].map(([key, plan]) => ({ key, plan })),
				webhook: { url: webhooks.url, secret: webhooks.secret },
			};
		},
		saveSnapshot(file) {
			const tmp = `${file}.${process.pid}.tmp`;
			fs.mkdirSync(path.dirname(file), { recursive: true });
			fs.writeFileSync(tmp, JSON.stringify(sb.snapshotData()));
			fs.renameSync(tmp, file); // atomic: a crash never leaves half a snapshot
		},
		/** Schedules a snapshot save after a change (debounced), when a snapshot file is configured. */
		persist() {
			if (!snapshotPath || saveTimer) return;
			saveTimer = setTimeout(() => {
				saveTimer = undefined;
				sb.saveSnapshot(snapshotPath);
			}, SNAPSHOT_DEBOUNCE_MS);
			saveTimer.unref();
		},
		record(entry) {
			sb.requests.push(entry);
			if (sb.requests.length > REQUEST_LOG_SIZE * 2)
				sb.requests.splice(0, sb.requests.length - REQUEST_LOG_SIZE);
		},
	};
	if (snapshotPath && !snapshot) sb.saveSnapshot(snapshotPath);

	const server = http.createServer((req, res) => {
		const url = req.url ?? '/';
		const q = url.indexOf('?');
		let p = q < 0 ? url : url.slice(0, q);
		if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
		if (p === '/v1' || p.startsWith('/v1/')) {
			const started = performance.now();
			const search = q < 0 ? '' : url.slice(q + 1);
			handleApi(sb, req, res, p.slice(3), search).then((status) => {
				const ms = Math.round((performance.now() - started) * 100) / 100;
				sb.record({
					at: new Date().toISOString(),
					method: req.method,
					path: p,
					query: Object.fromEntries(new URLSearchParams(search)),
					status,
					ms,
				});
				if (!opts.quiet) log(`${req.method} ${url} → ${status} (${ms} ms)`);
			});
		} else if (p === '/__admin' || p.startsWith('/__admin/')) {
			handleAdmin(sb, req, res, p);
		} else {
			sendJson(res, 404, {
				error: {
					code: 'not_found',
					message: `No endpoint ${req.method} ${p}; the API is under /v1, the admin API under /__admin`,
				},
			});
		}
	});

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
			server.off('error', reject);
			resolve(undefined);
		});
	});
	const address = /** @type {import('net').AddressInfo} */ (server.address());
	const host = ['0.0.0.0', '::', ''].includes(address.address)
		? 'localhost'
		: address.family === 'IPv6'
			? `[${address.address}]`
			: address.address;
	const origin = `http://${host}:${address.port}`;
	sb.baseUrl = `${origin}/v1`;

	let stopped;
	return {
		baseUrl: sb.baseUrl,
		adminUrl: `${origin}/__admin`,
		origin,
		port: address.port,
		apiKey: keyList[0]?.key,
		get webhookSecret() {
			return webhooks.secret;
		},
		get webhookUrl() {
			return webhooks.url;
		},
		storeId: state.store.id,
		state,
		/** Emitted events and the delivery log, live. */
		get events() {
			return webhooks.events;
		},
		get deliveries() {
			return webhooks.deliveries;
		},
		/** Resolves when no webhook delivery is pending (delivered, or given up after the last attempt). */
		idle: () => webhooks.idle(),
		/** Calls the admin API: resolves to {status, body} (body parsed when JSON). */
		admin: (method, adminPath, body) =>
			adminCall(address.port, address.address, method, adminPath, body),
		stop() {
			stopped ??= (async () => {
				webhooks.stop();
				clearTimeout(saveTimer);
				if (snapshotPath) sb.saveSnapshot(snapshotPath);
				await new Promise((resolve) => {
					server.close(() => resolve(undefined));
					server.closeAllConnections();
				});
			})();
			return stopped;
		},
	};
}

function adminCall(port, host, method, adminPath, body) {
	const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
	return new Promise((resolve, reject) => {
		const req = http.request(
			{
				host,
				port,
				method,
				path: `/__admin${adminPath.startsWith('/') || adminPath === '' ? adminPath : '/' + adminPath}`,
				headers: payload
					? { 'Content-Type': 'application/json', 'Content-Length': payload.length }
					: {},
				agent: false,
			},
			(res) => {
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let parsed = text;
					try {
						parsed = text ? JSON.parse(text) : undefined;
					} catch {
						// not JSON: keep the text
					}
					resolve({ status: res.statusCode, body: parsed });
				});
			},
		);
		req.on('error', reject);
		req.end(payload);
	});
}

module.exports = { startSandbox, catalog };

/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// Typed access to the sandbox (sandbox/index.js, plain JavaScript) for every suite: start it on a random port
// with small data, talk to its API and admin API over real HTTP. See sandbox/README.md.
import * as http from 'http';
import * as path from 'path';

export type Plan = 'starter' | 'pro' | 'business';

/** Named sets of every compat setting plus the rate-limit headers switch (sandbox/compat.js, PUT /__admin/profile). */
export type Profile = 'contract' | 'spec-literal';

/** Parsed JSON of a shape the test asserts on itself (API bodies, records): navigated freely in assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface SandboxOptions {
	host?: string;
	/** 0 (default) = a random free port. */
	port?: number;
	seed?: number;
	sizes?: Partial<{ products: number; orders: number; customers: number }>;
	keys?: Array<{ key: string; plan: Plan }>;
	webhook?: { url?: string | null; secret?: string };
	delivery?: Partial<{
		attempts: number;
		baseDelayMs: number;
		timeoutMs: number;
		concurrency: number;
	}>;
	lowStockThreshold?: number;
	snapshot?: string;
	/**
	 * Rate limiting (PUT /__admin/ratelimit at run time): window length (1000-3600000 ms, default 60000), requests per
	 * window for Starter and Pro (default 100 and 500; null = unlimited; Business is always unlimited), and whether
	 * X-RateLimit-* headers are sent (default true; a 429 always carries Retry-After).
	 */
	rateLimit?: {
		windowMs?: number;
		limits?: Partial<Record<'starter' | 'pro', number | null>>;
		headers?: boolean;
	};
	/** Milliseconds (0-10000) every /v1 request waits before it is served (PUT /__admin/latency at run time). */
	latencyMs?: number;
	/**
	 * 'contract' (default): docs/api-contract.md's decisions. 'spec-literal': every "not shown" point decided the other
	 * plausible way at once (PUT /__admin/profile at run time; `rateLimit.headers`, when given, still wins).
	 */
	profile?: Profile;
	/** Defaults to true here (tests stay silent). */
	quiet?: boolean;
}

export interface SandboxEvent {
	id: string;
	type: string;
	created_at: string;
	data: Record<string, unknown>;
}

export interface DeliveryAttempt {
	attempt: number;
	at: string;
	status: number | null;
	ok: boolean;
	error: string | null;
	response: string | null;
	ms: number;
}

export interface Delivery {
	id: string;
	event_id: string;
	type: string;
	url: string;
	status: 'pending' | 'delivered' | 'failed' | 'cancelled';
	attempts: DeliveryAttempt[];
}

export interface AdminResponse<T = Json> {
	status: number;
	body: T;
}

/** Live in-process data; read-only use please (change state through the API or the admin API). */
export interface SandboxState {
	store: Record<string, Json> & { id: string; currency: string };
	products: Map<string, Record<string, Json>>;
	orders: Map<string, Record<string, Json>>;
	customers: Map<string, Record<string, Json>>;
	seed: number;
	sizes: { products: number; orders: number; customers: number };
	threshold: number;
}

export interface Sandbox {
	/** e.g. http://127.0.0.1:41234/v1 */
	baseUrl: string;
	/** e.g. http://127.0.0.1:41234/__admin */
	adminUrl: string;
	origin: string;
	port: number;
	apiKey: string;
	webhookSecret: string;
	webhookUrl: string | null;
	storeId: string;
	state: SandboxState;
	events: SandboxEvent[];
	deliveries: Delivery[];
	/** Resolves when no webhook delivery is pending. */
	idle(): Promise<void>;
	admin<T = Json>(method: string, adminPath: string, body?: unknown): Promise<AdminResponse<T>>;
	stop(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sandboxModule = require(path.join(__dirname, '..', '..', 'sandbox')) as {
	startSandbox(opts: SandboxOptions): Promise<Sandbox>;
};

/** Each profile's compat settings and whether it sends X-RateLimit-* headers. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const compat = require(path.join(__dirname, '..', '..', 'sandbox', 'compat')) as {
	PROFILES: Record<Profile, { compat: Record<string, Json>; rateHeaders: boolean }>;
};
export const PROFILES = compat.PROFILES;

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
	// Small data by default: tests stay fast; pass `sizes` for more.
	return sandboxModule.startSandbox({
		quiet: true,
		...opts,
		sizes: { products: 120, orders: 60, customers: 30, ...opts.sizes },
	});
}

/**
 * Products or orders in the order `GET /products` and `GET /orders` list them (docs/api-contract.md row 21): most
 * recently changed first, `updated_at` descending, ties by `id` descending (ids compared by length, then as text, so
 * prod_100000 is later than prod_99999). A new array; customers are listed in id order instead. Computed here rather
 * than taken from the sandbox, so suites check the sandbox's order instead of repeating it.
 */
export function recentFirst<T extends Record<string, Json>>(records: Iterable<T>): T[] {
	const later = (a: string, b: string) => b.length - a.length || (a < b ? 1 : a > b ? -1 : 0);
	return [...records].sort((a, b) => {
		const [ta, tb] = [String(a.updated_at), String(b.updated_at)];
		return ta === tb ? later(String(a.id), String(b.id)) : ta < tb ? 1 : -1;
	});
}

/** The ids of products or orders in list order (`recentFirst`). */
export const recentIds = (records: Iterable<Record<string, Json>>): string[] =>
	recentFirst(records).map((r) => String(r.id));

/** Rate windows the sandbox opened (fixed windows, each opened by the first request after the last ended) for requests starting at these times: a new one whenever `windowMs` has passed. */
export function windowsOf(starts: number[], windowMs: number): number {
	let windows = 0;
	let opened = Number.NEGATIVE_INFINITY;
	for (const start of [...starts].sort((a, b) => a - b)) {
		if (start >= opened + windowMs) {
			windows++;
			opened = start;
		}
	}
	return windows;
}

export interface HttpResult {
	status: number;
	headers: http.IncomingHttpHeaders;
	/** The exact body bytes received. */
	raw: Buffer;
	text: string;
	/** Parsed JSON, or undefined when the body is empty or not JSON. */
	json: Json;
}

/**
 * A plain HTTP request (no retries, no keep-alive) that reports status, headers and raw body. An object body is
 * sent as JSON with `Content-Type: application/json`; a string or Buffer body is sent as is, with only the
 * headers given (so the sandbox answers 415 unless a JSON content type is set).
 */
export function request(
	method: string,
	url: string,
	options: { headers?: Record<string, string>; body?: string | Buffer | object } = {},
): Promise<HttpResult> {
	const headers: Record<string, string | number> = { ...options.headers };
	let payload: Buffer | undefined;
	if (options.body !== undefined) {
		if (typeof options.body === 'string' || Buffer.isBuffer(options.body))
			payload = Buffer.from(options.body);
		else {
			payload = Buffer.from(JSON.stringify(options.body));
			if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
				headers['Content-Type'] = 'application/json';
		}
		headers['Content-Length'] = payload.length;
	}
	return new Promise((resolve, reject) => {
		const req = http.request(url, { method, headers, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => {
				const raw = Buffer.concat(chunks);
				const text = raw.toString('utf8');
				let json: Json;
				try {
					json = text ? JSON.parse(text) : undefined;
				} catch {
					json = undefined;
				}
				resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, text, json });
			});
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end(payload);
	});
}

/** An API call with the sandbox's demo key (or another key). */
export function api(
	sb: Sandbox,
	method: string,
	apiPath: string,
	body?: string | Buffer | object,
	key = sb.apiKey,
): Promise<HttpResult> {
	return request(method, sb.baseUrl + apiPath, {
		headers: { Authorization: `Bearer ${key}` },
		body,
	});
}

/** A delivery in the sandbox's in-process log, with what it keeps off the JSON view: the signed bytes and the secret. */
export type SentDelivery = Delivery & { body: Buffer; secret: string };

// The sandbox's own signing (sandbox/webhooks.js): what its deliveries carry in X-Service-Signature.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { sign: signDelivery } = require(path.join(__dirname, '..', '..', 'sandbox', 'webhooks')) as {
	sign: (secret: string, body: Buffer) => string;
};

/**
 * Send a delivery again as the service's retries do: the same bytes, the same signature (the sandbox's own signing
 * over those bytes, with the delivery's secret) and delivery id, the next attempt number.
 */
export async function resend(url: string, d: SentDelivery) {
	const res = await request('POST', url, {
		headers: {
			'Content-Type': 'application/json',
			'User-Agent': 'Storefront-Webhooks/1.0 (sandbox)',
			'X-Service-Signature': signDelivery(d.secret, d.body),
			'X-Service-Event': d.type,
			'X-Service-Delivery': d.id,
			'X-Service-Attempt': String(d.attempts.length + 1),
		},
		body: d.body,
	});
	return { eventId: d.event_id, status: res.status, text: res.text };
}

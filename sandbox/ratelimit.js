'use strict';
// Per-key fixed windows (contract row 15): a window opens with the key's first request and rejected requests do not
// count. By default one-minute windows at the plans' limits, with X-RateLimit-* headers. Tests of rate-limit handling
// change that (startSandbox's `rateLimit`, PUT /__admin/ratelimit): the plan's rate in shorter windows (Starter's
// 100 a minute as 20 per 12 s), and a service that sends no X-RateLimit-* headers (Retry-After on the 429 only).
const { PLANS, RATE_WINDOW_MS } = require('./catalog');
const { ApiError, validationError } = require('./errors');

/** Plans whose limit can be changed: Business stays unlimited. */
const LIMITED_PLANS = Object.keys(PLANS).filter((plan) => PLANS[plan].limit !== null);
const MIN_WINDOW_MS = 1000;
const MAX_WINDOW_MS = 3_600_000;

/** The contract's settings: one-minute windows, the plans' own limits, headers on. */
const DEFAULT_SETTINGS = Object.freeze({
	windowMs: RATE_WINDOW_MS,
	limits: Object.freeze({}),
	headers: true,
});

/** "minute", "12 s", "1.5 s": the window as the 429 message names it. */
function windowText(windowMs) {
	return windowMs === RATE_WINDOW_MS ? 'minute' : `${Number((windowMs / 1000).toFixed(3))} s`;
}

class RateLimiter {
	/** @param {object} [options] startSandbox's `rateLimit` option: {windowMs?, limits?: {starter?, pro?}, headers?} */
	constructor(options) {
		this.windows = new Map();
		this.configure(rateLimitOptions(options));
	}

	/** Replaces the settings ({windowMs, limits: overrides per plan, headers}; checked) and clears the windows. */
	configure({ windowMs, limits, headers } = DEFAULT_SETTINGS) {
		this.windowMs = windowMs;
		this.limits = { ...limits };
		this.headers = headers;
		this.windows.clear();
	}

	/** Requests per window for a plan; `null` = unlimited. */
	limitOf(plan) {
		return plan in this.limits ? this.limits[plan] : PLANS[plan].limit;
	}

	/** The settings in the admin API's words: {window_ms, limits: {starter, pro, business}, headers}. */
	toJSON() {
		return {
			window_ms: this.windowMs,
			limits: Object.fromEntries(Object.keys(PLANS).map((plan) => [plan, this.limitOf(plan)])),
			headers: this.headers,
		};
	}

	/**
	 * Counts one request for `key`; returns the X-RateLimit-* headers (none when they are switched off), or throws the
	 * 429 (with Retry-After, and those headers). Unlimited plans get no headers: there is no limit to report.
	 */
	take(key, plan, now = Date.now()) {
		const limit = this.limitOf(plan);
		if (limit === null) return undefined;
		let w = this.windows.get(key);
		if (!w || now >= w.start + this.windowMs) {
			w = { start: now, count: 0 };
			this.windows.set(key, w);
		}
		const reset = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
		if (w.count >= limit) {
			const headers = { 'Retry-After': String(reset) };
			if (this.headers)
				Object.assign(headers, {
					'X-RateLimit-Limit': String(limit),
					'X-RateLimit-Remaining': '0',
					'X-RateLimit-Reset': String(reset),
				});
			const requests = limit === 1 ? 'request' : 'requests';
			const message = `Rate limit of ${limit} ${requests} per ${windowText(this.windowMs)} exceeded (${PLANS[plan].name} plan)`;
			throw new ApiError(429, 'rate_limited', message, undefined, headers);
		}
		w.count++;
		if (!this.headers) return undefined;
		return {
			'X-RateLimit-Limit': String(limit),
			'X-RateLimit-Remaining': String(limit - w.count),
			'X-RateLimit-Reset': String(reset),
		};
	}

	/** Forgets every key's window (the settings stay). */
	clear() {
		this.windows.clear();
	}
}

/**
 * Settings from an admin body ({window_ms?, limits?: {starter?, pro?}, headers?}) merged over `current` (limits merge
 * plan by plan); a 422 listing every problem otherwise.
 */
function rateLimitSettings(body, current = DEFAULT_SETTINGS) {
	const details = [];
	for (const key of Object.keys(body))
		if (!['window_ms', 'limits', 'headers'].includes(key))
			details.push({ field: key, message: 'is not a rate-limit setting' });
	if (
		body.window_ms !== undefined &&
		(!Number.isInteger(body.window_ms) ||
			body.window_ms < MIN_WINDOW_MS ||
			body.window_ms > MAX_WINDOW_MS)
	)
		details.push({
			field: 'window_ms',
			message: `must be an integer ${MIN_WINDOW_MS}-${MAX_WINDOW_MS}`,
		});
	if (body.headers !== undefined && typeof body.headers !== 'boolean')
		details.push({ field: 'headers', message: 'must be true or false' });
	const limits = { ...current.limits };
	if (body.limits !== undefined) {
		if (typeof body.limits !== 'object' || body.limits === null || Array.isArray(body.limits))
			details.push({ field: 'limits', message: 'must be an object' });
		else {
			for (const [plan, value] of Object.entries(body.limits)) {
				if (!LIMITED_PLANS.includes(plan))
					details.push({
						field: `limits.${plan}`,
						message: `is not a plan with a limit (${LIMITED_PLANS.join(', ')})`,
					});
				else if (value !== null && (!Number.isInteger(value) || value < 1))
					details.push({
						field: `limits.${plan}`,
						message: 'must be a positive integer, or null for unlimited',
					});
				else limits[plan] = value;
			}
		}
	}
	if (details.length) throw validationError(details);
	return {
		windowMs: body.window_ms ?? current.windowMs,
		limits,
		headers: body.headers ?? current.headers,
	};
}

/** startSandbox's `rateLimit` option ({windowMs?, limits?, headers?}) as settings; an Error naming every problem. */
function rateLimitOptions(options = {}) {
	const { windowMs, window_ms: snake, ...rest } = options;
	try {
		if (snake !== undefined)
			throw validationError([{ field: 'window_ms', message: 'is not an option (windowMs is)' }]);
		return rateLimitSettings(windowMs === undefined ? rest : { ...rest, window_ms: windowMs });
	} catch (err) {
		if (!(err instanceof ApiError)) throw err;
		const problems = err.details.map(
			({ field, message }) =>
				`rateLimit.${field === 'window_ms' && snake === undefined ? 'windowMs' : field} ${message}`,
		);
		throw new Error(`Invalid sandbox option: ${problems.join('; ')}`);
	}
}

module.exports = { RateLimiter, rateLimitSettings, DEFAULT_SETTINGS, MIN_WINDOW_MS, MAX_WINDOW_MS };

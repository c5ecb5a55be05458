'use strict';
// Per-key fixed one-minute windows (contract row 15): a window opens with the key's first request and
// rejected requests do not count.
const { PLANS, RATE_WINDOW_MS } = require('./catalog');
const { ApiError } = require('./errors');

class RateLimiter {
	constructor(windowMs = RATE_WINDOW_MS) {
		this.windowMs = windowMs;
		this.windows = new Map();
	}

	/**
	 * Counts one request for `key`; returns the X-RateLimit-* headers, or throws the 429 (with those headers).
	 * Unlimited plans get no headers: there is no limit to report.
	 */
	take(key, plan, now = Date.now()) {
		const { name, limit } = PLANS[plan];
		if (limit === null) return undefined;
		let w = this.windows.get(key);
		if (!w || now >= w.start + this.windowMs) {
			w = { start: now, count: 0 };
			this.windows.set(key, w);
		}
		const reset = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
		if (w.count >= limit) {
			throw new ApiError(429, 'rate_limited', `Rate limit of ${limit} requests per minute exceeded (${name} plan)`, undefined, {
				'Retry-After': String(reset),
				'X-RateLimit-Limit': String(limit),
				'X-RateLimit-Remaining': '0',
				'X-RateLimit-Reset': String(reset),
			});
		}
		w.count++;
		return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(limit - w.count), 'X-RateLimit-Reset': String(reset) };
	}

	clear() {
		this.windows.clear();
	}
}

module.exports = { RateLimiter };

'use strict';
// Faults on demand (admin POST /__admin/faults): the next N matching API requests fail the way a busy or
// broken service (or the proxy in front of it) would, so workflows and node retries can be watched.
const { validationError } = require('./errors');

const FAULT_TYPES = ['status', 'slow', 'drop', 'lost', 'malformed', 'empty'];
const FAULT_STATUSES = [429, 500, 502, 503, 504];

class Faults {
	constructor() {
		this.list = [];
		this.nextId = 1;
	}

	/** Validates and queues a fault rule; returns it. */
	add(body) {
		body = body ?? {};
		const details = [];
		const known = ['count', 'status', 'retry_after', 'type', 'delay_ms', 'path', 'method'];
		for (const key of Object.keys(body))
			if (!known.includes(key)) details.push({ field: key, message: 'is not a fault setting' });
		const type = body.type ?? 'status';
		const count = body.count ?? 1;
		const status = body.status ?? 503;
		if (!FAULT_TYPES.includes(type))
			details.push({ field: 'type', message: `must be one of: ${FAULT_TYPES.join(', ')}` });
		if (!Number.isInteger(count) || count < 1)
			details.push({ field: 'count', message: 'must be an integer >= 1' });
		if (!FAULT_STATUSES.includes(status))
			details.push({ field: 'status', message: `must be one of: ${FAULT_STATUSES.join(', ')}` });
		const ra = body.retry_after;
		if (
			ra !== undefined &&
			ra !== null &&
			!(Number.isInteger(ra) && ra >= 0) &&
			typeof ra !== 'string'
		)
			details.push({
				field: 'retry_after',
				message: 'must be whole seconds, an HTTP date string or null',
			});
		if (body.delay_ms !== undefined && (!Number.isInteger(body.delay_ms) || body.delay_ms < 0))
			details.push({ field: 'delay_ms', message: 'must be an integer >= 0' });
		for (const key of ['path', 'method'])
			if (body[key] !== undefined && (typeof body[key] !== 'string' || body[key] === ''))
				details.push({ field: key, message: 'must be a non-empty string' });
		if (details.length) throw validationError(details);
		const fault = {
			id: this.nextId++,
			type,
			remaining: count,
			status,
			// A 429 without a stated Retry-After gets 1 s (the contract's normal 429); `null` sends none at all.
			retry_after: ra === undefined ? (status === 429 ? 1 : null) : ra,
			delay_ms: body.delay_ms ?? 2000,
			path: body.path ?? null,
			method: body.method ? body.method.toUpperCase() : null,
		};
		this.list.push(fault);
		return fault;
	}

	/** The first rule matching this request, consumed by one. */
	take(method, path) {
		if (this.list.length === 0) return undefined;
		const i = this.list.findIndex(
			(f) => (!f.path || path.includes(f.path)) && (!f.method || f.method === method),
		);
		if (i < 0) return undefined;
		const fault = this.list[i];
		if (--fault.remaining <= 0) this.list.splice(i, 1);
		return fault;
	}

	clear() {
		this.list = [];
	}
}

module.exports = { Faults, FAULT_TYPES, FAULT_STATUSES };

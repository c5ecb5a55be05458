'use strict';
// Outgoing webhooks (contract rows 13, 14, 16): every event is serialised once, signed over those exact bytes,
// and POSTed with axios; failures are retried with exponential backoff, resending the same id and bytes.
const crypto = require('crypto');
const http = require('http');
const https = require('https');
const axios = require('axios');
const { newId } = require('./state');

const RESPONSE_LOG_CHARS = 500;
// One connection per attempt, as webhook senders do: no idle sockets keep a receiver (or a test) from closing.
const httpAgent = new http.Agent({ keepAlive: false });
const httpsAgent = new https.Agent({ keepAlive: false });

const sign = (secret, body) =>
	'sha256=' + crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');

class Webhooks {
	/**
	 * @param {{url: string|null, secret: string, delivery: {attempts: number, baseDelayMs: number, timeoutMs: number},
	 *   log: (line: string) => void}} opts
	 */
	constructor(opts) {
		this.url = opts.url ?? null;
		this.secret = opts.secret;
		this.policy = opts.delivery;
		this.log = opts.log;
		this.events = [];
		this.deliveries = [];
		this.timers = new Set();
		this.inFlight = new Set();
		/** Attempts waiting for a free slot when `policy.concurrency` attempts are already in flight. */
		this.queued = [];
		this.idleWaiters = [];
		this.stopped = false;
	}

	/** Records an event from a state change and starts its delivery when a receiver is registered. */
	emit(type, data) {
		const event = { id: newId('evt'), type, created_at: new Date().toISOString(), data };
		this.events.push(event);
		if (this.url && !this.stopped) this.deliver(event);
		return event;
	}

	deliver(event) {
		const body = Buffer.from(JSON.stringify(event), 'utf8');
		const delivery = {
			id: newId('dlv'),
			event_id: event.id,
			type: event.type,
			url: this.url,
			status: 'pending',
			attempts: [],
			// Kept off the JSON view: the signing secret of the moment the event happened.
			secret: this.secret,
			body,
		};
		Object.defineProperty(delivery, 'secret', { enumerable: false });
		Object.defineProperty(delivery, 'body', { enumerable: false });
		this.deliveries.push(delivery);
		this.attempt(delivery, 1);
	}

	/**
	 * Rotates the signing secret, as the service's dashboard does: events from now on are signed with `secret`;
	 * retries of earlier events keep the secret they were first signed with.
	 * @param {string} secret
	 */
	rotate(secret) {
		const previous = this.secret;
		this.secret = secret;
		return { secret, previous };
	}

	async attempt(delivery, n) {
		// At most `policy.concurrency` attempts in flight (a sender's worker pool); the rest wait their turn.
		if (this.inFlight.size >= (this.policy.concurrency ?? Infinity)) {
			this.queued.push(() => this.attempt(delivery, n));
			return;
		}
		const controller = new AbortController();
		const started = Date.now();
		const record = {
			attempt: n,
			at: new Date(started).toISOString(),
			status: null,
			ok: false,
			error: null,
			response: null,
			ms: 0,
		};
		const job = { controller };
		this.inFlight.add(job);
		try {
			const res = await axios.post(delivery.url, delivery.body, {
				headers: {
					'Content-Type': 'application/json',
					'User-Agent': 'Storefront-Webhooks/1.0 (sandbox)',
					'X-Service-Signature': sign(delivery.secret, delivery.body),
					'X-Service-Event': delivery.type,
					'X-Service-Delivery': delivery.id,
					'X-Service-Attempt': String(n),
				},
				// The body is already bytes: no transform may touch what was signed.
				transformRequest: [(d) => d],
				transformResponse: [(d) => d],
				responseType: 'text',
				timeout: this.policy.timeoutMs,
				maxRedirects: 0,
				proxy: false,
				httpAgent,
				httpsAgent,
				validateStatus: () => true,
				signal: controller.signal,
			});
			record.status = res.status;
			record.ok = res.status >= 200 && res.status < 300;
			record.response = typeof res.data === 'string' ? res.data.slice(0, RESPONSE_LOG_CHARS) : null;
		} catch (err) {
			record.error = err.code ? `${err.code}: ${err.message}` : err.message;
		} finally {
			this.inFlight.delete(job);
			this.queued.shift()?.();
		}
		record.ms = Date.now() - started;
		delivery.attempts.push(record);
		if (delivery.status !== 'pending') return this.settle(); // cancelled by a reset or stop meanwhile
		this.log(
			`webhook ${delivery.type} ${delivery.event_id} attempt ${n}: ${record.ok ? record.status : (record.error ?? record.status)}`,
		);
		if (record.ok) delivery.status = 'delivered';
		else if (n >= this.policy.attempts) delivery.status = 'failed';
		else {
			const timer = setTimeout(
				() => {
					this.timers.delete(timer);
					this.attempt(delivery, n + 1);
				},
				this.policy.baseDelayMs * 2 ** (n - 1),
			);
			timer.unref();
			this.timers.add(timer);
		}
		this.settle();
	}

	settle() {
		if (this.pending() === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
	}

	pending() {
		return this.deliveries.filter((d) => d.status === 'pending').length;
	}

	/** Resolves once no delivery is pending (delivered or given up). */
	idle() {
		return this.pending() === 0
			? Promise.resolve()
			: new Promise((resolve) => this.idleWaiters.push(resolve));
	}

	/** Cancels retries still waiting or running. */
	cancelAll() {
		for (const d of this.deliveries) if (d.status === 'pending') d.status = 'cancelled';
		this.queued = [];
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		for (const job of this.inFlight) job.controller.abort();
		this.settle();
	}

	clear() {
		this.cancelAll();
		this.events = [];
		this.deliveries = [];
	}

	stop() {
		this.stopped = true;
		this.cancelAll();
	}
}

module.exports = { Webhooks, sign };

// One request governor per API key and Base URL, shared by every run of the Storefront node in this n8n process: a
// burst of runs on one key meets the plan's rate limit as one queue. Each rule and why: docs/storefront-node.md,
// "Rate limits: one governor per API key".
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { realClock, type Clock } from '../clock';

/** The spec's plans are counted per minute: the longest window assumed where the service says nothing. */
const MINUTE_MS = 60_000;
/** Reset times within this of each other are the same window (headers carry whole seconds). */
const SAME_WINDOW_MS = 1_500;
/** The longest single sleep: node code cannot cancel n8n-workflow's sleep, and a pending timer keeps n8n alive. */
const MAX_SLEEP_MS = 1_000;

export interface Ticket {
	readonly seq: number;
	/** The governor's window the request was released in: answers of older windows say nothing of this one. */
	readonly window: number;
	/** When it was released: the service counted it after this, and before its answer was read here. */
	readonly at: number;
}

/** What the service's X-RateLimit-* headers say, if it sends them. */
export interface RateHeaders {
	limit: number;
	remaining: number;
	/** When the window ends (epoch ms), if the service says. */
	resetAt?: number;
}

/** X-RateLimit-Reset as seconds to go (the contract), or an epoch time in seconds or milliseconds (tolerated). */
export function rateHeaders(
	headers: IDataObject | undefined,
	now: number,
): RateHeaders | undefined {
	const number = (name: string) => {
		const raw = headers?.[name];
		// Number(undefined) is NaN, Number(null) and Number('') are 0.
		const value = Number(Array.isArray(raw) ? raw[0] : raw);
		return raw === null || raw === '' || !Number.isFinite(value) ? undefined : value;
	};
	const limit = number('x-ratelimit-limit');
	const remaining = number('x-ratelimit-remaining');
	if (limit === undefined || remaining === undefined || limit <= 0) return undefined;
	const reset = number('x-ratelimit-reset');
	let resetAt: number | undefined;
	if (reset !== undefined && reset >= 0) {
		if (reset > 1e12) resetAt = reset;
		else if (reset > 1e9) resetAt = reset * 1000;
		else resetAt = now + reset * 1000;
	}
	return { limit, remaining: Math.max(0, remaining), resetAt };
}

/** A request that waited for the rate limit until its time budget ran out; it was not sent again. */
export class RateLimitWaitError extends Error {
	constructor(
		readonly waitedMs: number,
		/** What the governor knew of the limit, for the message. */
		readonly limitText: string,
		/** How much longer the service asked to wait, when that is what ended the budget. */
		readonly stillToWaitMs?: number,
	) {
		super(`Waited ${waitedMs} ms for the Storefront rate limit`);
	}
}

interface Waiter {
	seq: number;
	since: number;
	deadline: number;
	resolve: (ticket: Ticket) => void;
	reject: (error: Error) => void;
}

export class Governor {
	// From the service's headers.
	private limit: number | undefined;
	private windowEnd: number | undefined;
	private used = 0;
	/**
	 * Until when the key counts as shared: a minute after the service last counted requests this process did not
	 * send (a time, not a number of windows: a pause or another process's window can start several in a minute).
	 */
	private sharedUntil = 0;
	/** The longest window the headers have shown (their reset counted from the request), what a kept limit spans. */
	private windowMsSeen: number | undefined;
	// Learned from 429s where there are no headers.
	private learned: number | undefined;
	private learnedWindowMs = MINUTE_MS;
	// The current window, as the governor sees it.
	private window = 0;
	private windowStart: number;
	private released = 0;
	private successes = 0;
	/** Set by a 429 until the first look at the queue after it ends, where the service's next window begins. */
	private pausedUntil: number | undefined;
	/** In flight while nothing is known of the limit (slow start): 1, then one more per answer other than 429. */
	private ramp = 1;

	private inFlight = 0;
	private readonly queue: Waiter[] = [];
	private nextSeq = 0;
	private wakeAt = Number.POSITIVE_INFINITY;

	constructor(private readonly clock: Clock = realClock) {
		this.windowStart = clock.now();
	}

	/**
	 * Resolves when the request may be sent. `seq` is the place of a request that was refused (429) and comes
	 * back: it goes before everything that arrived after it. Rejects with RateLimitWaitError at `deadline`.
	 */
	async acquire(deadline: number, seq?: number): Promise<Ticket> {
		const now = this.clock.now();
		if (seq === undefined && this.queue.length === 0 && this.nextSendAt(now) === 0)
			return this.release(this.nextSeq++);
		return await new Promise<Ticket>((resolve, reject) => {
			const waiter = { seq: seq ?? this.nextSeq++, since: now, deadline, resolve, reject };
			let at = this.queue.length;
			while (at > 0 && this.queue[at - 1].seq > waiter.seq) at--;
			this.queue.splice(at, 0, waiter);
			this.pump();
		});
	}

	/**
	 * The answer to a released request: its status (undefined when the connection failed) and headers. For a 429,
	 * `waitMs` is how long to pause every caller (Retry-After, or the caller's backoff when there is none).
	 */
	settle(ticket: Ticket, status: number | undefined, headers?: IDataObject, waitMs = 0): void {
		this.inFlight--;
		if (status !== undefined && status !== 429) this.ramp++;
		const now = this.clock.now();
		const current = ticket.window === this.window;
		const success = current && status !== undefined && status >= 200 && status < 300;
		const info = rateHeaders(headers, now);
		if (info)
			this.fromHeaders(info, rateHeaders(headers, ticket.at)?.resetAt, ticket, current, now);
		else if (success && this.limit !== undefined) {
			// The service stopped sending limits (an upgrade, a proxy that drops them): the limit they said is kept
			// as if learned from 429s.
			this.learned = this.limit;
			this.learnedWindowMs = this.windowMsSeen ?? MINUTE_MS;
			this.limit = undefined;
			this.windowEnd = undefined;
		}
		if (status === 429) this.refused(info, waitMs, now);
		else if (success) this.successes++;
		this.pump();
	}

	/**
	 * Whether a wait now is for a limit the service has shown (its headers, its 429s, a pause), not the slow start of
	 * a key nothing is known of yet: only the first is "waiting for the rate limit" to a user whose plan may have none.
	 */
	knowsLimit(): boolean {
		const paused = this.clock.now() < (this.pausedUntil ?? 0);
		return this.limit !== undefined || this.learned !== undefined || paused;
	}

	/** What the governor knows of the limit, in words. */
	describe(): string {
		const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`;
		if (this.limit !== undefined)
			return `${requests(this.limit)} per window, as the service's X-RateLimit-Limit says`;
		if (this.learned !== undefined) {
			const seconds = Math.round(this.learnedWindowMs / 1000);
			return `about ${requests(this.learned)} per ${seconds} s, learned from the requests the service turned away`;
		}
		return 'not announced by the service';
	}

	/**
	 * `info.resetAt` is reckoned from when the answer was read, so it is never early (the window end the governor
	 * waits for); `resetSinceSent` from when the request was sent, so it is never late by the time the answer waited
	 * on a busy event loop (seconds, in a loaded queue-mode worker), which is what tells a new window from the same one.
	 */
	private fromHeaders(
		info: RateHeaders,
		resetSinceSent: number | undefined,
		ticket: Ticket,
		current: boolean,
		now: number,
	): void {
		this.limit = info.limit;
		if (resetSinceSent !== undefined)
			this.windowMsSeen = Math.max(this.windowMsSeen ?? 0, resetSinceSent - ticket.at);
		if (!current) return;
		if (info.resetAt !== undefined) {
			if (
				this.windowEnd !== undefined &&
				(resetSinceSent ?? info.resetAt) > this.windowEnd + SAME_WINDOW_MS
			) {
				// The service opened a window this process did not see begin (another process used the key).
				this.startWindow(now);
			}
			this.windowEnd =
				this.windowEnd === undefined ? info.resetAt : Math.min(this.windowEnd, info.resetAt);
		}
		const counted = info.limit - info.remaining;
		if (counted > this.released) this.sharedUntil = now + MINUTE_MS;
		this.used = Math.max(this.used, counted);
	}

	private refused(info: RateHeaders | undefined, waitMs: number, now: number): void {
		if (this.pausedUntil === undefined) {
			if (info) this.used = info.limit;
			else {
				// The window's successes are the limit (or what other users of the key left of it); its length is
				// the time since it opened plus the wait, at most a minute beyond the wait where its start is unknown.
				this.learned = this.successes > 0 ? this.successes : (this.learned ?? 1);
				this.learnedWindowMs = Math.max(
					1_000,
					Math.min(now - this.windowStart, MINUTE_MS) + waitMs,
				);
			}
		}
		this.pausedUntil = Math.max(this.pausedUntil ?? 0, now + waitMs);
	}

	/** When the next request may go: 0 (now), a time to look again, or Infinity (at the next answer). */
	private nextSendAt(now: number): number {
		if (this.pausedUntil !== undefined) {
			if (now < this.pausedUntil) return this.pausedUntil;
			// The service's next window begins when the pause ends, however late the next request comes.
			this.startWindow(this.pausedUntil);
			this.pausedUntil = undefined;
		}
		if (this.limit !== undefined) {
			if (this.windowEnd !== undefined && now >= this.windowEnd) this.startWindow(now);
			if (this.used < this.limit) return this.shareOfWindow(now);
			// Full, and nothing in flight will say when the window ends: one request asks.
			if (this.windowEnd === undefined) return this.inFlight === 0 ? 0 : Number.POSITIVE_INFINITY;
			return this.windowEnd;
		}
		if (this.learned !== undefined) {
			if (now >= this.windowStart + this.learnedWindowMs) {
				// A whole window without a refusal: what went through is a floor of the limit, kept (forgotten, the next
				// burst would go whole, and everything in flight at its first 429 would be refused).
				this.learned = Math.max(this.learned, this.successes);
				this.startWindow(now);
				return 0;
			}
			if (this.released < this.learned || this.inFlight === 0) return 0;
			return this.windowStart + this.learnedWindowMs;
		}
		// Nothing known: slow start.
		return this.inFlight < this.ramp ? 0 : Number.POSITIVE_INFINITY;
	}

	/**
	 * With a known limit and room left, as nextSendAt. Sharing the key (seen in the last minute), half the window goes at
	 * once, then one at a time: the other process's requests in flight are counted before any answer here shows them,
	 * so taking what the answers said was left would send the window twice over.
	 */
	private shareOfWindow(now: number): number {
		if (now >= this.sharedUntil) return 0;
		if (this.released < Math.ceil((this.limit as number) / 2)) return 0;
		if (this.windowEnd !== undefined) {
			// The other half waits until the window is half over: a worker that reads its answers late starts its
			// window late, and would find its half spent by the other one's requests.
			const halfway = this.windowStart + (this.windowEnd - this.windowStart) / 2;
			if (now < halfway) return halfway;
		}
		return this.inFlight === 0 ? 0 : Number.POSITIVE_INFINITY;
	}

	private startWindow(now: number): void {
		this.window++;
		this.windowStart = now;
		this.windowEnd = undefined;
		this.used = 0;
		this.released = 0;
		this.successes = 0;
	}

	private release(seq: number): Ticket {
		this.inFlight++;
		this.used++;
		this.released++;
		return { seq, window: this.window, at: this.clock.now() };
	}

	/** Releases what may go, fails what can no longer go in time, and sets one wake-up for the rest. */
	private pump(): void {
		const now = this.clock.now();
		const pausedUntil = this.pausedUntil ?? now;
		const stillToWait = pausedUntil > now ? pausedUntil - now : undefined;
		const late = (waiter: Waiter) => waiter.deadline <= now || waiter.deadline < pausedUntil;
		for (const waiter of this.queue.filter(late)) {
			this.queue.splice(this.queue.indexOf(waiter), 1);
			waiter.reject(new RateLimitWaitError(now - waiter.since, this.describe(), stillToWait));
		}
		while (this.queue.length > 0) {
			const at = this.nextSendAt(now);
			if (at !== 0) {
				this.wake(Math.min(at, ...this.queue.map((waiter) => waiter.deadline)), now);
				return;
			}
			const waiter = this.queue.shift() as Waiter;
			waiter.resolve(this.release(waiter.seq));
		}
	}

	private wake(at: number, now: number): void {
		if (!Number.isFinite(at)) return;
		const next = Math.min(at, now + MAX_SLEEP_MS);
		if (next >= this.wakeAt) return;
		this.wakeAt = next;
		void this.clock.sleep(Math.max(0, next - now)).then(() => {
			if (this.wakeAt === next) this.wakeAt = Number.POSITIVE_INFINITY;
			this.pump();
		});
	}
}

/** By account. Bound: one per API key and Base URL used since n8n started, never dropped (a few numbers each). */
const governors = new Map<string, Governor>();

/**
 * One shop account: an API key at a base URL, by a hash (the key itself is kept nowhere but in n8n's credentials).
 * What a governor, and Create or Update's one writer at a time, are per.
 */
export function accountOf(baseUrl: string, apiKey: unknown): string {
	return `${baseUrl}\u0000${createHash('sha256')
		.update(String(apiKey ?? ''))
		.digest('hex')}`;
}

/** The governor of one account, one per n8n process (module scope). */
export function governorFor(account: string): Governor {
	const governor = governors.get(account) ?? new Governor();
	governors.set(account, governor);
	return governor;
}

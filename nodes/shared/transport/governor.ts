// One request governor per API key and Base URL, shared by every run in this n8n process, so a burst on one key
// meets the plan's rate limit as one queue. Rules and why: docs/storefront-node.md, "Rate limits".
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

export interface RateHeaders {
	limit: number;
	remaining: number;
	/** Epoch ms. */
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
	/** A minute after the service last counted requests not sent here (a time: a minute may hold several windows). */
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

	/** Resolves when the request may go, rejects at `deadline`; `seq`: a refused request's place, kept on its return. */
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

	/** A released request's answer (status undefined: no answer); a 429's `waitMs` pauses every caller. */
	settle(ticket: Ticket, status: number | undefined, headers?: IDataObject, waitMs = 0): void {
		this.inFlight--;
		if (status !== undefined && status !== 429) this.ramp++;
		const now = this.clock.now();
		const current = ticket.window === this.window;
		const success = current && status !== undefined && status >= 200 && status < 300;
		const info = rateHeaders(headers, now);
		if (info) this.fromHeaders(info, rateHeaders(headers, ticket.at)?.resetAt, ticket, now);
		else if (success && this.limit !== undefined) {
			// The headers stopped (an upgrade, a proxy): the limit they said is kept as if learned from 429s.
			this.learned = this.limit;
			this.learnedWindowMs = this.windowMsSeen ?? MINUTE_MS;
			this.limit = undefined;
			this.windowEnd = undefined;
		}
		if (status === 429) this.refused(info, waitMs, now);
		else if (success) this.successes++;
		this.pump();
	}

	/** Whether a wait now is for a limit the service showed, not a new key's slow start (which no hint counts). */
	knowsLimit(): boolean {
		const paused = this.clock.now() < (this.pausedUntil ?? 0);
		return this.limit !== undefined || this.learned !== undefined || paused;
	}

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
	 * `info.resetAt` counts from when the answer was read, so is never early (the end waited for); `resetSinceSent`
	 * from when the request was sent, so is never late by the answer's wait on a busy event loop: it tells windows apart.
	 */
	private fromHeaders(
		info: RateHeaders,
		resetSinceSent: number | undefined,
		ticket: Ticket,
		now: number,
	): void {
		this.limit = info.limit;
		if (resetSinceSent !== undefined)
			this.windowMsSeen = Math.max(this.windowMsSeen ?? 0, resetSinceSent - ticket.at);
		if (ticket.window !== this.window) return;
		if (info.resetAt !== undefined) {
			if (
				this.windowEnd !== undefined &&
				(resetSinceSent ?? info.resetAt) > this.windowEnd + SAME_WINDOW_MS
			) {
				// The service opened a window this process did not see begin (another process used the key).
				this.startWindow(now);
			}
			this.windowEnd = Math.min(this.windowEnd ?? Number.POSITIVE_INFINITY, info.resetAt);
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
	 * nextSendAt with a known limit and room left. On a shared key, half the window goes at once, then one at a time:
	 * the other process's requests in flight are not yet in any answer here, so what answers say is left is too much.
	 */
	private shareOfWindow(now: number): number {
		if (now >= this.sharedUntil) return 0;
		if (this.released < Math.ceil((this.limit as number) / 2)) return 0;
		if (this.windowEnd !== undefined) {
			// The rest waits for the window's middle: a worker reading its answers late would find its half spent.
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

/** By account; its bound: docs/maintainers.md, "What each n8n process keeps in memory". */
const governors = new Map<string, Governor>();

/** One account (what governors and Create or Update's writers are per), by the key's hash: n8n alone keeps the key. */
export function accountOf(baseUrl: string, apiKey: unknown): string {
	const hash = createHash('sha256').update(String(apiKey ?? ''));
	return `${baseUrl}\u0000${hash.digest('hex')}`;
}

/** The governor of one account, one per n8n process (module scope). */
export function governorFor(account: string): Governor {
	const governor = governors.get(account) ?? new Governor();
	governors.set(account, governor);
	return governor;
}

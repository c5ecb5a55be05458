// The per-key rate governor on its own, on a clock the test moves: what it releases and when, in which order, and
// when a waiting request gives up. Its use by the node, against the sandbox's real limits, is in ratelimit.test.ts.
import { sleep, type IDataObject } from 'n8n-workflow';

import {
	Governor as RateGovernor,
	rateHeaders,
	RateLimitWaitError,
	type Ticket,
} from '../../nodes/shared/transport/governor';

class ManualClock {
	time = 1_000_000;
	private sleepers: Array<{ at: number; resolve: () => void }> = [];
	now = () => this.time;
	sleep = async (ms: number) =>
		await new Promise<void>((resolve) => this.sleepers.push({ at: this.time + ms, resolve }));
	async advance(ms: number) {
		this.time += ms;
		const due = this.sleepers.filter((s) => s.at <= this.time);
		this.sleepers = this.sleepers.filter((s) => s.at > this.time);
		for (const sleeper of due) sleeper.resolve();
		await flush();
	}
	/** Moves to the next sleeper's time (false when none is waiting). */
	async advanceToNext(): Promise<boolean> {
		if (!this.sleepers.length) return false;
		await this.advance(Math.min(...this.sleepers.map((s) => s.at)) - this.time);
		return true;
	}
}

/** A governor that counts the refusals (429) it is told of: what the service refused, seen from the callers. */
class Governor extends RateGovernor {
	refusals = 0;
	settle(ticket: Ticket, status: number | undefined, headers?: IDataObject, waitMs?: number) {
		if (status === 429) this.refusals++;
		super.settle(ticket, status, headers, waitMs);
	}
}

const flush = async () => {
	for (let i = 0; i < 5; i++) await sleep(0);
};

/** Starts `count` acquires and records the tickets in the order they are released. */
function queue(governor: Governor, count: number, deadline = Number.MAX_SAFE_INTEGER) {
	const released: Array<{ index: number; ticket: Ticket }> = [];
	const failed: Array<{ index: number; error: unknown }> = [];
	for (let index = 0; index < count; index++) {
		governor.acquire(deadline).then(
			(ticket) => released.push({ index, ticket }),
			(error: unknown) => failed.push({ index, error }),
		);
	}
	return { released, failed };
}

/** `count` requests answered 200, with these headers or none, one after another (a cold governor starts slow). */
async function answered(governor: Governor, count = 1, headers?: IDataObject) {
	for (let i = 0; i < count; i++)
		governor.settle(await governor.acquire(Number.MAX_SAFE_INTEGER), 200, headers);
}

/**
 * Answers 200 to every released request not yet answered (the first `settled` were), round after round, without
 * moving the clock: the rounds of answers it takes until all `total` are released, or Infinity when something waits
 * for time instead.
 */
async function roundTrips(
	governor: Governor,
	released: Array<{ ticket: Ticket }>,
	total: number,
	settled = 0,
) {
	for (let round = 0; round < 20; round++) {
		await flush();
		if (released.length === total) return round;
		if (settled === released.length) return Number.POSITIVE_INFINITY;
		for (const { ticket } of released.slice(settled)) governor.settle(ticket, 200);
		settled = released.length;
	}
	return Number.POSITIVE_INFINITY;
}

const limitHeaders = (limit: number, remaining: number, resetSeconds: number): IDataObject => ({
	'x-ratelimit-limit': String(limit),
	'x-ratelimit-remaining': String(remaining),
	'x-ratelimit-reset': String(resetSeconds),
});

/**
 * A service of fixed windows opened by the first request (the sandbox's rule), `limit` a window, answering `latencyMs`
 * after it counts, with or without X-RateLimit-* headers (Retry-After on a 429 either way), and callers that each send
 * their requests one after another through a governor, re-queuing a refused one in its place.
 */
function modelService(
	clock: ManualClock,
	options: { limit: number; windowMs: number; latencyMs: number; headers: boolean },
) {
	let opened = Number.NEGATIVE_INFINITY;
	let count = 0;
	const stats = { served: 0, refused: 0, windows: 0, refusedByWindow: [] as number[] };
	const take = () => {
		const now = clock.now();
		if (now >= opened + options.windowMs) {
			opened = now;
			count = 0;
			stats.windows++;
		}
		const reset = Math.ceil((opened + options.windowMs - now) / 1000);
		const headers = (remaining: number) =>
			options.headers ? limitHeaders(options.limit, remaining, reset) : {};
		if (count >= options.limit) {
			stats.refused++;
			stats.refusedByWindow[stats.windows - 1] =
				(stats.refusedByWindow[stats.windows - 1] ?? 0) + 1;
			return { status: 429, headers: headers(0), waitMs: reset * 1000 };
		}
		count++;
		return { status: 200, headers: headers(options.limit - count), waitMs: 0 };
	};
	/** One request through the governor until the service takes it. */
	const send = async (governor: Governor) => {
		let seq: number | undefined;
		for (;;) {
			const ticket = await governor.acquire(Number.MAX_SAFE_INTEGER, seq);
			const answer = take();
			await clock.sleep(options.latencyMs);
			governor.settle(ticket, answer.status, answer.headers, answer.waitMs);
			if (answer.status !== 429) {
				stats.served++;
				return;
			}
			seq = ticket.seq;
		}
	};
	/** Moves the clock until `work` is done. */
	const run = async (work: Promise<unknown>) => {
		let finished = false;
		void work.then(() => (finished = true));
		for (let step = 0; step < 5_000 && !finished; step++)
			if (!(await clock.advanceToNext())) await flush();
		return finished;
	};
	return {
		stats,
		send,
		run,
		set headers(on: boolean) {
			options.headers = on;
		},
	};
}

describe('rateHeaders', () => {
	test('reads seconds to go, epoch seconds and epoch milliseconds; nothing without limit and remaining', () => {
		const now = 1_700_000_000_000;
		expect(rateHeaders(limitHeaders(100, 40, 12), now)).toEqual({
			limit: 100,
			remaining: 40,
			resetAt: now + 12_000,
		});
		expect(rateHeaders(limitHeaders(100, 40, 1_700_000_030), now)?.resetAt).toBe(1_700_000_030_000);
		expect(rateHeaders(limitHeaders(100, 40, 1_700_000_030_000), now)?.resetAt).toBe(
			1_700_000_030_000,
		);
		expect(rateHeaders({ 'x-ratelimit-remaining': '3' }, now)).toBeUndefined();
		expect(rateHeaders({}, now)).toBeUndefined();
		expect(rateHeaders({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '2' }, now)).toEqual({
			limit: 5,
			remaining: 2,
			resetAt: undefined,
		});
	});
});

describe('Governor', () => {
	test('until the first answer one request goes; with nothing known then (a Business key: no headers, no 429) nothing waits for time, 1,000 are sent within 10 round trips', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		const { released } = queue(governor, 1000);
		await flush();
		expect(released).toHaveLength(1);
		// 1, then 2, 4, … 512 after nine rounds of answers: the slow start doubles each round trip.
		expect(await roundTrips(governor, released, 1000)).toBe(9);
		expect(governor.refusals).toBe(0);
	});

	test("a cold burst is not sent whole: the first answer's headers decide how much of it goes", async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		const { released } = queue(governor, 30);
		await flush();
		expect(released).toHaveLength(1);
		governor.settle(released[0].ticket, 200, limitHeaders(5, 4, 10));
		await flush();
		expect(released).toHaveLength(5);
		expect(governor.refusals).toBe(0);
	});

	test('with X-RateLimit-* headers it sends what the window can take and the rest when it ends, in arrival order', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		// The first answer says: 5 a window, 4 left, 10 s to go.
		await answered(governor, 1, limitHeaders(5, 4, 10));
		const { released } = queue(governor, 12);
		await flush();
		expect(released.map((r) => r.index)).toEqual([0, 1, 2, 3]);
		for (const { ticket } of released) governor.settle(ticket, 200, limitHeaders(5, 0, 10));
		await clock.advance(9_000);
		expect(released).toHaveLength(4);
		await clock.advance(1_000);
		// A new window: five more, in the order they arrived.
		expect(released.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
		expect(governor.refusals).toBe(0);
	});

	test('a 429 pauses every caller once; the refused request goes first when the pause ends', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		const a = await governor.acquire(Number.MAX_SAFE_INTEGER);
		governor.settle(a, 200);
		const b = await governor.acquire(Number.MAX_SAFE_INTEGER);
		// b is refused: every caller waits 3 s, then b is sent before the requests that came after it.
		governor.settle(b, 429, {}, 3_000);
		const retried = governor.acquire(Number.MAX_SAFE_INTEGER, b.seq);
		const later = queue(governor, 3);
		const order: number[] = [];
		void retried.then((ticket) => order.push(ticket.seq));
		await flush();
		expect(order).toEqual([]);
		expect(later.released).toHaveLength(0);
		await clock.advance(3_000);
		// It learned one request per window (a's success): b goes first, alone; then one at a time until a refusal.
		expect(order).toEqual([b.seq]);
		expect(later.released).toHaveLength(0);
	});

	test('without headers it learns the limit from the window before a 429 and lets that many go after each pause', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		// Window 1: 4 successes, the fifth refused with Retry-After 10 s.
		await answered(governor, 4);
		governor.settle(await governor.acquire(Number.MAX_SAFE_INTEGER), 429, {}, 10_000);
		const { released } = queue(governor, 20);
		await flush();
		expect(released).toHaveLength(0);
		await clock.advance(10_000);
		// Four at once, then a single probe once those answered.
		expect(released).toHaveLength(4);
		for (const { ticket } of released.slice(0, 4)) governor.settle(ticket, 200);
		await flush();
		expect(released).toHaveLength(5);
		governor.settle(released[4].ticket, 429, {}, 10_000);
		await clock.advance(5_000);
		expect(released).toHaveLength(5);
		expect(governor.refusals).toBe(2);
	});

	test('a window with no refusal raises what it learned to what went through; a burst after a quiet spell starts at that pace, not whole', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		// 4 successes, then a 429 asking 2 s: 4 a window of 2 s learned.
		await answered(governor, 4);
		governor.settle(await governor.acquire(Number.MAX_SAFE_INTEGER), 429, {}, 2_000);
		const { released } = queue(governor, 13);
		await clock.advance(2_000);
		expect(released).toHaveLength(4);
		// The 4, then one at a time: 6 go through in the window, none refused (the limit is higher than learned).
		let settled = 0;
		for (let round = 0; round < 3; round++) {
			for (const { ticket } of released.slice(settled)) governor.settle(ticket, 200);
			settled = released.length;
			await flush();
		}
		expect(released).toHaveLength(7);
		await clock.advance(2_000);
		// The window's end: 6 went through without a refusal, so 6 go at once now.
		expect(released).toHaveLength(13);
		for (const { ticket } of released.slice(6)) governor.settle(ticket, 200);

		// Five quiet minutes later, a burst of 50: the learned pace, not all 50 at once.
		await clock.advance(300_000);
		const burst = queue(governor, 50);
		await flush();
		expect(burst.released.length).toBeLessThanOrEqual(8);
		expect(governor.refusals).toBe(1);
	});

	test('answers without headers after headers (a plan without limit) keep that limit as if learned from 429s, raised by each window without a refusal', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		await answered(governor, 1, limitHeaders(2, 1, 30));
		await answered(governor, 1, {});
		// The window's two are spent: one request at a time from here (the one that would find a 429).
		const { released } = queue(governor, 30);
		await flush();
		expect(released).toHaveLength(1);
		governor.settle(released[0].ticket, 200, {});
		await flush();
		expect(released).toHaveLength(2);
		// The window ends (30 s, as the headers showed it) without a refusal: 4 went through in it, so 4 go at once now.
		await clock.advance(29_000);
		governor.settle(released[1].ticket, 200, {});
		await flush();
		expect(released).toHaveLength(3);
		await clock.advance(1_000);
		expect(released).toHaveLength(7);
		expect(governor.refusals).toBe(0);
	});

	test('a cold burst with nothing known starts slow: one, then one more in flight than answers (doubling)', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		const { released } = queue(governor, 100);
		await flush();
		// Each round answers every request in flight; the next round is what that released.
		const rounds = [released.length];
		for (let round = 0, settled = 0; round < 6; round++) {
			for (const { ticket } of released.slice(settled)) governor.settle(ticket, 200);
			settled = released.length;
			await flush();
			rounds.push(released.length - settled);
		}
		expect(rounds).toEqual([1, 2, 4, 8, 16, 32, 37]);
	});

	test.each([
		['cold, no headers ever', false],
		['headers that stop coming after a run that had them', true],
	])(
		"a flash sale of 100 callers × 2 requests at 20 per 12 s without headers (%s): at most a window's limit refused in the first window, then about one a window",
		async (_label, warm) => {
			// Every caller queues at once and answers come back 50 ms after the service counts: the worst case for the
			// first window, where the calls in flight when the first 429 comes are refused.
			const clock = new ManualClock();
			const governor = new Governor(clock);
			const service = modelService(clock, {
				limit: 20,
				windowMs: 12_000,
				latencyMs: 50,
				headers: warm,
			});
			if (warm) {
				expect(
					await service.run(
						Promise.all(Array.from({ length: 30 }, async () => await service.send(governor))),
					),
				).toBe(true);
				await clock.advance(20_000);
				service.headers = false;
				service.stats.refusedByWindow = [];
				service.stats.refused = 0;
				service.stats.windows = 0;
			}
			const sale = Promise.all(
				Array.from({ length: 100 }, async () => {
					await service.send(governor);
					await service.send(governor);
				}),
			);
			expect(await service.run(sale)).toBe(true);
			const { stats } = service;
			expect(stats.windows).toBeLessThanOrEqual(11);
			const [first, ...rest] = Array.from(
				{ length: stats.windows },
				(_, i) => stats.refusedByWindow[i] ?? 0,
			);
			// Cold, the slow start bounds the first window's refusals by about the limit (without it: 81 here); warm, the
			// kept limit paces it (without it: everything queued at once).
			expect(first).toBeLessThanOrEqual(warm ? 1 : 21);
			expect(Math.max(...rest)).toBeLessThanOrEqual(1);
			expect(stats.refused).toBeLessThanOrEqual(warm ? stats.windows : 21 + stats.windows);
		},
		60_000,
	);

	test('an answer from an earlier window does not move the current one', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		await answered(governor);
		const old = await governor.acquire(Number.MAX_SAFE_INTEGER);
		await answered(governor, 1, limitHeaders(3, 0, 5));
		await clock.advance(5_000);
		const fresh = queue(governor, 3);
		await flush();
		expect(fresh.released).toHaveLength(3);
		// The late answer of the old window says "1 s to go": it must not end the new window early.
		governor.settle(old, 200, limitHeaders(3, 0, 1));
		for (const { ticket } of fresh.released) governor.settle(ticket, 200, limitHeaders(3, 0, 5));
		const next = queue(governor, 3);
		await clock.advance(1_500);
		expect(next.released).toHaveLength(0);
		await clock.advance(3_500);
		expect(next.released).toHaveLength(3);
	});

	test('an answer read late (a busy event loop) is still of the same window: it does not open a new one', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		await answered(governor, 1, limitHeaders(5, 4, 10));
		const sent = await Promise.all(
			Array.from({ length: 4 }, async () => await governor.acquire(Number.MAX_SAFE_INTEGER)),
		);
		// Counted at once (10 s to go), read 3 s later: reckoned from the reading, the window would end 3 s later
		// than the first answer said, as if another process had opened a new one.
		await clock.advance(3_000);
		sent.forEach((ticket, i) => governor.settle(ticket, 200, limitHeaders(5, 3 - i, 10)));
		const { released } = queue(governor, 5);
		await flush();
		expect(released).toHaveLength(0);
		await clock.advance(7_000);
		expect(released).toHaveLength(5);
		expect(governor.refusals).toBe(0);
	});

	test("sharing a key, a process sends half a window at once and the rest one at a time from the window's middle", async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		// The first answer: 20 a window, 10 s to go, and the service counted 3 where this process sent 1.
		await answered(governor, 1, limitHeaders(20, 17, 10));
		const { released } = queue(governor, 20);
		await flush();
		expect(released).toHaveLength(9);
		released.forEach(({ ticket }, i) => governor.settle(ticket, 200, limitHeaders(20, 16 - i, 10)));
		await clock.advance(4_000);
		// The other process, reading its answers late, may still take its half.
		expect(released).toHaveLength(9);
		await clock.advance(1_000);
		expect(released).toHaveLength(10);
		governor.settle(released[9].ticket, 200, limitHeaders(20, 2, 5));
		await flush();
		expect(released).toHaveLength(11);
	});

	test('two processes on one key (queue mode): half a window each at once, the rest one at a time, so no window is sent twice over', async () => {
		// A service of fixed windows opened by the first request (the sandbox's rule), 20 a window of 12 s, answering
		// 50 ms after it counts. Two governors (two workers) each send 60 requests, at most 10 at once (a worker's
		// executions). Each alone would see a new window as its own and send its 10 at once, 20 too many a window.
		const clock = new ManualClock();
		const service = modelService(clock, {
			limit: 20,
			windowMs: 12_000,
			latencyMs: 50,
			headers: true,
		});
		const worker = async (governor: Governor, requests: number) => {
			let next = 0;
			await Promise.all(
				Array.from({ length: 10 }, async () => {
					while (next < requests) {
						next++;
						await service.send(governor);
					}
				}),
			);
		};
		const finished = await service.run(
			Promise.all([worker(new Governor(clock), 60), worker(new Governor(clock), 60)]),
		);
		const { stats } = service;
		expect(finished).toBe(true);
		expect(stats.served).toBe(120);
		// 120 requests need six windows; the first opens before either knows the limit (one request each until then).
		expect(stats.windows).toBeLessThanOrEqual(7);
		// At most the request after the half is refused, once a window (without the rule: 49 here; two workers in real n8n
		// had 10 a window, 81 for 200 calls).
		expect(stats.refused).toBeLessThanOrEqual(stats.windows);
	}, 60_000);

	test('a waiting request fails when its time budget runs out, at once when the pause outlasts it', async () => {
		const clock = new ManualClock();
		const governor = new Governor(clock);
		await answered(governor, 1, limitHeaders(1, 0, 60));
		const { released, failed } = queue(governor, 2, clock.now() + 5_000);
		await clock.advance(4_999);
		expect(failed).toHaveLength(0);
		await clock.advance(1);
		expect(released).toHaveLength(0);
		expect(failed.map((f) => f.index)).toEqual([0, 1]);
		expect(failed[0].error).toBeInstanceOf(RateLimitWaitError);
		expect((failed[0].error as RateLimitWaitError).waitedMs).toBe(5_000);
		expect((failed[0].error as RateLimitWaitError).limitText).toContain('1 request per window');

		// A 429 asking for 60 s fails a request with 10 s of budget left right away, saying how long was asked.
		const other = new Governor(clock);
		const refused = await other.acquire(Number.MAX_SAFE_INTEGER);
		other.settle(refused, 429, {}, 60_000);
		const short = queue(other, 1, clock.now() + 10_000);
		await flush();
		expect(short.failed).toHaveLength(1);
		expect((short.failed[0].error as RateLimitWaitError).stillToWaitMs).toBe(60_000);
	});
});

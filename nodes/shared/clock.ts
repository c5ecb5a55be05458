// Time for the parts that wait, pace or throttle: n8n-workflow's sleep and Date.now in n8n, a scheduler's in the
// tests (test/node/governor.test.ts, test/trigger/sharedClaims.test.ts), so that their schedules can be replayed.
import { sleep } from 'n8n-workflow';

export interface Clock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

export const realClock: Clock = { now: () => Date.now(), sleep: async (ms) => await sleep(ms) };

/**
 * Something said at most once per `everyMs` for each key (a warning in n8n's log, a failed execution): a flood of
 * causes says it once, with their number. Bound: one entry per key ever noted, kept for the life of the process (its
 * callers key by trigger node: one per trigger node that refused a delivery or warned since n8n started).
 */
export class Throttle {
	private readonly last = new Map<string, { at: number; count: number }>();

	constructor(private readonly everyMs: number) {}

	/** Counts one cause for `key`: if it is said now, the causes since it was last said (this one included), else 0. */
	note(key: string, now: number): number {
		let entry = this.last.get(key);
		if (!entry) this.last.set(key, (entry = { at: -Infinity, count: 0 }));
		entry.count++;
		if (now - entry.at < this.everyMs) return 0;
		const count = entry.count;
		entry.at = now;
		entry.count = 0;
		return count;
	}
}

// Time as the parts that wait see it: Date.now and n8n's sleep, or a test's clock so that schedules can be replayed.
import { sleep } from 'n8n-workflow';

export interface Clock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

export const realClock: Clock = { now: () => Date.now(), sleep: async (ms) => await sleep(ms) };

/** Says each key's causes at most once per `everyMs`, with their number; its bound: docs/maintainers.md's table. */
export class Throttle {
	private readonly last = new Map<string, { at: number; count: number }>();

	constructor(private readonly everyMs: number) {}

	/** Forgets `key`: its next cause is said at once. */
	forget(key: string): void {
		this.last.delete(key);
	}

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

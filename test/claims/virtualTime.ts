// A clock and dice for the claim lock (LockTiming) whose time is virtual: a sleep returns as soon as every task
// waits, the clock set to the earliest wake-up, so a 30-second wait takes milliseconds and replays the same way.
import type { LockTiming } from '../../nodes/shared/claims/claimLock';

/** mulberry32: a small seeded generator, so a run can be replayed from its seed. */
export function seeded(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

interface Wake {
	at: number;
	order: number;
	go: () => void;
}

export class VirtualTime implements LockTiming {
	private time = 0;
	private order = 0;
	private readonly wakes: Wake[] = [];

	constructor(private readonly dice: () => number = seeded(1)) {}

	now = () => this.time;

	random = () => this.dice();

	sleep = async (ms: number) =>
		await new Promise<void>((go) =>
			this.wakes.push({ at: this.time + ms, order: this.order++, go }),
		);

	/** Does `action` when the clock reaches `at` (a holder releasing, a row changing hands). */
	at(at: number, action: () => unknown): void {
		this.wakes.push({ at, order: this.order++, go: () => void action() });
	}

	/** Runs the tasks together to their ends; once all of them wait, the clock moves to the next wake-up. */
	async run<T>(...tasks: Array<() => Promise<T>>): Promise<T[]> {
		let ended = 0;
		const all = Promise.all(tasks.map(async (task) => await task().finally(() => ended++)));
		all.catch(() => undefined);
		for (let idle = 0; ended < tasks.length; ) {
			// Test code, not node code: n8n's lint config applies node rules to every .ts file.
			// eslint-disable-next-line @n8n/community-nodes/no-restricted-globals
			await new Promise((resolve) => setImmediate(resolve));
			if (ended === tasks.length) break;
			this.wakes.sort((a, b) => a.at - b.at || a.order - b.order);
			const next = this.wakes.shift();
			if (next === undefined) {
				if (++idle > 100) throw new Error('the tasks wait for something that never comes');
				continue;
			}
			idle = 0;
			this.time = Math.max(this.time, next.at);
			next.go();
		}
		return await all;
	}
}

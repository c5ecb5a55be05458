/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; the schedules' outcome counts are printed */
// The shared-database claim (nodes/shared/claims/index.ts, with its lock ./claimLock.ts) against every kind
// of interleaving n8n's deduplication helper allows: each call of each n8n process is a read of the row and, later, a
// write of the whole row, and the test decides — from a seeded random generator — which pending read, write or wait
// happens next. Each simulated process has its own batching and lock state, as each n8n process has. Thousands of
// schedules of two kinds:
//  - copies of one event in two or three processes at the same moment, another process claiming other events;
//  - erased claims: one process claims an event while others claim events of their own, and once all is done a
//    redelivery of that event reaches another process: it must find the claim.
// Asserted in every schedule: every event runs at least once (a claim never loses an event). Counted: schedules in
// which a copy ran twice — for the claim with its lock, for the claim without it (what happens when the lock cannot be
// had) and for a single check-and-record call (what n8n's Remove Duplicates node does).
import { claimChange, claimShared, storeOver, type SharedStore } from '../../nodes/shared/claims';
import {
	acquireLock,
	LEASE_MS,
	LOCK_WAIT_MS,
	type LockTiming,
} from '../../nodes/shared/claims/claimLock';
import type { StoreRow } from '../../nodes/shared/n8n';
import { activityMark, changeClaim } from '../../nodes/StorefrontTrigger/changeKeys';
import { laterLooks } from '../../nodes/StorefrontTrigger/superseded';
import { InMemoryDeduplicator, storeRowOf, triggerContext } from '../helpers/deduplication';
import { seeded } from '../claims/virtualTime';

/** The values a claim of `id` by the delivery `token` records (nodes/shared/claims/index.ts). */
const claimValues = (id: string, token: string) => ({
	event: `event:${id}`,
	delivery: `delivery:${id}:${token}`,
	run: `run:${id}`,
});

const { workflow, node } = triggerContext('wf-schedules');
const NODE_ROW = `${workflow.id}|n:${node.id}`;
const WORKFLOW_ROW = `${workflow.id}|`;

/** One scope's row of the in-memory store, as the package reaches n8n's helper (the node's: up to 100,000 values). */
const rowOf = (store: InMemoryDeduplicator, scope: 'node' | 'workflow'): StoreRow =>
	storeRowOf(store, scope, { workflow, node }, scope === 'node' ? 100_000 : undefined);

/** The workflow row of a process that cannot take the lock: it always looks like another node's (0 writes to it). */
const unavailable: StoreRow = {
	count: async () => 1_000,
	record: async () => new Set(),
	remove: async () => undefined,
	clear: async () => undefined,
};

let processes = 0;
type Kind = 'locked' | 'unlocked';

/** A new simulated n8n process's claim store: its own batching and lock state, the shared rows. */
function processStore(store: InMemoryDeduplicator, kind: Kind, timing?: LockTiming): SharedStore {
	const name = `process-${++processes}`;
	return storeOver(name, {
		data: rowOf(store, 'node'),
		lock: kind === 'locked' ? rowOf(store, 'workflow') : unavailable,
		lockKey: name,
		timing,
	});
}

/** A single check-and-record of the event id: what the Remove Duplicates node does for each item. */
const singleCheck = async (store: SharedStore, id: string) =>
	!(await store.record([`event:${id}`])).had.has(`event:${id}`);

type Step = 'read' | 'write' | 'sleep';

/** A read, write or wait held until the schedule lets it happen: which actor's, and (timed schedules) when it is due. */
interface Pending {
	actor: number;
	step: Step;
	due: number;
	go: () => void;
}

/**
 * Runs the actors (one per n8n process) against one store; `choose` picks which pending read, write or wait happens
 * next (`timing` gives each one its due time). `clock` is handed to every actor for its lock: the schedule's time and
 * waits. Resolves to what each actor returned.
 */
async function playOut<T>(
	store: InMemoryDeduplicator,
	actors: Array<(clock: LockTiming) => Promise<T>>,
	choose: (pending: Pending[]) => number,
	timing: (actor: number, step: Step, now: number, ms: number) => number,
	random: () => number,
): Promise<T[]> {
	const pending: Pending[] = [];
	const actorOf = new WeakMap<object, number>();
	let current = -1;
	let now = 0;
	store.pause = (step, _values, call) => {
		// A read is paused synchronously inside the actor's call, so `current` names its actor; its write follows it.
		if (step === 'read') actorOf.set(call, current);
		const actor = actorOf.get(call) as number;
		return new Promise<void>((go) =>
			pending.push({ actor, step, due: timing(actor, step, now, 0), go }),
		);
	};
	// Only the actor let go last runs until it pauses again, so `current` names the one that waits.
	const clock: LockTiming = {
		now: () => now,
		random,
		sleep: async (ms) =>
			await new Promise<void>((go) =>
				pending.push({ actor: current, step: 'sleep', due: timing(current, 'sleep', now, ms), go }),
			),
	};
	const results: T[] = [];
	let done = 0;
	const runs = actors.map((actor, i) => {
		// An actor's first call starts synchronously in here, so `current` names it when that call pauses to read.
		const tagged = async () => {
			current = i;
			return await actor(clock);
		};
		return tagged().then(
			(result) => {
				results[i] = result;
				done++;
			},
			(error) => {
				done++;
				throw error;
			},
		);
	});
	for (;;) {
		// Let every actor reach its next step (or finish) before choosing. A process's work can outlast its actor's
		// answer (it releases the lock after the claim has returned): the schedule ends once nothing is pending.
		await new Promise((resolve) => setImmediate(resolve));
		if (!pending.length) {
			if (done === actors.length) break;
			continue;
		}
		const [next] = pending.splice(choose(pending), 1);
		now = Math.max(now, next.due);
		current = next.actor;
		next.go();
	}
	await Promise.all(runs);
	store.pause = undefined;
	return results;
}

type Model = 'any order' | 'timed';

/**
 * How the next step is chosen:
 * - any order: uniformly among all pending ones, as if every call could take any time (all copies arrive at once);
 *   time stands still, so no lock is ever taken for dead nor waited for too long;
 * - timed: each process starts at a random moment within 20 time units (one unit: about a database round trip, a
 *   millisecond); a call reads 0.5–1.5 units after the previous step of its process (a round trip) and writes 1–3
 *   units after its read (the answer, the node's work on the row, the write); a wait lasts what it asks; whichever is
 *   due first goes first.
 */
function scheduler(model: Model, random: () => number) {
	const started = new Set<number>();
	const timing = (actor: number, step: Step, now: number, ms: number) => {
		if (model === 'any order') return 0;
		if (step === 'sleep') return now + ms;
		if (step === 'write') return now + 1 + 2 * random();
		if (!started.has(actor)) {
			started.add(actor);
			return random() * 20;
		}
		return now + 0.5 + random();
	};
	const choose =
		model === 'any order'
			? (pending: Pending[]) => Math.floor(random() * pending.length)
			: (pending: Pending[]) =>
					pending.reduce((best, p, i) => (p.due < pending[best].due ? i : best), 0);
	return { choose, timing };
}

type Check = (store: SharedStore, id: string, token: string) => Promise<boolean>;
const CHECKS: Record<string, { check: Check; kind: Kind }> = {
	'the claim with its lock': { check: claimShared, kind: 'locked' },
	'the claim without the lock': { check: claimShared, kind: 'unlocked' },
	'a single check': { check: (store, id) => singleCheck(store, id), kind: 'unlocked' },
};

/** A process claiming `count` events of its own, one after the other; resolves to how many ran. */
const claimsOwn =
	(
		store: InMemoryDeduplicator,
		{ check, kind }: (typeof CHECKS)[string],
		prefix: string,
		count: number,
	) =>
	async (clock: LockTiming) => {
		const shared = processStore(store, kind, clock);
		let ran = 0;
		for (let i = 0; i < count; i++)
			if (await check(shared, `evt_${prefix}_${i}`, `token_${prefix}_${i}`)) ran++;
		return ran;
	};

/** A store whose node row exists already (the trigger has run before): its very first insert is a test of its own. */
function existingStore() {
	const store = new InMemoryDeduplicator();
	store.rows.set(NODE_ROW, []);
	return store;
}

/**
 * `copies` processes each run one copy of event E at once; one more process claims `others` other events meanwhile.
 * Returns how many copies of E ran, and whether every other event ran.
 */
async function sameMoment(
	how: (typeof CHECKS)[string],
	model: Model,
	seed: number,
	copies: number,
	others: number,
) {
	const store = existingStore();
	const random = seeded(seed);
	const { choose, timing } = scheduler(model, random);
	const actors = Array.from(
		{ length: copies },
		(_, i) => async (clock: LockTiming) =>
			await how.check(processStore(store, how.kind, clock), 'evt_E', `token_${i}`),
	);
	const results = await playOut<boolean | number>(
		store,
		[...actors, claimsOwn(store, how, 'other', others)],
		choose,
		timing,
		random,
	);
	const ranE = results.slice(0, copies).filter((r) => r === true).length;
	return { ranE, othersRan: results[copies] === others };
}

/**
 * Erased claims: one process claims event E, `busy` other processes each claim `others` events of their own at the
 * same time. Once all of that is done, E is redelivered to a new process. Returns how often E ran (2: the claim was
 * gone) and whether every other event ran once.
 */
async function erased(
	how: (typeof CHECKS)[string],
	model: Model,
	seed: number,
	busy: number,
	others: number,
) {
	const store = existingStore();
	const random = seeded(seed);
	const { choose, timing } = scheduler(model, random);
	const first = async (clock: LockTiming) =>
		(await how.check(processStore(store, how.kind, clock), 'evt_E', 'token_first')) ? 1 : 0;
	const bystanders = Array.from({ length: busy }, (_, i) =>
		claimsOwn(store, how, `busy${i}`, others),
	);
	const results = await playOut<number>(store, [first, ...bystanders], choose, timing, random);
	const [later] = await playOut<boolean>(
		store,
		[
			async (clock) =>
				await how.check(processStore(store, how.kind, clock), 'evt_E', 'token_later'),
		],
		choose,
		timing,
		random,
	);
	return {
		ranE: results[0] + (later ? 1 : 0),
		othersRan: results.slice(1).every((n) => n === others),
	};
}

const SCHEDULES = 1000;

/**
 * Plays SCHEDULES seeded schedules for each way of checking; asserts in each that event E ran at least once and every
 * other event ran. Resolves to the number of schedules in which E ran more than once, per way.
 */
async function ranTwice(
	play: (
		how: (typeof CHECKS)[string],
		seed: number,
	) => Promise<{ ranE: number; othersRan: boolean }>,
) {
	const twice: Record<string, number> = {};
	for (const [name, how] of Object.entries(CHECKS)) {
		twice[name] = 0;
		for (let seed = 1; seed <= SCHEDULES; seed++) {
			const result = await play(how, seed);
			expect({ name, seed, ranE: result.ranE >= 1, othersRan: result.othersRan }).toEqual({
				name,
				seed,
				ranE: true,
				othersRan: true,
			});
			if (result.ranE > 1) twice[name]++;
		}
	}
	return twice;
}

describe.each([
	{ model: 'any order' as const, copies: 2, others: 0 },
	{ model: 'any order' as const, copies: 2, others: 3 },
	{ model: 'any order' as const, copies: 3, others: 2 },
	{ model: 'timed' as const, copies: 2, others: 0 },
	{ model: 'timed' as const, copies: 2, others: 3 },
	{ model: 'timed' as const, copies: 3, others: 2 },
])(
	'at the same moment, in $model: $copies copies of an event, another process claiming $others other events',
	({ model, copies, others }) => {
		it(`with its lock the claim runs the event exactly once; without it, never less than once (${SCHEDULES} schedules)`, async () => {
			const twice = await ranTwice((how, seed) => sameMoment(how, model, seed, copies, others));
			console.log(
				`same moment, ${model}, ${copies} copies + ${others} other events, ${SCHEDULES} schedules — a copy ran twice: ${JSON.stringify(twice)}`,
			);
			expect(twice['the claim with its lock']).toBe(0);
			expect(twice['the claim without the lock']).toBeLessThan(twice['a single check']);
		}, 300_000);
	},
);

describe.each([
	{ model: 'any order' as const, busy: 1, others: 3 },
	{ model: 'any order' as const, busy: 2, others: 3 },
	{ model: 'timed' as const, busy: 1, others: 5 },
	{ model: 'timed' as const, busy: 2, others: 5 },
])(
	'erased claims, in $model: an event claimed while $busy other processes each claim $others events, redelivered once all is done',
	({ model, busy, others }) => {
		it(`with its lock the redelivery always finds the claim (${SCHEDULES} schedules); without it, it does not always`, async () => {
			const twice = await ranTwice((how, seed) => erased(how, model, seed, busy, others));
			console.log(
				`erased claims, ${model}, ${busy} busy processes × ${others} events, ${SCHEDULES} schedules — the redelivery ran again: ${JSON.stringify(twice)}`,
			);
			expect(twice['the claim with its lock']).toBe(0);
			// The model shows the loss it is about: without a lock, claims are erased.
			expect(twice['the claim without the lock']).toBeGreaterThan(0);
		}, 300_000);
	},
);

describe('the claim, step by step', () => {
	it.each<Kind>(['locked', 'unlocked'])(
		'two runs of one process claim the same change at the same moment (%s): one goes on (their calls share a batch)',
		async (kind) => {
			// A catch-up's item and a delivery of the same change: different event ids and tokens, one key. A call in
			// flight makes both queue up behind it, as one batch.
			const store = existingStore();
			const shared = processStore(store, kind);
			const inFlight = claimShared(shared, 'order.created/ord_0', 'other');
			const ran = await Promise.all([
				claimShared(shared, 'order.created/ord_1', 'catch-up'),
				claimShared(shared, 'order.created/ord_1', 'delivery'),
			]);
			expect(await inFlight).toBe(true);
			expect(ran.filter(Boolean)).toHaveLength(1);
		},
	);

	it('a reading that cannot date a change finds an earlier stay claimed, and the late delivery of the change inside its window shares its batch: the delivery runs (the lost claim took its marks out first)', async () => {
		// After a restart (nothing narrows the window) the order was cancelled at 37.567, moved on, and was cancelled
		// again at 39.309; a reading in second 39 sees it cancelled, and the second cancellation's late delivery arrives.
		const store = existingStore();
		const shared = processStore(store, 'locked');
		const cancelled = { order_id: 'ord_1', status: 'cancelled' };
		const time = (ms: number) => Date.UTC(2026, 11, 2, 10, 0, 0, ms);
		const at = (ms: number) => new Date(time(ms)).toISOString();
		const earlier = changeClaim('order.updated', cancelled, at(37_567))!;
		expect(await claimShared(shared, earlier, 'earlier')).toBe(true);
		const read = changeClaim('order.updated', cancelled, at(39_400), true, {
			window: time(37_317),
		})!;
		const late = changeClaim('order.updated', cancelled, at(39_309))!;
		const inFlight = claimShared(shared, 'order.created/ord_0', 'other');
		const [reading, delivery] = await Promise.all([
			claimShared(shared, read, 'catch-up'),
			claimShared(shared, late, 'delivery'),
		]);
		await inFlight;
		expect({ reading, delivery }).toEqual({ reading: false, delivery: true });
	});

	it.each<Kind>(['locked', 'unlocked'])(
		'two changes of one order claimed in one batch, the earlier first (%s): it learns of the later, so its item is checked against the order (queue mode, soak seed 1680761014)',
		async (kind) => {
			// On hold, then cancelled at 02.009 (held back), then shipped at 02.094: the two deliveries reached a worker
			// together, the held one first in the batch. Both pass their items on at once, so "cancelled" must not go on as
			// the order's last word unchecked.
			const store = existingStore();
			const shared = processStore(store, kind);
			const at = (ms: number) => new Date(Date.UTC(2026, 11, 2, 10, 0, 2, ms)).toISOString();
			const now = Date.UTC(2026, 11, 2, 10, 0, 2, 300);
			const claim = (status: string, ms: number) => {
				const event = {
					type: 'order.updated',
					created_at: at(ms),
					data: { order_id: 'ord_1', status },
				};
				return {
					...changeClaim(event.type, event.data, event.created_at)!,
					looks: laterLooks(event, now),
				};
			};
			const inFlight = claimShared(shared, 'order.created/ord_0', 'other');
			const [cancelled, shipped] = await Promise.all([
				claimChange(shared, claim('cancelled', 9), 'held'),
				claimChange(shared, claim('shipped', 94), 'next'),
			]);
			await inFlight;
			expect([cancelled.won, shipped.won]).toEqual([true, true]);
			expect(cancelled.seen).toEqual([
				activityMark('ord_1', Math.floor(Date.parse(at(9)) / 1_000)),
			]);
			// Alone in its batch, a change finds nothing of its order since.
			const alone = claim('processing', 200);
			expect((await claimChange(processStore(existingStore(), kind), alone, 'alone')).seen).toEqual(
				[],
			);
		},
	);

	it('a later copy is dropped at its first call; under the lock the first copy records the event alone, in one call', async () => {
		const store = existingStore();
		const shared = processStore(store, 'locked');
		expect(await claimShared(shared, 'evt_1', 'a')).toBe(true);
		expect(await claimShared(shared, 'evt_1', 'b')).toBe(false);
		const values = claimValues('evt_1', 'a');
		expect(await shared.record([values.event, values.delivery, values.run])).toEqual({
			had: new Set([values.event]),
			exclusive: true,
			lost: true,
		});
		expect(store.rows.get(NODE_ROW)).toHaveLength(3);
		// The lock is released once no more calls come (just after the answer): no workflow row is left behind.
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(store.rows.has(WORKFLOW_ROW)).toBe(false);
	});

	it('without the lock: the event, its token and the run marker; a copy still finds the marker when the event value was lost', async () => {
		const store = existingStore();
		const shared = processStore(store, 'unlocked');
		expect(await claimShared(shared, 'evt_2', 'a')).toBe(true);
		const values = claimValues('evt_2', 'a');
		expect((await shared.record([values.event, values.delivery, values.run])).had).toEqual(
			new Set([values.event, values.delivery, values.run]),
		);
		// Another process's write replaces the row with an older copy that has the run marker but not the event:
		// in n8n that is a whole-row write based on a read taken between the claim's last two calls.
		const row = store.rows.get(NODE_ROW) as string[];
		row.splice(0, row.length - 1);
		expect(await claimShared(shared, 'evt_2', 'b')).toBe(false);
	});

	it("the head start's reads of one process's claims share one read at a time (a run of 50 items waiting makes 1 database read, not 50)", async () => {
		const store = existingStore();
		const row = rowOf(store, 'node');
		let reads = 0;
		let concurrent = 0;
		let most = 0;
		const counted: StoreRow = {
			...row,
			count: async () => {
				reads++;
				most = Math.max(most, ++concurrent);
				await new Promise((resolve) => setTimeout(resolve, 20));
				concurrent--;
				return await row.count();
			},
		};
		const shared = storeOver(`process-${++processes}`, {
			data: counted,
			lock: unavailable,
			lockKey: 'reads',
		});
		await Promise.all(Array.from({ length: 50 }, async () => await shared.readRow()));
		expect(reads).toBe(1);
		// Once it has ended, the next read is a new one: nobody waits on an answer older than their call.
		await shared.readRow();
		expect(reads).toBe(2);
		expect(most).toBe(1);
	});
});

/** A clock the test moves by hand: waits resolve at once and move it on. */
function manualClock(random = seeded(7)) {
	const clock = {
		t: 0,
		now: () => clock.t,
		random,
		sleep: async (ms: number) => void (clock.t += ms),
	};
	return clock;
}

describe('the lock', () => {
	it('a holder killed while holding it: others wait one lease (5–7.5 s) and a quarter, then take it over and go on under it', async () => {
		const store = existingStore();
		const clock = manualClock();
		const held = await acquireLock(rowOf(store, 'workflow'), 'lock-dead-holder', clock);
		expect(held.release).toBeDefined();
		// The holder dies: its row stays. Another process claims.
		const before = clock.t;
		const shared = processStore(store, 'locked', clock);
		expect(await shared.record(['event:evt_after_crash'])).toEqual({
			had: new Set(),
			exclusive: true,
			lost: false,
		});
		const waited = clock.t - before;
		expect(waited).toBeGreaterThanOrEqual(LEASE_MS * 1.25);
		expect(waited).toBeLessThan(LEASE_MS * 1.5 * 1.25 + 100);
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(store.rows.has(WORKFLOW_ROW)).toBe(false);
	});

	it('a waiter counts the row every 10 ms while a turn may come, then less and less often (at most every 160 ms)', async () => {
		const store = existingStore();
		const clock = manualClock();
		const row = rowOf(store, 'workflow');
		await acquireLock(row, 'lock-back-off-a', clock);
		let counts = 0;
		const counting: StoreRow = { ...row, count: async () => (counts++, await row.count()) };
		// The holder died: a waiter waits one lease (5–7.5 s), then takes the lock.
		await acquireLock(counting, 'lock-back-off-b', clock);
		// Every 10 ms on average for the first second (about 100 counts), then backing off: far fewer than 10 ms apart.
		expect(counts).toBeGreaterThan(60);
		expect(counts).toBeLessThan(250);
	});

	it("where the database answers slowly, the lease grows with it: 20 of the waiter's own counts at least", async () => {
		const store = existingStore();
		const clock = manualClock();
		const row = rowOf(store, 'workflow');
		expect((await acquireLock(row, 'lock-slow-holder', clock)).release).toBeDefined();
		// Every count of the row now takes 1 s: a holder on that database is slow too.
		const slow: StoreRow = { ...row, count: async () => ((clock.t += 1_000), await row.count()) };
		const before = clock.t;
		const waiter = await acquireLock(slow, 'lock-slow-waiter', clock);
		expect(waiter.release).toBeDefined();
		expect(clock.t - before).toBeGreaterThanOrEqual(20_000);
	});

	it('a live holder is never taken for dead: each holding inserts a new count, so the wait goes on until the lock is free', async () => {
		const store = existingStore();
		const clock = manualClock();
		const row = rowOf(store, 'workflow');
		let holder = await acquireLock(row, 'lock-busy-a', clock);
		// Another process holds the lock again and again, releasing and retaking it between the waiter's counts.
		let takings = 0;
		const realSleep = clock.sleep;
		clock.sleep = async (ms) => {
			await realSleep(ms);
			if (takings < 300) {
				takings++;
				await holder.release?.();
				holder = await acquireLock(row, 'lock-busy-a', clock);
			} else if (holder.release) {
				await holder.release();
				holder = { waitedMs: 0 };
			}
		};
		const waiter = await acquireLock(row, 'lock-busy-b', clock);
		// 300 takings, one at each of the waiter's counts (10 ms apart, then backing off): well over a lease of waiting,
		// the same count now and then (1 in 8), yet never broken.
		expect(clock.t).toBeGreaterThan(LEASE_MS);
		expect(waiter.unlocked ?? 'had').toBe('had');
		expect(takings).toBe(300);
	});

	it('under load a process keeps the lock from one batch to the next: many batches, one taking', async () => {
		const store = existingStore();
		// Time stands still here, so the lock is kept for as long as batches follow each other.
		const clock = manualClock();
		const row = rowOf(store, 'workflow');
		let takings = 0;
		const counted: StoreRow = {
			...row,
			record: async (values) => ((takings += values.length > 1 ? 1 : 0), await row.record(values)),
		};
		let batches = 0;
		const data = rowOf(store, 'node');
		const countingData: StoreRow = {
			...data,
			record: async (values) => (batches++, await data.record(values)),
		};
		const counting = storeOver('process-keeps-lock', {
			data: countingData,
			lock: counted,
			lockKey: 'process-keeps-lock',
			timing: clock,
		});
		// 30 runs claim at once: the first call goes alone, the other 29 queue up behind it as one batch.
		const ran = await Promise.all(
			Array.from({ length: 30 }, (_, i) => claimShared(counting, `evt_load_${i}`, `t${i}`)),
		);
		expect(ran.every(Boolean)).toBe(true);
		expect(batches).toBeGreaterThan(1);
		expect(takings).toBe(1);
	});

	it('a lock not had within 30 s: the claim goes on without it, as the unlocked claim', async () => {
		const store = existingStore();
		const clock = manualClock();
		const row = rowOf(store, 'workflow');
		let holder = await acquireLock(row, 'lock-starved-a', clock);
		const realSleep = clock.sleep;
		clock.sleep = async (ms) => {
			await realSleep(ms);
			await holder.release?.();
			holder = await acquireLock(row, 'lock-starved-a', clock);
		};
		const waiter = await acquireLock(row, 'lock-starved-b', clock);
		expect(waiter).toEqual({ unlocked: 'timed out', waitedMs: expect.any(Number) });
		expect(waiter.waitedMs).toBeGreaterThanOrEqual(LOCK_WAIT_MS);
	});

	it.each([
		['many values (a Remove Duplicates node with scope Workflow)', 40, undefined],
		['as many values as a holder (3), unchanged for a lease', 3, undefined],
		['saved in another mode ("latestIncrementalKey")', 0, 'latestIncrementalKey'],
	])(
		"the workflow row is another node's, %s: left as it was, claims go on without the lock",
		async (_label, size, mode) => {
			const store = existingStore();
			const foreign = Array.from({ length: size }, (_, i) => `foreign-${i}`);
			store.rows.set(WORKFLOW_ROW, [...foreign]);
			if (mode) store.otherModes.set(WORKFLOW_ROW, mode);
			const clock = manualClock();
			const shared = processStore(store, 'locked', clock);
			expect(await claimShared(shared, 'evt_foreign', 'a')).toBe(true);
			expect(await claimShared(shared, 'evt_foreign', 'b')).toBe(false);
			expect(store.rows.get(WORKFLOW_ROW)).toEqual(foreign);
			// The unlocked claim ran: its run marker is in the node's row.
			expect((await shared.record([claimValues('evt_foreign', 'a').run])).had.size).toBe(1);
		},
	);
});

// Claims, across n8n processes and restarts: which events and changes already started a run of the Storefront Trigger
// (Drop Duplicate Events), and which SKUs a run of Create or Update is creating. They live in n8n's database, in the
// one store n8n gives a node (../n8n, sharedStore), which writes a row back whole without a lock: overlapping calls
// replace each other's values. The protocol (docs/maintainers.md, Claims in n8n's database):
//  1. Batching (storeOver). A node's calls in one n8n process never overlap: those queued while one is in flight go
//     to n8n as one, each caller answered as if they had come one after the other.
//  2. The lock (./claimLock), made of the store's one atomic step (a row's first insert): under it a claim is exact.
//     It is kept while batches follow each other (HOLD_MS); a holder is dead when its row's count stands for a lease,
//     and a waiter then takes its row over (never deletes it).
//  3. Retention (turnPeriod). Under the lock, a new period's first batch drops the claims older than Remember Events
//     For: n8n keeps values hashed and drops the oldest only by count.
//  4. Without the lock (not had in time, or the row is another node's): a claim records its delivery's token, reads it
//     back, gives a concurrent claim a head start of reads, and the call that first records the run marker runs it.
//     No event is lost; a small window for a copy to run twice remains.
// Memory kept: docs/maintainers.md, What each n8n process keeps in memory.
import {
	acquireLock,
	realTiming,
	turnGap,
	type Acquired,
	type LockTiming,
	type Unlocked,
} from './claimLock';
import type { StoreRow } from '../n8n';

/** Reads a claim without the lock waits when its token was overwritten: the other claim's read-back and run marker. */
const HEAD_START_READS = 6;

/**
 * A run's claim of one change (../../StorefrontTrigger/changeKeys): `key` is recorded (found: it ran), `notes` too (for
 * other kinds of claim); `alike` (other keys of the same change) and `probes` are looked for (found: it ran), taken out
 * again if this added them; `marks` are recorded with the key and taken out again (under the lock, in the same call) if
 * the claim lost, so other claims find only what ran; `looks` are looked for as probes are, but only reported back.
 */
export interface Claim {
	key: string;
	notes?: string[];
	marks?: string[];
	alike?: string[];
	probes?: string[];
	looks?: string[];
}

/**
 * What a call recorded: which of its values the row had, whether it was made under the lock, and whether it lost (its
 * first value or a probe was there: what it claims ran).
 */
interface Recorded {
	had: Set<string>;
	exclusive: boolean;
	lost: boolean;
}

/** The node's values in n8n's database, as this package uses them. */
export interface SharedStore {
	/**
	 * Records `values`, plus `unlockedOnly` without the lock, and looks for `probes`: answers which the row had. `marks`
	 * are recorded too, and kept only if neither the first value nor a probe was there: under the lock a lost claim's
	 * marks are taken out in the same call, before a later claim can take them for a change that ran.
	 */
	record(
		values: string[],
		unlockedOnly?: string[],
		probes?: string[],
		marks?: string[],
		looks?: string[],
	): Promise<Recorded>;
	/** A read that writes nothing, so it cannot replace anyone's values. */
	readRow(): Promise<void>;
	/** Takes `values` out of the row under the lock only (else they stay until the retention drops them). */
	forget(values: string[]): Promise<void>;
}

/** The values a claim of `key` by the delivery `token` records. */
const valuesOf = (key: string, token: string) => ({
	event: `event:${key}`,
	delivery: `delivery:${key}:${token}`,
	run: `run:${key}`,
});

/**
 * Claims a change (or an event id) for the delivery `token`: false when another got there first. Without the lock,
 * values vanish only by replacement and never appear unwritten, so a run is dropped only where a value proves it.
 */
export const claimShared = async (store: SharedStore, claim: string | Claim, token: string) =>
	(await claimChange(store, typeof claim === 'string' ? { key: claim } : claim, token)).won;

/** Claims a change as claimShared does, and answers which of its `looks` the row had. */
export async function claimChange(
	store: SharedStore,
	claim: Claim,
	token: string,
): Promise<{ won: boolean; seen: string[] }> {
	const { key, notes = [], marks = [], alike = [], probes = [], looks = [] } = claim;
	const values = valuesOf(key, token);
	const [noted, marked, probed, looked] = [notes, marks, [...alike, ...probes], looks].map((ids) =>
		ids.map((id) => `event:${id}`),
	);
	const first = await store.record(
		[values.event, ...noted],
		[values.delivery],
		probed,
		marked,
		looked,
	);
	const won = await (async () => {
		if (first.lost) return false;
		// Under the lock that answer is exact, and stays so: nothing replaces the event value but trimming.
		if (first.exclusive) return true;
		const back = await store.record([values.delivery]);
		if (!back.had.has(values.delivery)) {
			// Only reads: a write here, based on a read taken before the other claim's run marker lands, would replace it.
			for (let i = 0; i < HEAD_START_READS; i++) await store.readRow();
		}
		return !(await store.record([values.run])).had.has(values.run);
	})();
	if (!won && marked.length && !first.exclusive)
		await store.forget(marked.filter((value) => !first.had.has(value)));
	return { won, seen: looks.filter((_, i) => first.had.has(looked[i])) };
}

/** Gives up a claim this run made (what it claimed did not happen), so that another run may claim it at once. */
export async function releaseShared(store: SharedStore, key: string, token: string): Promise<void> {
	await store.forget(Object.values(valuesOf(key, token)));
}

/** How a process reaches the store: the node's row (the claims), the workflow's row (the lock). */
interface StoreAccess {
	data: StoreRow;
	/** Absent where another node of the workflow uses that row: it is then never touched. */
	lock?: StoreRow;
	/** Names the lock in this process (what is known about its row): the workflow. */
	lockKey: string;
	/** How long claims are kept (turnPeriod, below); absent: only the row's cap bounds it. */
	retentionMs?: number;
	timing?: LockTiming;
	onUnlocked?: (why: Unlocked, waitedMs: number) => void;
}

interface Call {
	values: string[];
	unlockedOnly: string[];
	probes: string[];
	marks: string[];
	looks: string[];
	forget: string[];
}
interface Batch {
	access: StoreAccess;
	waiters: Array<{
		call: Call;
		resolve: (recorded: Recorded) => void;
		reject: (error: unknown) => void;
	}>;
}
const queued = new Map<string, Batch>();
const inFlight = new Set<string>();

/** How long a process keeps the lock while its batches follow each other (docs/performance.md); far below a lease. */
const HOLD_MS = 500;

/** A failed release leaves the row for a waiter to take over after a lease: nothing to do about it here. */
const release = async (lock: Acquired) => await lock.release?.().catch(() => undefined);

async function flush(scope: string): Promise<void> {
	inFlight.add(scope);
	let lock: Acquired | undefined;
	let heldSince = 0;
	try {
		for (let batch = queued.get(scope); batch !== undefined; batch = queued.get(scope)) {
			queued.delete(scope);
			const { access, waiters } = batch;
			const every = (part: keyof Call) => new Set(waiters.flatMap(({ call }) => call[part]));
			const timing = access.timing ?? realTiming;
			try {
				if (!lock?.release) {
					lock = access.lock
						? await acquireLock(access.lock, access.lockKey, timing)
						: { unlocked: 'shared row', waitedMs: 0 };
					heldSince = timing.now();
					if (lock.unlocked) access.onUnlocked?.(lock.unlocked, lock.waitedMs);
				}
				const exclusive = lock.release !== undefined;
				if (exclusive && access.retentionMs)
					await turnPeriod(scope, access.data, access.retentionMs, timing.now());
				const values = new Set([...every('values'), ...every('marks')]);
				const probes = [...every('probes'), ...every('looks')].filter(
					(value) => !values.has(value),
				);
				const asked = [...values, ...(exclusive ? [] : every('unlockedOnly')), ...probes];
				const had = asked.length ? await access.data.record(asked) : new Set<string>();
				// As if the callers came one after the other: a value two of them recorded was there for the later one.
				const before = new Set(had);
				const lostMarks = new Set<string>();
				// A look is also seen when another call of the batch records it: the runs of a batch pass their items on
				// together, so a change learns of its order's later change whichever came first in the batch.
				const recorders = new Map<string, number>();
				for (const { call } of waiters)
					for (const value of new Set(call.values))
						recorders.set(value, (recorders.get(value) ?? 0) + 1);
				for (const { call, resolve } of waiters) {
					const recorded = [...call.values, ...call.unlockedOnly];
					const asked = [...recorded, ...call.marks, ...call.probes, ...call.looks];
					const lost = [...call.values.slice(0, 1), ...call.probes].some((v) => before.has(v));
					const others = (value: string) =>
						(recorders.get(value) ?? 0) > (call.values.includes(value) ? 1 : 0);
					const seen = call.looks.filter((value) => !before.has(value) && others(value));
					resolve({
						had: new Set([...asked.filter((value) => before.has(value)), ...seen]),
						exclusive,
						lost,
					});
					for (const value of [...recorded, ...(lost ? [] : call.marks)]) before.add(value);
					if (lost) for (const value of call.marks) lostMarks.add(value);
				}
				// Probes this call added are taken out, under the lock only: without it another process may have added one
				// meanwhile, and a later claim may take it for a change that ran.
				const out = [
					...probes.filter((value) => !had.has(value)),
					...(exclusive ? every('forget') : []),
					...(exclusive ? [...lostMarks].filter((value) => !before.has(value)) : []),
				];
				if (exclusive && out.length) await access.data.remove(out);
			} catch (error) {
				for (const { reject } of waiters) reject(error);
			}
			// Released after HOLD_MS or once no call waits; a gap then lets a waiting process take it.
			if (lock?.release && (!queued.has(scope) || timing.now() - heldSince >= HOLD_MS)) {
				await release(lock);
				lock = undefined;
				if (queued.has(scope)) await timing.sleep(turnGap(timing));
			}
		}
	} finally {
		inFlight.delete(scope);
		if (lock) await release(lock);
	}
}

function batched(scope: string, access: StoreAccess, call: Call): Promise<Recorded> {
	return new Promise((resolve, reject) => {
		const batch = queued.get(scope) ?? { access, waiters: [] };
		queued.set(scope, batch);
		batch.waiters.push({ call, resolve, reject });
		if (!inFlight.has(scope)) void flush(scope);
	});
}

/** The claims' store over `access`; `scope` names the node in this process (its calls are batched together). */
export function storeOver(scope: string, access: StoreAccess): SharedStore {
	// The items of one run wait together: one read at a time, whatever the number of items.
	let reading: Promise<number> | undefined;
	return {
		record: async (values, unlockedOnly = [], probes = [], marks = [], looks = []) =>
			await batched(scope, access, { values, unlockedOnly, probes, marks, looks, forget: [] }),
		forget: async (forget) => {
			await batched(scope, access, {
				...{ values: [], unlockedOnly: [], probes: [], marks: [], looks: [] },
				forget,
			});
		},
		readRow: async () => {
			reading ??= access.data.count().finally(() => (reading = undefined));
			await reading;
		},
	};
}

// Retention (docs/maintainers.md, Claims in n8n's database): a period's position and count dropped are written as bits,
// one value per bit set. A position is where it was written less what later periods dropped.

export const DEFAULT_REMEMBER_HOURS = 72;
/** A retention is cut into this many periods. */
const PERIODS = 3;
/** How many periods before that are looked at too: after a quiet time the row has no newer marker. */
const LOOK_BACK = 6;
/** Positions are written with this many bits: up to 2^21 values, above the row's cap. */
const BITS = 21;
/** n8n drops the oldest values past it: the bound of a row whose periods never turn (every claim without the lock). */
export const MAX_ROW_VALUES = 300_000;

/** Named by length too: after Remember Events For changes, old markers are not read (they'd drop younger claims). */
type Period = { length: number; n: number };
const mark = ({ length, n }: Period) => `period:${length}:${n}`;
const bitValues = (period: Period, what: 'at' | 'cut') =>
	Array.from({ length: BITS }, (_, i) => `${mark(period)}:${what}:${i}`);
const encode = (period: Period, what: 'at' | 'cut', n: number) =>
	bitValues(period, what).filter((_, i) => Math.floor(n / 2 ** i) % 2 === 1);
const decode = (period: Period, what: 'at' | 'cut', had: Set<string>) =>
	bitValues(period, what).reduce((sum, value, i) => sum + (had.has(value) ? 2 ** i : 0), 0);

const periodLength = (retentionMs: number) => Math.max(1, Math.floor(retentionMs / PERIODS));

/** The period a claim made at `now` belongs to, for a retention of `retentionMs`. */
export const periodOf = (now: number, retentionMs: number) =>
	Math.floor(now / periodLength(retentionMs));

/** Per node: the period whose marker this process knows to be in the row. */
const marked = new Map<string, string>();

/** Forgets what this process knows of `scope`'s periods: the next claim reads the markers again (one call). */
export const forgetPeriods = (scope: string) => void marked.delete(scope);

/** Under the lock, before a batch: in a new period, drops the claims older than the retention and marks its start. */
export async function turnPeriod(
	scope: string,
	row: StoreRow,
	retentionMs: number,
	now: number,
): Promise<void> {
	const length = periodLength(retentionMs);
	const current = periodOf(now, retentionMs);
	const at = (n: number): Period => ({ length, n });
	const period = at(current);
	if (marked.get(scope) === mark(period)) return;
	const count = await row.count();
	const earlier = Array.from({ length: PERIODS + LOOK_BACK }, (_, i) => at(current - 1 - i));
	// One call finds which markers and bits the row has; those it put there are taken out again (from the row's end).
	const asked = [
		mark(period),
		...earlier.flatMap((p) => [mark(p), ...bitValues(p, 'at'), ...bitValues(p, 'cut')]),
	];
	const had = await row.record(asked);
	const added = asked.filter((value) => !had.has(value));
	if (added.length) await row.remove(added);
	if (!had.has(mark(period))) {
		const present = earlier.filter((p) => had.has(mark(p)));
		const from = present.find((p) => p.n <= current - PERIODS);
		let cut = 0;
		if (from !== undefined) {
			const droppedSince = present
				.filter((p) => p.n > from.n)
				.reduce((sum, p) => sum + decode(p, 'cut', had), 0);
			cut = decode(from, 'at', had) - droppedSince;
			// Not what a row of these markers can hold (a row cut by its cap): nothing is dropped.
			if (cut < 0 || cut > count) cut = 0;
		}
		const kept = count - cut;
		const values = [mark(period), ...encode(period, 'at', kept), ...encode(period, 'cut', cut)];
		await row.record(values, cut > 0 ? kept + values.length : undefined);
	}
	marked.set(scope, mark(period));
}

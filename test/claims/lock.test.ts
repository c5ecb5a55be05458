// The claim lock across n8n processes (nodes/shared/claims/claimLock.ts) on an in-memory row that behaves as n8n's
// deduplication store keeps one (./memoryRow), with a virtual clock (./virtualTime): a wait of 30 seconds takes
// milliseconds. Each case says what the row is when a process asks for the lock, what happens meanwhile, what the
// process ends with (held, or why it goes on without the lock), how long it waited (on the virtual clock), and which
// writing calls it made.
import {
	acquireLock,
	LEASE_MS,
	LOCK_WAIT_MS,
	type Acquired,
} from '../../nodes/shared/claims/claimLock';
import { MemoryRow, type Operation } from './memoryRow';
import { seeded, VirtualTime } from './virtualTime';

/** A lease is LEASE_MS and up to half of it more (each waiter's own jitter). */
const LEASE_JITTER_MS = LEASE_MS / 2;
/** A waiter's longest pause between two counts (160 ms, and half of it more at random). */
const LONGEST_PAUSE_MS = 240;

let keys = 0;
/** A lock key of its own: what a process learns about a row (a foreign one) is kept per key. */
const newKey = () => `lock-case-${++keys}`;

/** Values of a Remove Duplicates node (Scope: Workflow), kept in the row the lock is made of. */
const orders = (n: number) => Array.from({ length: n }, (_, i) => `order-${i + 1}`);

type Before =
	| 'free'
	| 'held by a process'
	| "a Remove Duplicates node's, 100 values"
	| "a Remove Duplicates node's, 5 values"
	| "a Remove Duplicates node's, in another mode";

async function rowThatIs(before: Before, time: VirtualTime): Promise<MemoryRow> {
	switch (before) {
		case 'free':
			return new MemoryRow();
		case 'held by a process': {
			const row = new MemoryRow();
			const holder = await acquireLock(row, newKey(), time);
			expect(holder.release).toBeDefined();
			return row;
		}
		case "a Remove Duplicates node's, 100 values":
			return new MemoryRow(orders(100));
		case "a Remove Duplicates node's, 5 values":
			return new MemoryRow(orders(5));
		case "a Remove Duplicates node's, in another mode":
			return MemoryRow.inOtherMode('latestIncrementalKey');
	}
}

type Meanwhile =
	| 'nothing'
	| 'the holder releases it at 800 ms'
	| 'each count takes a second'
	| 'the row changes hands every second'
	| 'the holder releases it as the lease runs out'
	| 'another holder takes it just after the tag, with the same count'
	| 'the database fails to count'
	| 'the database fails to write';

function meanwhile(what: Meanwhile, row: MemoryRow, time: VirtualTime): void {
	const fail = () => {
		throw new Error('Connection terminated unexpectedly');
	};
	switch (what) {
		case 'nothing':
			return;
		case 'the holder releases it at 800 ms':
			return time.at(800, () => row.replace(undefined));
		case 'each count takes a second':
			row.hook = async (operation) => {
				if (operation === 'count') await time.sleep(1_000);
			};
			return;
		case 'the row changes hands every second':
			// Each new holder's row in place of the last one's, with another number of values: a live lock.
			for (let s = 1; s <= 60; s++) time.at(s * 1_000, () => row.replace(orders(2 + (s % 2))));
			return;
		case 'the holder releases it as the lease runs out': {
			// Between the waiter's last count and its write to find out: that write inserts the row.
			row.hook = (operation) => {
				if (operation !== 'record') return;
				row.hook = undefined;
				row.replace(undefined);
			};
			return;
		}
		case 'another holder takes it just after the tag, with the same count': {
			// The tag lands; a moment later the row is another holder's (released, taken: unseen), as many values as the
			// tagged one, and that holder releases it three seconds on.
			row.hook = (operation, step) => {
				if (operation !== 'record' || step !== 'write') return;
				row.hook = undefined;
				time.at(time.now() + 100, () => {
					const tagged = row.values() ?? [];
					row.replace(tagged.map((value, i) => (i === 0 ? value : `other-holder-${i}`)));
				});
				time.at(time.now() + 3_000, () => row.replace(undefined));
			};
			return;
		}
		case 'the database fails to count':
			row.hook = (operation) => (operation === 'count' ? fail() : undefined);
			return;
		case 'the database fails to write':
			row.hook = (_operation, step) => (step === 'write' ? fail() : undefined);
			return;
	}
}

describe('the claim lock', () => {
	test.each<{
		case: string;
		before: Before;
		meanwhile: Meanwhile;
		outcome: 'held' | NonNullable<Acquired['unlocked']>;
		waited: [number, number];
		writes: string;
	}>([
		{
			case: 'a free row is taken at once',
			before: 'free',
			meanwhile: 'nothing',
			outcome: 'held',
			waited: [0, 0],
			writes: 'record',
		},
		{
			case: 'a held row is waited on, only counted, and taken once released',
			before: 'held by a process',
			meanwhile: 'the holder releases it at 800 ms',
			outcome: 'held',
			waited: [800, 815],
			writes: 'record',
		},
		{
			case: 'a holder that died (the same count for a lease) is tagged, and its row taken over a quarter lease on',
			before: 'held by a process',
			meanwhile: 'nothing',
			outcome: 'held',
			waited: [LEASE_MS * 1.25, (LEASE_MS + LEASE_JITTER_MS) * 1.25 + 2 * LONGEST_PAUSE_MS],
			writes: 'record record',
		},
		{
			case: 'where counting is slow the lease is twenty counts long',
			before: 'held by a process',
			meanwhile: 'each count takes a second',
			outcome: 'held',
			waited: [25_000, LOCK_WAIT_MS],
			writes: 'record record',
		},
		{
			case: 'a holder that released as its lease ran out: the write to find out inserts the row, held',
			before: 'held by a process',
			meanwhile: 'the holder releases it as the lease runs out',
			outcome: 'held',
			waited: [LEASE_MS, LEASE_MS + LEASE_JITTER_MS + LONGEST_PAUSE_MS],
			writes: 'record',
		},
		{
			case: 'a row taken by another holder after the tag, of the same count: not taken over (the tag is not in it), taken once released',
			before: 'held by a process',
			meanwhile: 'another holder takes it just after the tag, with the same count',
			outcome: 'held',
			waited: [LEASE_MS + 3_000, LEASE_MS + LEASE_JITTER_MS + 3_000 + 2 * LONGEST_PAUSE_MS],
			writes: 'record record remove record',
		},
		{
			case: 'a row that keeps changing hands is never broken: timed out after LOCK_WAIT_MS',
			before: 'held by a process',
			meanwhile: 'the row changes hands every second',
			outcome: 'timed out',
			waited: [LOCK_WAIT_MS, LOCK_WAIT_MS + LONGEST_PAUSE_MS],
			writes: '',
		},
		{
			case: "a Remove Duplicates node's row, more values than a lock's: left alone at once",
			before: "a Remove Duplicates node's, 100 values",
			meanwhile: 'nothing',
			outcome: 'foreign row',
			waited: [0, 0],
			writes: '',
		},
		{
			case: "a Remove Duplicates node's row of a lock's size: after a lease, one marker to find out, taken out again",
			before: "a Remove Duplicates node's, 5 values",
			meanwhile: 'nothing',
			outcome: 'foreign row',
			waited: [LEASE_MS, LEASE_MS + LEASE_JITTER_MS + LONGEST_PAUSE_MS],
			writes: 'record remove',
		},
		{
			case: "a Remove Duplicates node's row in another mode: n8n refuses the insert, left alone",
			before: "a Remove Duplicates node's, in another mode",
			meanwhile: 'nothing',
			outcome: 'foreign row',
			waited: [0, 0],
			writes: 'record',
		},
		{
			case: 'a database that fails to count: the claim goes on, told why',
			before: 'held by a process',
			meanwhile: 'the database fails to count',
			outcome: 'error',
			waited: [0, 0],
			writes: '',
		},
		{
			case: 'a database that fails to insert: the claim goes on, told why',
			before: 'free',
			meanwhile: 'the database fails to write',
			outcome: 'error',
			waited: [0, 0],
			writes: 'record',
		},
	])('$case', async ({ before, meanwhile: what, outcome, waited, writes }) => {
		const time = new VirtualTime(seeded(keys + 1));
		const row = await rowThatIs(before, time);
		const valuesBefore = row.values();
		const callsBefore = row.calls.length;
		meanwhile(what, row, time);

		const started = time.now();
		const [got] = await time.run(async () => await acquireLock(row, newKey(), time));

		expect(got.unlocked ?? 'held').toBe(outcome);
		expect(time.now() - started).toBeGreaterThanOrEqual(waited[0]);
		expect(time.now() - started).toBeLessThanOrEqual(waited[1]);
		const made = row.calls.slice(callsBefore).map(({ operation }) => operation);
		// What the lock says it waited is what it waited: the warning of a claim without the lock quotes it.
		expect(got.waitedMs).toBe(time.now() - started);
		expect(made.filter((operation) => operation !== 'count').join(' ')).toBe(writes);
		if (got.release) {
			// Released by deleting the row.
			await got.release();
			expect(row.values()).toBeUndefined();
		} else if (what === 'nothing') {
			// A row the lock does not hold is left as it was.
			expect(row.values()).toEqual(valuesBefore);
		}
	});

	test('a row seen to be foreign is not counted again for ten minutes, then looked at anew', async () => {
		const time = new VirtualTime();
		const row = new MemoryRow(orders(100));
		const key = newKey();
		expect((await acquireLock(row, key, time)).unlocked).toBe('foreign row');
		const calls = row.calls.length;
		await time.run(async () => await time.sleep(9 * 60_000));
		expect((await acquireLock(row, key, time)).unlocked).toBe('foreign row');
		expect(row.calls.length).toBe(calls);
		await time.run(async () => await time.sleep(60_000));
		// Its node's Clean Database deleted the row meanwhile: the lock is had again.
		row.replace(undefined);
		const got = await acquireLock(row, key, time);
		expect(got.release).toBeDefined();
	});
});

describe('two processes take a free row at the same moment: one holds it, the other has its turn after', () => {
	/** Holds each process's call of `operation` (at `step`) until both made theirs. */
	function together(operation: Operation, step: 'read' | 'write') {
		let arrived = 0;
		let go: () => void = () => undefined;
		const both = new Promise<void>((resolve) => (go = resolve));
		return async (called: Operation, at: 'read' | 'write') => {
			if (called !== operation || at !== step || arrived >= 2) return;
			if (++arrived === 2) go();
			await both;
		};
	}

	test.each([
		{
			case: 'both insert it: one insert fails on the key, that process waits',
			collisions: 1,
			race: (row: MemoryRow) => {
				row.hook = together('record', 'write');
			},
		},
		{
			case: 'both count no row, one inserts it first: the other adds its values to it and waits',
			collisions: 0,
			race: (row: MemoryRow) => {
				const counted = together('count', 'read');
				let records = 0;
				row.hook = async (operation, step) => {
					await counted(operation, step);
					// The second insert reads the row once the first one has written it.
					if (operation === 'record' && step === 'read' && ++records === 2)
						while (row.values() === undefined) await Promise.resolve();
				};
			},
		},
	])('$case', async ({ race, collisions }) => {
		const time = new VirtualTime();
		const row = new MemoryRow();
		race(row);
		let holding = 0;
		let mostAtOnce = 0;
		const process = async () => {
			const got = await acquireLock(row, newKey(), time);
			if (got.release) {
				mostAtOnce = Math.max(mostAtOnce, ++holding);
				await time.sleep(300);
				holding--;
				await got.release();
			}
			return got;
		};

		const [a, b] = await time.run(process, process);

		expect([a.unlocked, b.unlocked]).toEqual([undefined, undefined]);
		expect(mostAtOnce).toBe(1);
		const [first, second] = [a.waitedMs, b.waitedMs].sort((x, y) => x - y);
		expect(first).toBe(0);
		expect(second).toBeGreaterThanOrEqual(300);
		expect(second).toBeLessThanOrEqual(300 + 15);
		expect(row.collisions).toBe(collisions);
		expect(row.values()).toBeUndefined();
	});
});

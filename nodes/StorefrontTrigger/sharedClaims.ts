import type { IExecuteFunctions, ICheckProcessedOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

// "Drop Duplicate Events" across n8n processes and restarts: which event ids already started a run, kept in n8n's
// own database, which every running n8n of an instance shares (main, webhook processors, queue-mode workers).
//
// The only store n8n 2.x/1.123 gives a node for that is the deduplication helper of its Remove Duplicates node
// (this.helpers.checkProcessedAndRecord, in every IExecuteFunctions): one `processed_data` row per workflow and
// node holding a list of MD5 hashes, newest last, trimmed to `maxEntries`. Each call reads the row, answers which
// of the given values were in it, appends the new ones and writes the whole row back — without a lock. So:
//  - two calls that overlap (another running n8n, the same moment) both miss each other's values, and the later
//    write replaces the earlier one: what that one added is gone (a "lost update");
//  - the very first calls for a node both insert the row, and one gets a unique-key violation.
// Values only ever disappear through such a replacement (or trimming), never appear without a write that added
// them. The claim below is built on that one fact, so that it can never lose an event, only — in a window that it
// keeps as small as this store allows — let a copy through twice:
//  1. record the event, together with this delivery's own token. The event was there → a redelivery: drop it.
//  2. read the token back. Missing → a write that started before ours finished replaced ours: another running n8n was
//     recording at the same moment, maybe another copy of this very event. Then give that claim a head start: a few
//     reads of the row, which write nothing (a write could replace the other claim's marker).
//  3. record the event's run marker: the one call that finds it missing runs the event, every later one drops.
// Every run that passes step 1 reaches step 3, and the marker is only ever added by a run that goes on; a run is
// dropped only where a value proves that another one got there first. When two copies race, the later writer of
// step 1 keeps its token and reaches step 3 first; the earlier one finds its token gone and waits, so its step 3
// sees the marker. Both run only when one's step 1 spans the other's write and read-back (measured in
// docs/trigger.md, "Drop Duplicate Events").

/** At most this many event ids per trigger node are remembered in n8n's database (oldest forgotten first). */
export const SHARED_EVENT_IDS_LIMIT = 500;
/** Values recorded per accepted event: the event, the delivery's token and the run marker. */
const VALUES_PER_EVENT = 3;
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: SHARED_EVENT_IDS_LIMIT * VALUES_PER_EVENT };

/**
 * Reads of the row a claim waits when its token was overwritten: about two calls of the other claim (its read-back
 * and its run marker), each a read and a write. Measured in the schedules of test/trigger/sharedClaims.test.ts:
 * 2 reads let 111 of 1,000 same-moment pairs through, 4 reads 70, 6 reads 55, 10 reads 54.
 */
const HEAD_START_READS = 6;

/** The values a delivery of `id` with the token `token` records (exported for the benchmark's pre-filled rows). */
export const claimValues = (id: string, token: string) => ({
	event: `event:${id}`,
	delivery: `delivery:${id}:${token}`,
	run: `run:${id}`,
});

/** The node's values in n8n's database, as this package uses them. */
export interface SharedStore {
	/** Records `values`; resolves to those the store had before this call (it has them all afterwards). */
	record(values: string[]): Promise<Set<string>>;
	/** A read of the row that writes nothing: one database round trip, which cannot replace anyone's values. */
	pass(): Promise<void>;
}

/**
 * Claims the run of event `id` for the delivery `token` against the shared store: true when this run goes on,
 * false when another delivery of the event got there first.
 */
export async function claimShared(store: SharedStore, id: string, token: string): Promise<boolean> {
	const values = claimValues(id, token);
	const first = await store.record([values.event, values.delivery]);
	if (first.has(values.event)) return false;
	const back = await store.record([values.delivery]);
	if (!back.has(values.delivery)) {
		// Only reads: a write here, based on a read taken before the other claim's run marker lands, would replace it.
		for (let i = 0; i < HEAD_START_READS; i++) await store.pass();
	}
	const marker = await store.record([values.run]);
	return !marker.has(values.run);
}

// Within one running n8n the calls for a node never overlap (they would replace each other's values): a call waits
// for the one in flight, and all calls that queued up meanwhile go to n8n as one (a batch of values answers each
// caller for its own). Under load that also turns many executions' calls into a few database round trips.
interface Waiter {
	values: string[];
	resolve: (had: Set<string>) => void;
	reject: (error: unknown) => void;
}
type Call = (values: string[]) => Promise<Set<string>>;
const queued = new Map<string, { call: Call; values: Set<string>; waiters: Waiter[] }>();
const inFlight = new Set<string>();

async function flush(scope: string): Promise<void> {
	inFlight.add(scope);
	try {
		for (let batch = queued.get(scope); batch !== undefined; batch = queued.get(scope)) {
			queued.delete(scope);
			try {
				const had = await batch.call([...batch.values]);
				for (const waiter of batch.waiters) waiter.resolve(new Set(waiter.values.filter((value) => had.has(value))));
			} catch (error) {
				for (const waiter of batch.waiters) waiter.reject(error);
			}
		}
	} finally {
		inFlight.delete(scope);
	}
}

function batched(scope: string, call: Call, values: string[]): Promise<Set<string>> {
	return new Promise((resolve, reject) => {
		let batch = queued.get(scope);
		if (batch === undefined) queued.set(scope, (batch = { call, values: new Set(), waiters: [] }));
		for (const value of values) batch.values.add(value);
		batch.waiters.push({ values, resolve, reject });
		if (!inFlight.has(scope)) void flush(scope);
	});
}

/** A unique-key violation: two first-ever inserts of the node's row at once (Postgres, SQLite, MySQL wording). */
const isUniqueViolation = (error: unknown) => {
	const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
	return (
		['23505', 'SQLITE_CONSTRAINT', 'ER_DUP_ENTRY'].includes(String(code)) ||
		/unique constraint|duplicate key|duplicate entry/i.test(String(message))
	);
};

/**
 * The node's values in n8n's database, through the deduplication helper; undefined where this n8n has none.
 * `scope` names the node in this running n8n (workflow id + node id): its calls are batched one after the other.
 */
export function sharedStore(context: IExecuteFunctions, scope: string): SharedStore | undefined {
	const helpers = context.helpers;
	if (typeof helpers.checkProcessedAndRecord !== 'function' || typeof helpers.getProcessedDataCount !== 'function') return undefined;
	const call: Call = async (values) => {
		for (let attempt = 1; ; attempt++) {
			try {
				const { processed } = await helpers.checkProcessedAndRecord(values, 'node', OPTIONS);
				return new Set(processed.map(String));
			} catch (error) {
				// The other insert won: the row exists now, so the same call reads it like any later one.
				if (attempt < 3 && isUniqueViolation(error)) continue;
				throw new NodeOperationError(context.getNode(), error as Error);
			}
		}
	};
	return {
		record: async (values) => await batched(scope, call, values),
		pass: async () => {
			try {
				await helpers.getProcessedDataCount('node', OPTIONS);
			} catch (error) {
				throw new NodeOperationError(context.getNode(), error as Error);
			}
		},
	};
}

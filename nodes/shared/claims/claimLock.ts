// A lock across n8n processes, made of the one atomic step n8n's deduplication store has: a row's first insert. The
// holder inserts the row and deletes it to release; a waiter only counts its values, so waiting never writes. A dead
// holder's row is taken over, never deleted by a waiter: a delete based on a count read a moment before can land on
// the next holder's new row. A foreign row or LOCK_WAIT_MS of waiting lets the claim go on without the lock: a lock
// never stops events (docs/maintainers.md, Claims in n8n's database).
import { realClock, type Clock } from '../clock';
import { isModeRefusal, isUniqueViolation, type StoreRow } from '../n8n';

/** The clock and the dice: n8n-workflow's and Math's in n8n, a scheduler's in the tests. */
export interface LockTiming extends Clock {
	random(): number;
}

export const realTiming: LockTiming = { ...realClock, random: () => Math.random() };

/** The lock's marker: the trigger's claims and Create or Update's creates share the lock. */
const MARK = 'storefront:claim-lock';
/** A holder's row holds the marker and 1 to NONCES_MAX random values. */
const NONCES_MAX = 8;
/**
 * More values and the row is not a lock; a lock row may also hold the values of two or three racers that lost, and a
 * waiter's tag.
 */
const FOREIGN_COUNT = 4 * (NONCES_MAX + 1);
/**
 * How long one count may stand before its holder is taken for dead and its row tagged: far above HOLD_MS (./index),
 * but claims wait that long (and a quarter of it, the tag's) after a holder was killed. Each waiter adds its own
 * jitter, so two seldom tag one row at the same moment.
 */
export const LEASE_MS = 5_000;
const LEASE_JITTER_MS = 2_500;
/** Where a waiter's own count of the row takes long, the lease is at least this many such counts. */
const SLOW_LEASES = 20;
/** A claim waits at most this long for the lock, then goes on without it (and says so). */
export const LOCK_WAIT_MS = 30_000;
/** A waiter counts the row at random around POLL_MS (not in step with others), backing off past a holder's HOLD_MS. */
const POLL_MS = 10;
const BACK_OFF_AFTER_MS = 1_000;
const MAX_POLL_MS = 160;
/** Once the row is seen to be someone else's, claims of this process go on without the lock for this long. */
const FOREIGN_FOR_MS = 10 * 60_000;

const foreignUntil = new Map<string, number>();

/** Why a claim went on without the lock. 'shared row': another node of the workflow uses the lock's row (../n8n). */
export type Unlocked = 'shared row' | 'foreign row' | 'timed out' | 'error';

/** `release` (deletes the row) when the lock was had, else why not; and how long it took. */
export interface Acquired {
	release?: () => Promise<void>;
	unlocked?: Unlocked;
	waitedMs: number;
}

function pauseAfter(waitedMs: number, timing: LockTiming): number {
	const doublings =
		waitedMs < BACK_OFF_AFTER_MS ? 0 : Math.floor((waitedMs - BACK_OFF_AFTER_MS) / 1_000) + 1;
	return Math.min(MAX_POLL_MS, POLL_MS * 2 ** doublings) * (0.5 + timing.random());
}

/** Takes the lock of `row` (`key` names it in this process), or says why the claim goes on without it. */
export async function acquireLock(
	row: StoreRow,
	key: string,
	timing: LockTiming,
): Promise<Acquired> {
	const started = timing.now();
	const without = (unlocked: Unlocked): Acquired => ({
		unlocked,
		waitedMs: timing.now() - started,
	});
	const foreign = (): Acquired => {
		// Workflows whose time is up leave (one deleted never asks again).
		for (const [other, until] of foreignUntil)
			if (until <= timing.now()) foreignUntil.delete(other);
		foreignUntil.set(key, timing.now() + FOREIGN_FOR_MS);
		return without('foreign row');
	};
	const held = (): Acquired => ({
		release: async () => await row.clear(),
		waitedMs: timing.now() - started,
	});
	const lease = LEASE_MS + timing.random() * LEASE_JITTER_MS;
	const nonce = () => `${MARK}:${timing.random().toString(36).slice(2)}`;
	/** After a write to a row thought held found no marker: it inserted the row (held), or the row is another node's. */
	const inserted = async (values: string[]): Promise<Acquired> => {
		if ((await row.count()) === values.length) return held();
		await row.remove(values);
		return foreign();
	};
	let seen = -1;
	let seenSince = started;
	/**
	 * This waiter's value in a row it took for a dead holder's: the row's count with it, and since when. The same row
	 * with that count a quarter lease on is dead (a live holder releases long before), and this waiter holds it; other
	 * waiters saw the count change, so none tags it again before a lease.
	 */
	let tag: { value: string; count: number; since: number } | undefined;
	let slowestCount = 0;
	for (;;) {
		const now = timing.now();
		if ((foreignUntil.get(key) ?? 0) > now) return without('foreign row');
		let count: number;
		try {
			count = await row.count();
		} catch {
			return without('error');
		}
		// A database (or an event loop) this slow slows the holder too: the lease grows with it.
		slowestCount = Math.max(slowestCount, timing.now() - now);
		const leaseNow = Math.max(lease, SLOW_LEASES * slowestCount);
		try {
			if (count === 0) {
				// Released: whoever inserts first holds it; a waiter's tag and count went with the row.
				tag = undefined;
				seen = -1;
				const values = [MARK];
				const nonces = 1 + Math.floor(timing.random() * NONCES_MAX);
				for (let i = 0; i < nonces; i++) values.push(nonce());
				try {
					// No marker before: this call inserted the row. Else it only added values to a row inserted since the count.
					if (!(await row.record(values)).has(MARK)) return held();
				} catch (error) {
					if (isModeRefusal(error)) return foreign();
					if (!isUniqueViolation(error)) return without('error');
					// Another insert won: held.
				}
			} else if (count > FOREIGN_COUNT) {
				return foreign();
			} else if (tag) {
				const due = timing.now() - tag.since >= leaseNow / 4;
				if (count === tag.count && due) {
					// The tag still in it: the same row, unchanged since the tag (a row inserted since has no tag), held.
					const had = await row.record([MARK, tag.value]);
					if (!had.has(MARK)) return await inserted([MARK, tag.value]);
					if (had.has(tag.value)) return held();
				}
				if (count !== tag.count || due) {
					// Another waiter tagged it too, or it changed hands: the tag goes, and the count is watched anew.
					await row.remove([tag.value]);
					tag = undefined;
					seen = -1;
				}
			} else if (count !== seen) {
				seen = count;
				seenSince = timing.now();
			} else if (timing.now() - seenSince >= leaseNow) {
				// A dead holder, a row that changed hands unseen, or someone else's row of that size: tagged to find out.
				const value = nonce();
				if (!(await row.record([MARK, value])).has(MARK)) return await inserted([MARK, value]);
				tag = { value, count: count + 1, since: timing.now() };
			}
		} catch (error) {
			return isModeRefusal(error) ? foreign() : without('error');
		}
		if (timing.now() - started >= LOCK_WAIT_MS) return without('timed out');
		await timing.sleep(pauseAfter(timing.now() - started, timing));
	}
}

/** The pause before taking the lock again just released: longer than a waiter's, so that a waiter takes its turn. */
export const turnGap = (timing: LockTiming) => POLL_MS * (1.5 + timing.random());

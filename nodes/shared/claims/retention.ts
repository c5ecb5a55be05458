// "Remember Events For": claims are kept in n8n's database for a time, whatever their number. n8n's store keeps a
// row's values hashed, oldest first, and drops the oldest only by count (maxEntries). So the row is cut into periods
// of a third of that time. The first claim made under the lock in a new period drops everything before the marker of
// the period a full retention back, then marks where the new period starts: a marker value, its position and the
// number of values it dropped, each written as bits (one value per bit that is set), since a hashed value cannot be
// read back, only found. A marker's position then is where it was written less what later periods dropped. A claim is
// kept between the full time and a third more (docs/maintainers.md, Claims in n8n's database). Only a process that
// holds the lock does this, so no other write moves the row meanwhile; each n8n process that claims pays four calls
// for it once a period.
import type { StoreRow } from './claimLock';

export const DEFAULT_REMEMBER_HOURS = 72;
/** A retention is cut into this many periods. */
const PERIODS = 3;
/** How many periods before that are looked at too: after a quiet time the row has no newer marker. */
const LOOK_BACK = 6;
/** Positions are written with this many bits: up to 2^21 values, above the row's cap. */
const BITS = 21;
/**
 * Values the row keeps at most, whatever their age (n8n drops the oldest past it): the bound of a row whose periods
 * are never turned, as when every claim goes without the lock (docs/performance.md gives its size).
 */
export const MAX_ROW_VALUES = 300_000;

const mark = (period: number) => `period:${period}`;
const bitValues = (period: number, what: 'at' | 'cut') =>
	Array.from({ length: BITS }, (_, i) => `period:${period}:${what}:${i}`);
const encode = (period: number, what: 'at' | 'cut', n: number) =>
	bitValues(period, what).filter((_, i) => Math.floor(n / 2 ** i) % 2 === 1);
const decode = (period: number, what: 'at' | 'cut', had: Set<string>) =>
	bitValues(period, what).reduce((sum, value, i) => sum + (had.has(value) ? 2 ** i : 0), 0);

/** The period a claim made at `now` belongs to, for a retention of `retentionMs`. */
export const periodOf = (now: number, retentionMs: number) =>
	Math.floor(now / Math.max(1, Math.floor(retentionMs / PERIODS)));

/** Per node (process memory): the period whose marker this process knows to be in the row. */
const marked = new Map<string, number>();

/**
 * Called under the lock before a batch is recorded: in a new period, drops the claims older than the retention and
 * marks the period's start. `row.record(values, keepLast)` records, then keeps only the last `keepLast` values.
 */
export async function turnPeriod(
	scope: string,
	row: StoreRow,
	retentionMs: number,
	now: number,
): Promise<void> {
	const period = periodOf(now, retentionMs);
	if (marked.get(scope) === period) return;
	const count = await row.count();
	const earlier = Array.from({ length: PERIODS + LOOK_BACK }, (_, i) => period - 1 - i);
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
		const from = present.find((p) => p <= period - PERIODS);
		let cut = 0;
		if (from !== undefined) {
			const droppedSince = present
				.filter((p) => p > from)
				.reduce((sum, p) => sum + decode(p, 'cut', had), 0);
			cut = decode(from, 'at', had) - droppedSince;
			// Not what a row of these markers can hold (a row cut by its cap): nothing is dropped.
			if (cut < 0 || cut > count) cut = 0;
		}
		const at = count - cut;
		const values = [mark(period), ...encode(period, 'at', at), ...encode(period, 'cut', cut)];
		await row.record(values, cut > 0 ? at + values.length : undefined);
	}
	marked.set(scope, period);
}

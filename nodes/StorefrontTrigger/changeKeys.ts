// The claim keys of Drop Duplicate Events (docs/trigger.md, Once across both paths): what one change is claimed by, in
// this n8n's memory (./ranHere) and in n8n's database (../shared/claims). A key is made of the change alone, never of
// what a process remembers, so a delivery, a catch-up and a check of one change meet in the database however many
// restarts lie between. A status change is the order reaching its status at a time: a return to a status is another
// time, so it runs again; a delivery dates it by its created_at, a reading by the order's updated_at, and the two meet
// when the event came within a second after the update (docs/api-contract.md, row 23), to the tenth of a second. A
// reading that cannot date it (no updated_at, or the order's last change was its payment) knows a window it happened
// in, and meets what was claimed within that window, to the second.
// The table of change keys (test/trigger/changeKeys.test.ts names each row):
// | change                                | recorded                            | ran if the row has                  |
// | ------------------------------------- | ----------------------------------- | ----------------------------------- |
// | order.created, payment.completed      | `<type>/<order>`                    | the same                            |
// | product.created                       | `product.created/<product>`         | the same                            |
// | order.updated delivered at t (its     | `order.updated/<order>/<S>@<t>`;    | a reading's `@rd` tenth, of u from  |
// | created_at, to the millisecond)       | if it ran, t's tenth `@d`, second   | a second before t to 10 ms after;   |
// |                                       | `@s`, minute `@m`, hour `@h`        | a window's `@ws`/`@wm`/`@wh` of t   |
// | order.updated read at u (updated_at)  | `…@r<u>`; if it ran, u's `@rd`,     | a delivery's `@d` tenth, of t from  |
// |                                       | `@rs`, `@m`, `@h`                   | 10 ms before u to a second after;   |
// |                                       |                                     | a window's marks of u               |
// | order.updated read in [a, b] (a       | `…@w<b>`; if it ran, `@ws`/`@wm`/   | `@s`/`@rs`/`@m`/`@h` in [a, b];     |
// | reading that cannot date it)          | `@wh` for its seconds, minutes,     | another window's marks of them, of  |
// |                                       | hours; `@wtm`/`@wth` for the        | the minutes and hours they lie in,  |
// |                                       | minutes and hours they lie in       | and touched ones of its whole ones  |
// | other kinds; an order.updated keeping | its event id                        | the same                            |
// | its previous_status or without a time |                                     |                                     |
// | activity: any order.updated above, at | `order/<order>@a<second>` beside it | never: a young creation or delivered|
// | t, u or a window's end                |                                     | status change looks for its order's |
// |                                       |                                     | seconds since (laterRan, superseded)|
// Memory narrows it (./statusesKnown): the claim of the stay it saw is looked for too (not a delivery's by a delivery:
// two deliveries of one change have one created_at), and the claims of an earlier stay in the same status are not.
import type { IDataObject } from 'n8n-workflow';

import { eventRecordId, isObject } from '../shared/transport';
import type { Claim } from '../shared/claims';
import { timeOf } from '../shared/changes/read';
import { INITIAL_STATUS } from '../shared/changes/events';
import { judge, noteStatus, type Judgement } from './statusesKnown';

const TENTH = 100;
const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
/**
 * A change's event is created when the order is updated, or up to a second later (contract row 23); a little before
 * it is taken as the same moment on another clock.
 */
const EVENT_AFTER_MS = 1_000;
const EVENT_BEFORE_MS = 10;
/** A delivered status change's key: `order.updated/<order>/<status>@<created_at>`. */
const DELIVERED = /^order\.updated\/.*@\d+$/;

/**
 * An order's activity in a second: some change of its status at that second ran (or was found run). A young change
 * that finds one since it happened asks the service whether it is superseded (./superseded): a later change may have
 * reached another process (queue mode) or run before a restart.
 */
export const activityMark = (order: string, second: number) => `order/${order}@a${second}`;

/** The latest second of these activity marks, if any. */
export const latestActivity = (marks: string[]) =>
	marks.length
		? Math.max(...marks.map((mark) => Number(mark.slice(mark.lastIndexOf('@a') + 2))))
		: undefined;

/** The other path's marks (`tenths` + tenth of a second) of the tenths that [lo, hi] touches. */
const near = (tenths: string, lo: number, hi: number) =>
	Array.from(
		{ length: Math.max(0, Math.floor(hi / TENTH) - Math.floor(lo / TENTH) + 1) },
		(_, i) => `${tenths}${Math.floor(lo / TENTH) + i}`,
	);

/** The seconds, whole minutes and whole hours that cover [from, to]: a window's marks, few at any length. */
function cover(from: number, to: number) {
	const marks = { s: [] as number[], m: [] as number[], h: [] as number[] };
	const last = Math.floor(to / SECOND);
	for (let second = Math.floor(from / SECOND); second <= last; ) {
		const whole = (length: number) => second % length === 0 && second + length - 1 <= last;
		const step = whole(3_600) ? 3_600 : whole(60) ? 60 : 1;
		marks[step === 3_600 ? 'h' : step === 60 ? 'm' : 's'].push(second / step);
		second += step;
	}
	return marks;
}

/**
 * An order's change to `status` at `at` (epoch ms): a delivery's (its created_at), or a reading's (`read`: the order's
 * updated_at), which meet when the event came at the update or within a second after it; or within
 * [`known.window`, `at`] for a reading that cannot date it. What this n8n knows narrows it: not the claims of an
 * earlier stay in the same status (`earlier`), and the claim of the stay it saw (`stay`).
 */
function statusClaim(
	order: string,
	status: string,
	at: number,
	read: boolean,
	{ window: from, earlier, stay }: Judgement,
): Claim {
	const change = `order.updated/${order}/${status}`;
	if (from === undefined) {
		const [tenth, second] = [Math.floor(at / TENTH), Math.floor(at / SECOND)];
		const [minute, hour] = [Math.floor(at / MINUTE), Math.floor(at / HOUR)];
		const [lo, hi] = read
			? [at - EVENT_BEFORE_MS, at + EVENT_AFTER_MS]
			: [at - EVENT_AFTER_MS, at + EVENT_BEFORE_MS];
		// Not the tenths of an earlier stay in this status: their marks are that stay's.
		const after =
			earlier === undefined ? lo : Math.max(lo, (Math.floor(earlier / TENTH) + 1) * TENTH);
		const [mine, other] = read ? ['r', ''] : ['', 'r'];
		// Two deliveries of one change have one created_at: a stay this n8n saw delivered at another time is another
		// change, a return it did not see the order leave (the status between went to another webhook processor).
		const sameStay = stay !== undefined && (read || !DELIVERED.test(stay)) ? [stay] : [];
		return {
			key: `${change}@${mine}${at}`,
			alike: [...near(`${change}@${other}d`, after, hi), ...sameStay],
			notes: [activityMark(order, second)],
			// Kept only if it ran: a claim that lost to an earlier stay's marks within its tenth (a return whose status
			// between never came, after a restart) must not take its own change's late delivery for a run.
			marks: [
				`${change}@${mine}d${tenth}`,
				`${change}@${mine}s${second}`,
				`${change}@m${minute}`,
				`${change}@h${hour}`,
			],
			probes: [`${change}@ws${second}`, `${change}@wm${minute}`, `${change}@wh${hour}`],
		};
	}
	// A window starts after the seconds of an earlier stay in this status: their marks are that stay's.
	const start =
		earlier === undefined ? from : Math.max(from, (Math.floor(earlier / SECOND) + 1) * SECOND);
	const { s, m, h } = cover(Math.min(start, at), at);
	const marks = (grain: string, units: number[]) =>
		units.map((unit) => `${change}@${grain}${unit}`);
	const window = [...marks('ws', s), ...marks('wm', m), ...marks('wh', h)];
	// Two windows meet however each was cut: the minutes and hours its seconds and minutes lie in are marked touched
	// (`@wtm`, `@wth`), so a window covering a whole one finds them, and a second or minute looks for the whole ones.
	const within = (units: number[], size: number) => [
		...new Set(units.map((unit) => Math.floor(unit / size))),
	];
	const minutesOfSeconds = within(s, 60);
	const hoursTouched = within([...minutesOfSeconds, ...m], 60);
	return {
		key: `${change}@w${at}`,
		notes: [activityMark(order, Math.floor(at / SECOND))],
		// Taken out again if it lost: a late delivery inside the window of a reading that found its change claimed runs.
		marks: [...window, ...marks('wtm', minutesOfSeconds), ...marks('wth', hoursTouched)],
		alike: stay ? [stay] : [],
		probes: [
			...marks('s', s),
			...marks('rs', s),
			...marks('m', m),
			...marks('h', h),
			...window,
			...marks('wm', minutesOfSeconds),
			...marks('wh', hoursTouched),
			...marks('wtm', m),
			...marks('wth', h),
		],
	};
}

/**
 * What one change is claimed by, whichever path reports it: the record's id and what changed, with the change's time
 * (`created_at`) or, for a reading that cannot date it, the start of its window (`from`). Undefined (the event's own id
 * is claimed) for other kinds, incomplete data, an unchanged status, an update without a time.
 */
export function changeClaim(
	type: unknown,
	data: unknown,
	createdAt: unknown,
	read = false,
	known: Judgement = {},
): Claim | undefined {
	if (!isObject(data)) return undefined;
	const order = eventRecordId(data, 'order');
	switch (type) {
		case 'order.created':
		case 'payment.completed':
			return order ? { key: `${type}/${order}` } : undefined;
		case 'order.updated': {
			const { status, previous_status: stated } = data;
			const at = timeOf(createdAt);
			if (!order || typeof status !== 'string' || status === stated || Number.isNaN(at))
				return undefined;
			return statusClaim(order, status, at, read, known);
		}
		case 'product.created': {
			const product = eventRecordId(data, 'product');
			return product ? { key: `${type}/${product}` } : undefined;
		}
		default:
			return undefined;
	}
}

/**
 * What an event (a delivery's, or a reading's when `read`) is claimed by: its change, else its own id. `known`: what
 * the process that read it knew.
 */
export const claimOf = (
	{ id, type, data, created_at }: IDataObject,
	read: boolean,
	known?: Judgement,
): Claim => changeClaim(type, data, created_at, read, known) ?? { key: String(id) };

/** The keys of a change in this n8n's memory (./ranHere): its own, and the other path's within a second. */
export const keysOf = (claim: Claim) => [claim.key, ...(claim.alike ?? [])];

/** The order and status an event moves an order to, and when (its created_at, else `now`). */
export function statusChange({ type, data, created_at }: IDataObject, now: number) {
	if (!isObject(data)) return undefined;
	const order = eventRecordId(data, 'order');
	if (order === undefined) return undefined;
	const created = timeOf(created_at);
	const at = Number.isNaN(created) ? now : created;
	if (type === 'order.created') return { order, status: String(data.status ?? INITIAL_STATUS), at };
	if (type === 'order.updated' && typeof data.status === 'string')
		return { order, status: data.status, at };
	return undefined;
}

/**
 * What this n8n knows of an event's change (a delivery's, or a reading's when `read`), and its claim. `from`: a
 * reading's change it cannot date happened after it; narrowed to after the last other status this n8n knows of the
 * order. The change is noted as a sighting.
 */
export function knowChange(
	scope: string,
	event: IDataObject,
	read: boolean,
	now: number,
	from?: number,
) {
	const change = statusChange(event, now);
	if (change === undefined) return { claim: claimOf(event, read) };
	const known: Judgement = {
		...judge(scope, change.order, change.status, change.at),
		judgedAt: now,
	};
	if (from !== undefined && event.type === 'order.updated')
		known.window = Math.max(from, (known.after ?? -Infinity) + 1);
	const claim = claimOf(event, read, known);
	// A creation's stay is not a status change's: an update's claim names the stay it brought the order into. A window's
	// does not: what it finds claimed may be an earlier stay in the window.
	const key = event.type === 'order.updated' && known.window === undefined ? claim.key : undefined;
	noteStatus(scope, change.order, { status: change.status, at: change.at, read, key });
	return { claim, known };
}

/** A reading's undated change ran: its claim names its stay now, so its late deliveries are known at the door. */
export function knowStay(scope: string, event: IDataObject, claim: Claim, known?: Judgement): void {
	const change = known?.window === undefined ? undefined : statusChange(event, Date.now());
	if (change === undefined) return;
	noteStatus(scope, change.order, {
		status: change.status,
		at: change.at,
		read: true,
		key: claim.key,
	});
}

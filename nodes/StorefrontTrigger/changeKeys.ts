// The claim keys of Drop Duplicate Events, in this n8n's memory (./ranHere) and in n8n's database (../shared/claims),
// from the event and what this n8n knows of its order (./statusesKnown).
import type { IDataObject } from 'n8n-workflow';

import { eventRecordId, isObject } from '../shared/transport';
import type { Claim } from '../shared/claims';
import { timeOf } from '../shared/changes/read';
import { INITIAL_STATUS } from '../shared/changes/events';
import { claimsBefore, hears, judge, noteStatus, readsHere, type Judgement } from './statusesKnown';

/**
 * What one change is claimed by, whichever path reports it (docs/trigger.md, Once across both paths): the record's id
 * and what changed. Undefined (the event's own id is claimed) for other kinds, incomplete data, an unchanged status.
 */
export function changeClaim(
	type: unknown,
	data: unknown,
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
			if (!order || typeof status !== 'string' || status === stated) return undefined;
			if (known.stay) return { key: known.stay };
			// The change from the status before to this one, so a return to a status runs again. Where nothing says the
			// status before (a reading's own guess is not used): the order reaching its status, which ran if any change to
			// that status ran.
			const reached = `${type}/${order}/${status}`;
			const readOnly = `${reached}/read`;
			const before = !read && typeof stated === 'string' ? stated : known.before;
			// Only a reading marks it read: a delivery that knows no status before is no reason to drop a later return.
			if (before === undefined || before === status)
				return read ? { key: reached, ranIf: [readOnly] } : { key: reached };
			const change = {
				key: `${type}/${order}/${before}/${status}${known.again ? `#${known.again}` : ''}`,
				notes: [reached],
			};
			// A reading in another process (queue mode's main) may have run it as the status reached.
			return known.readsHere ? change : { ...change, probes: [readOnly] };
		}
		case 'product.created': {
			const product = eventRecordId(data, 'product');
			return product ? { key: `${type}/${product}` } : undefined;
		}
		default:
			return undefined;
	}
}

/** What an event (a delivery's, or a reading's when `read`) is claimed by: its change, else its own id. */
export const claimOf = ({ id, type, data }: IDataObject, read: boolean, known?: Judgement): Claim =>
	changeClaim(type, data, read, known) ?? { key: String(id) };

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
 * What this n8n knows of an event's change, and its claim: `read` for a reading's (whose guess of the status before is
 * used only where this process also receives the deliveries). The change is noted as a sighting of its order.
 */
export function knowChange(scope: string, event: IDataObject, read: boolean, now: number) {
	const change = statusChange(event, now);
	if (change === undefined) return { claim: claimOf(event, read) };
	const known = judge(scope, change.order, change.status, change.at);
	if (read && !hears(scope)) delete known.before;
	known.readsHere = readsHere(scope);
	let claim = claimOf(event, read, known);
	// The same change made again, in a later stay: a claim of its own (the one before it ran).
	const made = claimsBefore(scope, change.order, change.at).filter(
		(key) => key === claim.key || key.startsWith(`${claim.key}#`),
	);
	if (claim.notes && made.length) {
		known.again = Math.max(...made.map((key) => Number(key.split('#')[1] ?? 1))) + 1;
		claim = claimOf(event, read, known);
	}
	// A creation's stay is not a status change's: an update to its status claims the status reached.
	const key = event.type === 'order.updated' ? claim.key : undefined;
	noteStatus(scope, change.order, { status: change.status, at: change.at, key, read });
	return { claim, known };
}

// The claim keys of Drop Duplicate Events: what one delivery, or one change a reading found, is claimed by in this
// n8n's memory (./ranHere) and in n8n's database (../shared/claims). With Catch Up After Downtime on, a delivery and a
// reading that report the same change claim the same key, so whichever path brings it first runs it, once.
import type { IDataObject } from 'n8n-workflow';

import { eventRecordId, isObject } from '../shared/transport';
import type { Claim } from '../shared/claims';

/**
 * What one change is claimed by, whichever path reports it (docs/trigger.md, Once across both paths). A delivery and a
 * reading carry different ids (`evt_…`, `poll_…`) and maybe different optional fields, so the claim is built from the
 * record's id (`<resource>_id` before `id`: a payment may come as `{id: "pay_…", order_id}`) and what changed alone.
 * An order.updated with previous_status (a delivery) claims the change from it, so a return to a status runs again,
 * and notes that the order reached the status; one without it (a reading) claims the order reaching its status, which
 * ran if any change to that status ran. Undefined (the event's own id is claimed instead) for other kinds, for data
 * without the fields, and for an update that says it kept its status.
 */
export function changeClaim(type: unknown, data: unknown, read = false): Claim | undefined {
	if (!isObject(data)) return undefined;
	const order = eventRecordId(data, 'order');
	switch (type) {
		case 'order.created':
		case 'payment.completed':
			return order ? { key: `${type}/${order}` } : undefined;
		case 'order.updated': {
			const { status, previous_status: previous } = data;
			if (!order || typeof status !== 'string' || status === previous) return undefined;
			const reached = `${type}/${order}/${status}`;
			const readOnly = `${reached}/read`;
			if (read || typeof previous !== 'string') return { key: reached, ranIf: [readOnly] };
			return {
				key: `${type}/${order}/${previous}/${status}`,
				notes: [reached],
				probes: [readOnly],
			};
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
export const claimOf = ({ id, type, data }: IDataObject, read: boolean): Claim =>
	changeClaim(type, data, read) ?? { key: String(id) };

/** The key a reading's change is claimed by. */
export const claimKey = (event: IDataObject) => claimOf(event, true).key;

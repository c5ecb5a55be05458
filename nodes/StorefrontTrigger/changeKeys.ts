// The claim keys of Drop Duplicate Events, in this n8n's memory (./ranHere) and in n8n's database (../shared/claims).
import type { IDataObject } from 'n8n-workflow';

import { eventRecordId, isObject } from '../shared/transport';
import type { Claim } from '../shared/claims';

/**
 * What one change is claimed by, whichever path reports it (docs/trigger.md, Once across both paths): the record's id
 * and what changed. Undefined (the event's own id is claimed) for other kinds, incomplete data, an unchanged status.
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
			// With the status before (a delivery): that change, so a return to a status runs again. Without it (a
			// reading): the order reaching its status, which ran if any change to that status ran.
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

// The claim keys of Drop Duplicate Events: what one delivery, or one change a reading found, is claimed by in this
// n8n's memory (./ranHere) and in n8n's database (../shared/claims). With Catch Up After Downtime on, a delivery and a
// reading that report the same change claim the same key, so whichever path brings it first runs it, once.
import type { IDataObject } from 'n8n-workflow';

import { eventRecordId, isObject } from '../shared/transport';
import type { Claim } from '../shared/claims';

/**
 * What one change is, whichever path reports it: kind, record and the change itself. A webhook event and the event a
 * read makes of the same change carry different ids (the service's `evt_…`, a read's `poll_…`) and may carry different
 * optional fields (`previous_status`, `payment_id`, `updated_at`: the spec shows none of them), so the claim is built
 * from the record's id (`<resource>_id` before `id`: a payment may come as `{id: "pay_…", order_id}`) and what
 * changed alone.
 *  - order.created, product.created, payment.completed: once per order or product (an order is paid once).
 *  - order.updated with previous_status (a delivery): the change from that status to this one, so an order that
 *    returns to a status runs again; it notes that the order reached the status, and finds a reading's run of it.
 *  - order.updated without it (a reading, or a service that sends the order as it is): the order reaching its status,
 *    however: it ran if any change to that status ran. A return to a status is lost where nothing tells it apart.
 *  Only an update that says it kept the status (previous_status equal to status) has no claim: its event id is
 *  claimed (docs/trigger.md, Catch Up After Downtime).
 * Undefined (the event's own id is claimed instead) for other kinds and for data without the fields.
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

// The events a poll reports from the records changed since its cursor, in the webhook events' shape (contract row 16),
// so a workflow can switch triggers without changing its other nodes. Ids: docs/polling-trigger.md, Item ids.
import type { IDataObject } from 'n8n-workflow';

import { recordId } from '../transport';
import type { EventKind } from '../constants';
import { changedAt, hasUpdatedAt, timeOf } from './read';
import {
	MAX_AT_CURSOR,
	MAX_LOW,
	MAX_STATUSES,
	RecentMap,
	type OrderState,
	type ProductState,
} from './state';

/** Every order starts in this status (contract row 12); an order created and changed between two polls reports it. */
export const INITIAL_STATUS = 'pending';

export interface PolledEvent extends IDataObject {
	id: string;
	type: EventKind;
	created_at: string;
	data: IDataObject;
}

interface Timed {
	at: number;
	event: PolledEvent;
	/** Found by comparison with the remembered status or stock: that memory, not the cursor, reports it once. */
	compared?: boolean;
	/** A status change the record does not date (no updated_at, or the order's last change was its payment): it
	 * happened after this (the order's creation) and by `at`. */
	from?: number;
}

const RANK: Record<EventKind, number> = {
	'product.created': 0,
	'order.created': 1,
	'order.updated': 2,
	'payment.completed': 3,
	'inventory.low': 4,
};

/** Oldest change first; at the same millisecond creations before changes, then by record id. */
export function byTime(a: Timed, b: Timed): number {
	return (
		a.at - b.at ||
		RANK[a.event.type] - RANK[b.event.type] ||
		(a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0)
	);
}

function event(type: EventKind, record: string, at: number, data: IDataObject, suffix = ''): Timed {
	const id = `poll_${type}_${record}${suffix ? `_${suffix}` : ''}`;
	return { at, event: { id, type, created_at: new Date(at).toISOString(), data } };
}

export function orderData(order: IDataObject, status = order.status): IDataObject {
	const { store_id, total, currency } = order;
	const items = Array.isArray(order.items) ? order.items : [];
	return { order_id: recordId(order, 'order'), store_id, total, currency, status, items };
}

/** payment.completed as far as an order record shows it: no payment id or method (set to null), `paid_at` added. */
export function paymentData(order: IDataObject): IDataObject {
	return {
		payment_id: null,
		order_id: recordId(order, 'order'),
		store_id: order.store_id,
		amount: order.total,
		currency: order.currency,
		method: null,
		paid_at: order.paid_at,
	};
}

export function productData(product: IDataObject): IDataObject {
	const { store_id, name, sku, category, price, currency, stock, status } = product;
	const product_id = recordId(product, 'product');
	return { product_id, store_id, name, sku, category, price, currency, stock, status };
}

/** Whether a product's stock is at or below the threshold (a product without a numeric stock is not). */
export const isLowStock = (product: IDataObject, threshold: number) =>
	typeof product.stock === 'number' && product.stock <= threshold;

export function lowStockData(product: IDataObject, threshold: number): IDataObject {
	const { store_id, name, sku, stock } = product;
	return { product_id: recordId(product, 'product'), store_id, name, sku, stock, threshold };
}

/** Moves the cursor to `newest`: the events not already emitted at the old one; remembers the ids at the new one. */
function advanceCursor<S extends { cursor: number; atCursor: string[] }>(
	found: Timed[],
	state: S,
	newest: number,
): Timed[] {
	const already = new Set(state.atCursor);
	const events = found.filter((e) => !already.has(e.event.id));
	const cursor = Number.isNaN(newest) ? state.cursor : Math.max(state.cursor, newest);
	const atCursor = cursor === state.cursor ? [...state.atCursor] : [];
	// The next poll re-reads the cursor's millisecond, and events later than their record's updated_at (a paid_at
	// ahead of updated_at): their ids are kept.
	for (const e of found)
		if (e.at >= cursor && !e.compared && !atCursor.includes(e.event.id)) atCursor.push(e.event.id);
	state.cursor = cursor;
	state.atCursor = atCursor.slice(-MAX_AT_CURSOR);
	return events;
}

/** The records with an id and a time, oldest change first, with the times their events carry. */
function* changes(records: Iterable<IDataObject>, resource: string, now: number) {
	for (const record of [...records].sort((a, b) => changedAt(a) - changedAt(b))) {
		const id = recordId(record, resource);
		if (id === undefined || Number.isNaN(changedAt(record))) continue;
		const stamped = hasUpdatedAt(record);
		const updated = stamped ? changedAt(record) : now;
		yield { record, id, stamped, updated, created: timeOf(record.created_at) };
	}
}

/**
 * Order events since the cursor: a status differing from the one at the last poll is one order.updated, however many
 * changes it went through. An order not remembered reports previous_status null, unless its change is its payment
 * (paid_at = updated_at); without updated_at its change cannot be told from none. `now` dates records without it.
 * `returns`: an order updated since the cursor in the status remembered is reported too (it may have left it and come
 * back), for a reader whose claims know the changes already reported by their time (the Storefront Trigger's).
 */
export function orderEvents(
	records: Iterable<IDataObject>,
	state: OrderState,
	newest: number,
	wanted: Set<string>,
	now: number,
	returns = false,
): Timed[] {
	const statuses = new RecentMap(state.statuses, MAX_STATUSES);
	const found: Timed[] = [];
	for (const { record: order, id, stamped, updated, created } of changes(records, 'order', now)) {
		const paid = timeOf(order.paid_at);
		const status = typeof order.status === 'string' ? order.status : undefined;
		const isNew = created >= state.cursor && !statuses.has(id);
		let previous = statuses.get(id);
		if (isNew) {
			previous = INITIAL_STATUS;
			if (wanted.has('order.created'))
				found.push(event('order.created', id, created, orderData(order, INITIAL_STATUS)));
		}
		const changedSince = stamped && paid !== updated && updated !== created;
		const statusChanged =
			previous !== undefined && !(returns && changedSince) ? status !== previous : changedSince;
		if (status !== undefined && statusChanged && wanted.has('order.updated')) {
			// A return's status before is not the one remembered (that is its status too): unknown.
			const before = previous === status ? null : (previous ?? null);
			const data = { ...orderData(order), previous_status: before };
			const e = event('order.updated', id, updated, data, `${status}_${updated}`);
			const dated = stamped && paid !== updated;
			found.push({ ...e, compared: !stamped, ...(dated ? {} : { from: created || -Infinity }) });
		}
		if (paid >= state.cursor && wanted.has('payment.completed'))
			found.push(event('payment.completed', id, paid, paymentData(order)));
		if (status !== undefined) statuses.set(id, status);
	}
	state.statuses = [...statuses];
	return advanceCursor(found, state, newest);
}

/** Product events since the cursor: product.created, and inventory.low once per fall (docs/polling-trigger.md). */
export function productEvents(
	records: Iterable<IDataObject>,
	state: ProductState,
	newest: number,
	wanted: Set<string>,
	threshold: number,
	now: number,
): Timed[] {
	const low = new RecentMap(
		state.low.map((id): [string, true] => [id, true]),
		MAX_LOW,
	);
	const found: Timed[] = [];
	for (const { record, id, stamped, updated, created } of changes(records, 'product', now)) {
		const isLow = isLowStock(record, threshold);
		const isNew = created >= state.cursor;
		if (isNew && wanted.has('product.created'))
			found.push(event('product.created', id, created, productData(record)));
		// A product created low and not changed since did not fall (no inventory.low, as with the webhook).
		if (
			isLow &&
			!low.has(id) &&
			(!isNew || (stamped && updated > created)) &&
			wanted.has('inventory.low')
		) {
			const data = lowStockData(record, threshold);
			const e = event('inventory.low', id, updated, data, String(updated));
			found.push({ ...e, compared: !stamped });
		}
		if (isLow) low.set(id, true);
		else if (typeof record.stock === 'number') low.delete(id);
	}
	state.low = [...low.keys()];
	return advanceCursor(found, state, newest);
}

/**
 * The changes in `records` since `since`, for a reader that keeps nothing of a list but each order's status (the
 * Storefront Trigger's catch-up): what the polling trigger finds from a cursor there, returns included, and the
 * statuses after them. A product low at the read and changed since `since` reports its fall (nothing remembers lows).
 */
export function changesSince(
	resource: 'orders' | 'products',
	records: Iterable<IDataObject>,
	since: number,
	statuses: Array<[string, string]>,
	newest: number,
	wanted: Set<string>,
	now: number,
): { events: Timed[]; statuses: Array<[string, string]> } {
	const from = { cursor: since, atCursor: [], sorted: true };
	if (resource === 'products')
		return {
			events: productEvents(records, { ...from, low: [] }, newest, wanted, 0, now),
			statuses,
		};
	const state: OrderState = { ...from, statuses };
	return {
		events: orderEvents(records, state, newest, wanted, now, true),
		statuses: state.statuses,
	};
}

// Reading what changed since the cursor from a list the service orders most recently changed first (contract row 21):
// page 1, 2, … until a page ends before the cursor, so a poll with nothing new costs one request. A list in another
// order, or without `updated_at`, is read whole on every poll.
import type { IDataObject } from 'n8n-workflow';

import { recordId, type StorefrontClient } from '../transport';
import type { EventKind } from '../constants';

export const ORDER_KINDS: EventKind[] = ['order.created', 'order.updated', 'payment.completed'];
export const PRODUCT_KINDS: EventKind[] = ['product.created', 'inventory.low'];

export type Resource = 'orders' | 'products';

export const resourceOf = (kind: EventKind): Resource =>
	PRODUCT_KINDS.includes(kind) ? 'products' : 'orders';

/** A record's time field as epoch ms (NaN when absent or not a date). */
export function timeOf(value: unknown): number {
	return typeof value === 'string' && value !== '' ? Date.parse(value) : Number.NaN;
}

/** When a record last changed: `updated_at`, or `created_at` for a service that keeps no `updated_at`. */
export function changedAt(record: IDataObject): number {
	const updated = timeOf(record.updated_at);
	return Number.isNaN(updated) ? timeOf(record.created_at) : updated;
}

/** Whether a record says when it last changed; without `updated_at` only a comparison with what was seen tells. */
export const hasUpdatedAt = (record: IDataObject) => !Number.isNaN(timeOf(record.updated_at));

export interface ChangeRead {
	/** Records changed at or after the cursor (every record read when there is no cursor), by id, the last read kept. */
	records: Map<string, IDataObject>;
	/** Whether every page read was most recently changed first. */
	sorted: boolean;
	/** Whether every record read carries `updated_at` (false: the whole list was read, every record is in `records`). */
	stamped: boolean;
	/** Records skipped: no id under any accepted name, or no time field (neither `updated_at` nor `created_at`). */
	skipped: { noId: number; noTime: number };
	requests: number;
	/** The newest change time read (NaN when the list was empty). */
	newest: number;
}

/** A deletion while paging moves records up by one, so the one at a page boundary could go unread: read again. */
const MAX_READS = 3;

/**
 * Reads the records changed at or after `cursor`, or without one (the baseline) `baselinePages` pages at least, at the
 * contract's largest page size; `beforeRequest` is awaited before each page.
 */
export async function readChanges(
	client: StorefrontClient,
	resource: Resource,
	cursor: number | undefined,
	baselinePages: number,
	beforeRequest?: () => Promise<void>,
): Promise<ChangeRead> {
	let requests = 0;
	const walk = {
		beforeRequest: async () => {
			requests++;
			await beforeRequest?.();
		},
	};
	let result: ChangeRead | undefined;
	for (let read = 0; read < MAX_READS; read++) {
		const records = new Map<string, IDataObject>();
		const skipped = { noId: 0, noTime: 0 };
		let sorted = true;
		let stamped = true;
		let newest = Number.NaN;
		let previous = Number.POSITIVE_INFINITY;
		let firstTotal: number | undefined;
		let lastTotal: number | undefined;
		let page = 0;
		// The list's end as the client's walks find it (a capped page size, a repeated page: ../transport/client.ts).
		for await (const { items, total } of client.pages(resource, {}, walk)) {
			if (++page === 1) firstTotal = total;
			lastTotal = total;
			let oldestOnPage = Number.POSITIVE_INFINITY;
			for (const item of items) {
				const id = recordId(item, resource);
				const at = changedAt(item);
				if (id === undefined || Number.isNaN(at)) {
					skipped[id === undefined ? 'noId' : 'noTime']++;
					continue;
				}
				if (at > previous) sorted = false;
				if (!hasUpdatedAt(item)) stamped = false;
				previous = at;
				oldestOnPage = Math.min(oldestOnPage, at);
				if (!(newest >= at)) newest = at;
				// A record without updated_at may have changed at any time: it is compared with what was seen.
				if (cursor === undefined || at >= cursor || !hasUpdatedAt(item)) records.set(id, item);
			}
			// Out of order, or without updated_at, a change could be on any page: the whole list is read.
			// A baseline reads on while its pages are still at the newest millisecond: every record there is known.
			const done =
				cursor === undefined
					? page >= baselinePages && oldestOnPage < newest
					: oldestOnPage < cursor;
			if (sorted && stamped && done) break;
		}
		result = { records, sorted, stamped, skipped, requests, newest };
		if (firstTotal === undefined || lastTotal === undefined || lastTotal >= firstTotal) break;
	}
	return { ...(result as ChangeRead), requests };
}

// Reading what changed since the cursor from a list the service orders most recently changed first (contract
// row 21), with page and limit only: page 1, 2, … until a page ends before the cursor. A poll with nothing new
// costs one request however big the shop is. A service that lists in another order is read whole on every poll.
import type { IDataObject } from 'n8n-workflow';

import type { Page } from '../Storefront/v1/transport';

/** A record's time field as epoch ms (NaN when absent or not a date). */
export function timeOf(value: unknown): number {
	return typeof value === 'string' && value !== '' ? Date.parse(value) : Number.NaN;
}

/** When a record last changed: `updated_at`, or `created_at` for a service that keeps no `updated_at`. */
export function changedAt(record: IDataObject): number {
	const updated = timeOf(record.updated_at);
	return Number.isNaN(updated) ? timeOf(record.created_at) : updated;
}

export interface ChangeRead {
	/** Records changed at or after the cursor (every record read when there is no cursor), by id, the last read kept. */
	records: Map<string, IDataObject>;
	/** Whether every page read was most recently changed first. */
	sorted: boolean;
	requests: number;
	/** The newest change time read (NaN when the list was empty). */
	newest: number;
}

/** A deletion while paging moves records up by one, so the one at a page boundary could go unread: read again. */
const MAX_READS = 3;

/**
 * Reads the records changed at or after `cursor`. Without a cursor (the baseline) it reads `baselinePages` pages, and
 * more while they are all at the newest millisecond.
 * `fetchPage(page)` returns one page of the list (100 records, the contract's largest).
 */
export async function readChanges(
	fetchPage: (page: number) => Promise<Page>,
	cursor: number | undefined,
	baselinePages: number,
): Promise<ChangeRead> {
	let requests = 0;
	let result: ChangeRead | undefined;
	for (let read = 0; read < MAX_READS; read++) {
		const records = new Map<string, IDataObject>();
		let sorted = true;
		let newest = Number.NaN;
		let previous = Number.POSITIVE_INFINITY;
		let firstTotal: number | undefined;
		let lastTotal: number | undefined;
		let page: number | undefined = 1;
		while (page !== undefined) {
			const { items, nextPage, total } = await fetchPage(page);
			requests++;
			if (page === 1) firstTotal = total;
			lastTotal = total;
			let oldestOnPage = Number.POSITIVE_INFINITY;
			for (const item of items) {
				const at = changedAt(item);
				if (Number.isNaN(at) || at > previous) sorted = false;
				if (!Number.isNaN(at)) {
					previous = at;
					oldestOnPage = Math.min(oldestOnPage, at);
					if (!(newest >= at)) newest = at;
				}
				if (cursor === undefined || Number.isNaN(at) || at >= cursor) records.set(String(item.id), item);
			}
			if (items.length === 0) break;
			// Out of order, the newest change could be on any page: the whole list is read.
			// A baseline reads on while its pages are still at the newest millisecond: every record there is known.
			if (sorted && (cursor === undefined ? page >= baselinePages && oldestOnPage < newest : oldestOnPage < cursor))
				break;
			page = nextPage;
		}
		result = { records, sorted, requests, newest };
		if (firstTotal === undefined || lastTotal === undefined || lastTotal >= firstTotal) break;
	}
	return { ...(result as ChangeRead), requests };
}

// "Catch Up After Downtime" (docs/trigger.md): what the Storefront Trigger runs that no delivery brought. A delivery is
// lost when n8n is down longer than the service keeps retrying, or when n8n's own start-up answer ("n8n is starting
// up", 200) acknowledges it before any node runs. Every change the webhooks report is also in the order and product
// lists, so when the workflow is activated and every time n8n starts with it active, the trigger reads those lists
// from shortly before the newest change it ran (the polling trigger's reading: ../StorefrontPollingTrigger) and starts
// one run with what it finds, in the webhook events' shape, oldest first. Whichever path brings a change first runs
// it: both claim the change itself (changeKey) in n8n's database, under Drop Duplicate Events' lock (./sharedClaims).
import type { IDataObject } from 'n8n-workflow';

import { recordId, type StorefrontClient } from '../Storefront/v1/transport';
import type { EventKind } from '../shared/constants';
import { changedAt, ORDER_KINDS, PRODUCT_KINDS, readChanges, reader, timeOf, type Resource } from '../StorefrontPollingTrigger/changes';
import { byTime, orderEvents, productEvents, type PolledEvent } from '../StorefrontPollingTrigger/events';

/** From this version on, "Catch Up After Downtime" is on unless the user turns it off. */
export const CATCH_UP_VERSION = 1.3;

/**
 * How far before the newest change the trigger ran a catch-up starts reading. Deliveries come in no set order, and
 * one that failed while a later one got through is still being retried: if n8n goes down before its retry, only a
 * read from before it finds it. Ten times the contract's retry span (15 s); a restart with nothing missed then costs
 * one request per list while fewer than 100 records of it changed in these minutes (bench/catchup.js).
 */
export const CATCH_UP_MARGIN_MS = 5 * 60_000;

/**
 * The newest change the trigger ran is saved rounded down to the minute: a run writes the workflow's static data (one
 * database update after it ends) only when a change of a later minute comes through, not for every event.
 */
const SEEN_STEP_MS = 60_000;

/** Node static data keys: the newest change that ran (epoch ms, rounded down to SEEN_STEP_MS), and the baseline. */
const SEEN_KEY = 'catchUpSeen';
/** Just after the newest change at the first activation: nothing older is ever caught up, however wide the margin. */
const FLOOR_KEY = 'catchUpFloor';

/**
 * The kinds a catch-up reports. Not inventory.low: a list shows a product's stock now, not when it fell, so a read
 * cannot tell a fall no delivery brought from one that ran (the stock may have fallen further since, or been
 * refilled and fallen again). The Storefront Polling Trigger, which remembers which products it saw low, reports it.
 */
export const CATCH_UP_KINDS: EventKind[] = ['order.created', 'order.updated', 'payment.completed', 'product.created'];

/** A change's time as n8n saw it may lead the service's clock a little; further ahead, it is not believed. */
const MAX_LEAD_MS = 5 * 60_000;

/** Which item field says where an item came from: "webhook" (a delivery) or "catchUp" (found by a catch-up). */
export const SOURCE_FIELD = 'source';

/**
 * What one change is, whichever path reports it: kind, record and the change itself. A webhook event and the event a
 * read makes of the same change carry different ids (the service's `evt_…`, a read's `poll_…`), but the same key.
 *  - order.created, product.created, payment.completed: once per order or product (an order is paid once).
 *  - order.updated: the order and its new status. The contract's transitions never return to a status (row 12), so an
 *    order reaches each status once. An update that did not change the status (no previous_status, or the same) has
 *    no key: reads never report one.
 * Undefined (the event's own id is claimed instead) for other kinds and for data without the fields.
 */
export function changeKey(type: unknown, data: unknown): string | undefined {
	if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
	const record = data as IDataObject;
	const order = recordId(record, 'order');
	const product = recordId(record, 'product');
	switch (type) {
		case 'order.created':
		case 'payment.completed':
			return order && `${type}/${order}`;
		case 'order.updated': {
			const { status, previous_status: previous } = record;
			if (!order || typeof status !== 'string' || status === previous || previous === undefined) return undefined;
			return `${type}/${order}/${status}`;
		}
		case 'product.created':
			return product && `${type}/${product}`;
		default:
			return undefined;
	}
}

/**
 * Notes that a change of time `createdAt` (an item's created_at) ran: the next catch-up reads from shortly before it.
 * n8n saves a run's static data whole, as the run's execution started with it, plus what the run changed. A run whose
 * copy has no baseline started from a copy older than the activation — a delivery during it, or in queue mode the
 * webhook processor's copy of the workflow — and saving it would drop the baseline: such a run notes nothing.
 */
export function noteSeen(staticData: IDataObject, createdAt: unknown, now: number): void {
	if (typeof staticData[FLOOR_KEY] !== 'number') return;
	const at = timeOf(createdAt);
	if (Number.isNaN(at) || at > now + MAX_LEAD_MS) return;
	const step = Math.floor(at / SEEN_STEP_MS) * SEEN_STEP_MS;
	const seen = staticData[SEEN_KEY];
	if (typeof seen !== 'number' || step > seen) staticData[SEEN_KEY] = step;
}

/** Where the next catch-up reads from (epoch ms); undefined before the first activation (a baseline is due). */
export function catchUpCursor(staticData: IDataObject): number | undefined {
	const { [SEEN_KEY]: seen, [FLOOR_KEY]: floor } = staticData;
	if (typeof floor !== 'number' || !Number.isFinite(floor)) return undefined;
	return typeof seen === 'number' && Number.isFinite(seen) ? Math.max(floor, seen - CATCH_UP_MARGIN_MS) : floor;
}

/** The kinds of `kinds` ("*": all) a catch-up reports. */
const caughtUp = (kinds: string[]) => CATCH_UP_KINDS.filter((k) => kinds.includes('*') || kinds.includes(k));

/** The lists those kinds are read from. */
function listsFor(kinds: string[]): Resource[] {
	const wanted = caughtUp(kinds);
	const lists: Resource[] = [];
	if (ORDER_KINDS.some((k) => wanted.includes(k))) lists.push('orders');
	if (PRODUCT_KINDS.some((k) => wanted.includes(k))) lists.push('products');
	return lists;
}

/**
 * The first activation: where the shop is now, by the service's clock (page 1 of each list, most recently changed
 * first: contract row 21). Nothing is reported. An empty shop starts from the epoch: every change after it is new.
 * A payment counts too: records without updated_at (the spec shows none) are dated by created_at, and were paid later.
 */
export async function baseline(client: StorefrontClient, staticData: IDataObject, kinds: string[]): Promise<number> {
	let newest = 0;
	let requests = 0;
	for (const resource of listsFor(kinds)) {
		const read = await readChanges(reader(client, resource), resource, undefined, 1);
		requests += read.requests;
		for (const record of read.records.values()) {
			for (const at of [changedAt(record), timeOf(record.paid_at)]) if (at > newest) newest = at;
		}
	}
	staticData[FLOOR_KEY] = newest + 1;
	return requests;
}

export interface CatchUp {
	events: PolledEvent[];
	requests: number;
}

/**
 * Every change of the chosen kinds since `since`, as the polling trigger reports them to a trigger that remembers no
 * statuses: an order changed since then reports its current status (previous_status null, or "pending" for one
 * created since). Oldest first.
 */
export async function readSince(client: StorefrontClient, kinds: string[], since: number, now: number): Promise<CatchUp> {
	const wanted = new Set<string>(caughtUp(kinds));
	const found: ReturnType<typeof orderEvents>['events'] = [];
	let requests = 0;
	for (const resource of listsFor(kinds)) {
		const read = await readChanges(reader(client, resource), resource, since, 1);
		requests += read.requests;
		const fresh = { cursor: since, atCursor: [], sorted: true };
		found.push(
			...(resource === 'orders'
				? orderEvents(read.records.values(), { ...fresh, statuses: [] }, read.newest, wanted, now)
				: productEvents(read.records.values(), { ...fresh, low: [] }, read.newest, wanted, 0, now)
			).events,
		);
	}
	return { events: found.sort(byTime).map((e) => e.event), requests };
}

// "Catch Up After Downtime" (docs/trigger.md): what the Storefront Trigger runs that no delivery brought. A delivery is
// lost when n8n is down longer than the service keeps retrying, or when n8n's own start-up answer ("n8n is starting
// up", 200) acknowledges it before any node runs. Every change the webhooks report is also in the order and product
// lists, so when the workflow is activated and every time n8n starts with it active, the trigger reads those lists
// from shortly before the newest change it ran (the change reader the polling trigger uses too: ../shared/changes) and starts
// one run with what it finds, in the webhook events' shape, oldest first. Whichever path brings a change first runs
// it: both claim the change itself (changeKey) in n8n's database, under Drop Duplicate Events' lock (./sharedClaims).
import type { IDataObject } from 'n8n-workflow';

import { isObject, recordId, type StorefrontClient } from '../shared/transport';
import type { EventKind } from '../shared/constants';
import { readChanges, reader, resourceOf, timeOf, type Resource } from '../shared/changes/read';
import { byTime, orderEvents, productEvents, type PolledEvent } from '../shared/changes/events';
import { MAX_STATUSES, RecentMap } from '../shared/changes/state';

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

/** Node static data keys: the newest change that ran (epoch ms, rounded down to SEEN_STEP_MS), and the baselines. */
const SEEN_KEY = 'catchUpSeen';
/**
 * Per event kind, just after the newest change of its list when the trigger first read it: nothing older is ever
 * caught up for that kind. A kind added to Events later gets its own, so widening Events never runs old records.
 */
const FLOORS_KEY = 'catchUpFloors';
/** Trigger 1.3 of package 0.1.0 kept one baseline for every kind: it stands for the kinds chosen when it is met. */
const LEGACY_FLOOR_KEY = 'catchUpFloor';

/**
 * The kinds a catch-up reports. Not inventory.low: a list shows a product's stock now, not when it fell, so a read
 * cannot tell a fall no delivery brought from one that ran (the stock may have fallen further since, or been
 * refilled and fallen again). The Storefront Polling Trigger, which remembers which products it saw low, reports it.
 */
export const CATCH_UP_KINDS: EventKind[] = ['order.created', 'order.updated', 'payment.completed', 'product.created'];

/** A change's time as n8n saw it may lead the service's clock a little; further ahead, it is not believed. */
const MAX_LEAD_MS = 5 * 60_000;

/**
 * What one change is, whichever path reports it: kind, record and the change itself. A webhook event and the event a
 * read makes of the same change carry different ids (the service's `evt_…`, a read's `poll_…`) and may carry different
 * optional fields (`previous_status`, `payment_id`, `updated_at`: the spec shows none of them), so the key is built
 * from the record's id and what changed alone.
 *  - order.created, product.created, payment.completed: once per order or product (an order is paid once).
 *  - order.updated: the order and its new status. The contract's transitions never return to a status (row 12), so an
 *    order reaches each status once. Only an update that says it kept the status (previous_status equal to status)
 *    has no key and is claimed by its event id; one that does not say (no previous_status) is taken as the change to
 *    its status, so a second such update of an order in the same status runs once with it (docs/trigger.md).
 * Undefined (the event's own id is claimed instead) for other kinds and for data without the fields.
 */
export function changeKey(type: unknown, data: unknown): string | undefined {
	if (!isObject(data)) return undefined;
	const record = data;
	const order = recordId(record, 'order');
	const product = recordId(record, 'product');
	switch (type) {
		case 'order.created':
		case 'payment.completed':
			return order && `${type}/${order}`;
		case 'order.updated': {
			const { status, previous_status: previous } = record;
			if (!order || typeof status !== 'string' || status === previous) return undefined;
			return `${type}/${order}/${status}`;
		}
		case 'product.created':
			return product && `${type}/${product}`;
		default:
			return undefined;
	}
}

type Floors = Partial<Record<EventKind, number>>;

/** The baselines in the static data (a legacy one counts for `legacyKinds`); undefined when there are none. */
function floorsIn(staticData: IDataObject, legacyKinds: EventKind[] = []): Floors | undefined {
	const floors = staticData[FLOORS_KEY];
	if (isObject(floors)) return floors as Floors;
	const legacy = staticData[LEGACY_FLOOR_KEY];
	if (typeof legacy !== 'number' || !Number.isFinite(legacy)) return undefined;
	return Object.fromEntries(legacyKinds.map((kind) => [kind, legacy]));
}

/**
 * Notes that a change of time `createdAt` (an item's created_at) ran: the next catch-up reads from shortly before it.
 * n8n saves a run's static data whole, as the run's execution started with it, plus what the run changed. A run whose
 * copy has no baseline started from a copy older than the activation — a delivery during it, or in queue mode the
 * webhook processor's copy of the workflow — and saving it would drop the baseline: such a run notes nothing.
 */
export function noteSeen(staticData: IDataObject, createdAt: unknown, now: number): void {
	if (floorsIn(staticData) === undefined) return;
	const at = timeOf(createdAt);
	if (Number.isNaN(at) || at > now + MAX_LEAD_MS) return;
	const step = Math.floor(at / SEEN_STEP_MS) * SEEN_STEP_MS;
	const seen = staticData[SEEN_KEY];
	if (typeof seen !== 'number' || step > seen) staticData[SEEN_KEY] = step;
}

/** Where the catch-up of a kind whose baseline is `floor` reads from (epoch ms): shortly before the newest change that ran. */
export function catchUpCursor(staticData: IDataObject, floor: number): number {
	const seen = staticData[SEEN_KEY];
	return typeof seen === 'number' && Number.isFinite(seen) ? Math.max(floor, seen - CATCH_UP_MARGIN_MS) : floor;
}

/** Of the Events parameter's values ("*": all), the kinds a reading reports. */
const readableKinds = (kinds: string[]) => CATCH_UP_KINDS.filter((k) => kinds.includes('*') || kinds.includes(k));

/**
 * What a reconciliation remembers between two reads while its workflow stays active (lost at a restart or a new
 * activation): how far each list was read, the statuses it saw (on a service without `updated_at` the one way to tell
 * a status change), and the changes known to have run or been started here, which it does not start again.
 */
export interface ReadMemory {
	readTo: Partial<Record<Resource, number>>;
	statuses: Array<[string, string]>;
}

export const newMemory = (): ReadMemory => ({ readTo: {}, statuses: [] });

/** Changes remembered per trigger node as started or run in this n8n: more than a busy shop changes in CATCH_UP_MARGIN_MS. */
const KNOWN_CHANGES = 5_000;
const known = new Map<string, RecentMap<true>>();

/**
 * Notes that the change `key` ran, was found run, or was started by a reconciliation of the node `scope` (workflow id +
 * node id) in this n8n: reconciliations of this n8n do not start it again. What other n8n processes ran is found by
 * the claim in n8n's database, in the run a reconciliation starts.
 */
export function noteKnown(scope: string, key: string): void {
	let changes = known.get(scope);
	if (!changes) known.set(scope, (changes = new RecentMap<true>([], KNOWN_CHANGES)));
	changes.set(key, true);
}

/** The key a change is claimed and known by: changeKey, else the event's id. */
export const claimKey = (event: IDataObject) => changeKey(event.type, event.data) ?? String(event.id);

export interface CatchUp {
	/** The changes found, oldest first, in the webhook events' shape; none of them known to the memory. */
	events: PolledEvent[];
	requests: number;
	/** Kinds read for the first time: their baseline was taken, nothing of theirs reported. */
	baselined: EventKind[];
}

/** What one reading is for, and how it goes. */
export interface Reading {
	/** Workflow id + node id: whose known changes are skipped. */
	scope: string;
	/** The node's static data: the baselines, and where the newest change that ran was. */
	staticData: IDataObject;
	/** The Events parameter's values ("*": all). */
	kinds: string[];
	memory: ReadMemory;
	now: number;
	/** Changes younger than this are left to their deliveries (the next reading finds them if none arrives). */
	graceMs: number;
	/** Paces the requests. */
	beforeRequest: () => Promise<void>;
}

/**
 * One read of the lists the chosen kinds need. A kind without a baseline gets one (where its list is now; nothing of
 * it is reported); the others report every change since their cursor, as the polling trigger reports them to a
 * trigger that remembers what `memory` holds: an order changed since then reports its current status
 * (previous_status null, or "pending" for one created since, or the status the memory saw). Oldest first.
 */
export async function findChanges(client: StorefrontClient, { scope, staticData, kinds, memory, now, graceMs, beforeRequest }: Reading): Promise<CatchUp> {
	const wanted = readableKinds(kinds);
	const floors: Floors = { ...floorsIn(staticData, wanted) };
	const baselined = wanted.filter((kind) => typeof floors[kind] !== 'number');
	const found: Array<{ at: number; event: PolledEvent }> = [];
	let requests = 0;
	for (const resource of ['orders', 'products'] as Resource[]) {
		const ofList = wanted.filter((kind) => resourceOf(kind) === resource);
		if (ofList.length === 0) continue;
		const reading = ofList.filter((kind) => !baselined.includes(kind));
		const cursors = reading.map((kind) => catchUpCursor(staticData, floors[kind] as number));
		const readTo = memory.readTo[resource];
		const since = cursors.length ? Math.max(Math.min(...cursors), readTo === undefined ? -Infinity : readTo - CATCH_UP_MARGIN_MS) : undefined;
		const fetchPage = reader(client, resource);
		const read = await readChanges(
			async (page) => {
				await beforeRequest();
				return await fetchPage(page);
			},
			resource,
			since,
			1,
		);
		requests += read.requests;
		// The list's newest change: a payment counts too, as records without updated_at (the spec shows none) are dated
		// by created_at and were paid later.
		let newest = Number.isNaN(read.newest) ? 0 : read.newest;
		for (const record of read.records.values()) newest = Math.max(newest, timeOf(record.paid_at) || 0);
		for (const kind of ofList) if (baselined.includes(kind)) floors[kind] = newest + 1;
		if (since === undefined) continue;
		memory.readTo[resource] = Math.max(readTo ?? -Infinity, newest);
		const fresh = { cursor: since, atCursor: [] as string[], sorted: true };
		const orders = { ...fresh, statuses: memory.statuses };
		const detected =
			resource === 'orders'
				? orderEvents(read.records.values(), orders, read.newest, new Set(reading), now)
				: productEvents(read.records.values(), { ...fresh, low: [] }, read.newest, new Set(reading), 0, now);
		const statuses = new RecentMap(orders.statuses, MAX_STATUSES);
		const before = new Map(memory.statuses);
		for (const e of detected.events) {
			if (e.at < (floors[e.event.type] as number)) continue;
			if (e.at <= now - graceMs) {
				found.push(e);
				continue;
			}
			// Left to its delivery for now: the memory keeps what it knew of the order, so the next reading reports the
			// change again (an order it would otherwise know, and never report as created).
			const id = String(e.event.data.order_id);
			const previous = before.get(id);
			if (previous === undefined) statuses.delete(id);
			else statuses.set(id, previous);
		}
		memory.statuses = statuses.entries();
	}
	if (baselined.length) staticData[FLOORS_KEY] = floors;
	const oldestFirst = found.sort(byTime);
	const changes = known.get(scope);
	const unknown = oldestFirst.map((e) => e.event).filter((event) => !changes?.has(claimKey(event)));
	return { events: unknown, requests, baselined };
}

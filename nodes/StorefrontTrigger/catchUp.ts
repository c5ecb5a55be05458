// "Catch Up After Downtime" (docs/trigger.md): what the Storefront Trigger runs that no delivery brought. A delivery is
// lost when n8n is down longer than the service keeps retrying, or when n8n's own start-up answer ("n8n is starting
// up", 200) acknowledges it before any node runs. Every change the webhooks report is also in the order and product
// lists, so when the workflow is activated and every time n8n starts with it active, the trigger reads those lists from
// shortly before the newest change it ran (the change reader the polling trigger uses too: ../shared/changes) and
// starts one run with what it finds, in the webhook events' shape, oldest first. Whichever path brings a change first
// runs it: both claim the change itself (./changeKeys).
import type { IDataObject } from 'n8n-workflow';

import { isObject, recordId, type StorefrontClient } from '../shared/transport';
import type { EventKind } from '../shared/constants';
import { readChanges, reader, resourceOf, timeOf, type Resource } from '../shared/changes/read';
import { byTime, orderEvents, productEvents, type PolledEvent } from '../shared/changes/events';
import { MAX_STATUSES, RecentMap } from '../shared/changes/state';
import { claimKey } from './changeKeys';

/**
 * How far before the newest change the trigger ran a catch-up starts reading. Deliveries come in no set order, and
 * one that failed while a later one got through is still being retried: if n8n goes down before its retry, only a
 * read from before it finds it. Ten times the contract's retry span (15 s), and short enough that a restart with
 * nothing missed costs about one request per list (docs/performance.md).
 */
export const CATCH_UP_MARGIN_MS = 5 * 60_000;

/**
 * The last run change is saved rounded down to the minute: a run writes the workflow's static data (one database
 * update after it ends) only when a change of a later minute comes through, not for every event.
 */
const LAST_RUN_STEP_MS = 60_000;

/** Node static data: the time of the last run change (epoch ms, rounded down to LAST_RUN_STEP_MS). */
const LAST_RUN_KEY = 'lastRunChange';
/**
 * Node static data: per event kind, its baseline, just after the newest change of its list when the trigger first read
 * it: nothing older is ever caught up for that kind. A kind added to Events later gets its own, so widening Events
 * never runs old records.
 */
const BASELINES_KEY = 'catchUpBaselines';

/**
 * The kinds a catch-up reports. Not inventory.low: a list shows a product's stock now, not when it fell, so a read
 * cannot tell a fall no delivery brought from one that ran (the stock may have fallen further since, or been
 * refilled and fallen again). The Storefront Polling Trigger, which remembers which products it saw low, reports it.
 */
const CATCH_UP_KINDS: EventKind[] = [
	'order.created',
	'order.updated',
	'payment.completed',
	'product.created',
];

/** A change's time as n8n saw it may lead the service's clock a little; further ahead, it is not believed. */
const MAX_LEAD_MS = 5 * 60_000;

type Baselines = Partial<Record<EventKind, number>>;

/** The baselines in the static data; undefined when there are none. */
function baselinesIn(staticData: IDataObject): Baselines | undefined {
	const baselines = staticData[BASELINES_KEY];
	return isObject(baselines) ? (baselines as Baselines) : undefined;
}

/**
 * Notes that a change of time `createdAt` (an item's created_at) ran: the next catch-up reads from shortly before it.
 * n8n saves a run's static data whole, as the run's execution started with it, plus what the run changed. A run whose
 * copy has no baseline started from a copy older than the activation — a delivery during it, or in queue mode the
 * webhook processor's copy of the workflow — and saving it would drop the baseline: such a run notes nothing.
 */
export function noteLastRun(staticData: IDataObject, createdAt: unknown, now: number): void {
	if (baselinesIn(staticData) === undefined) return;
	const at = timeOf(createdAt);
	if (Number.isNaN(at) || at > now + MAX_LEAD_MS) return;
	const step = Math.floor(at / LAST_RUN_STEP_MS) * LAST_RUN_STEP_MS;
	const last = staticData[LAST_RUN_KEY];
	if (typeof last !== 'number' || step > last) staticData[LAST_RUN_KEY] = step;
}

/** Where the catch-up of a kind with this `baseline` reads from (epoch ms): shortly before the last run change. */
export function catchUpCursor(staticData: IDataObject, baseline: number): number {
	const last = staticData[LAST_RUN_KEY];
	return typeof last === 'number' && Number.isFinite(last)
		? Math.max(baseline, last - CATCH_UP_MARGIN_MS)
		: baseline;
}

/** `statuses` with the statuses of `orders` (the newest MAX_STATUSES kept). */
function withStatuses(
	statuses: Array<[string, string]>,
	orders: Iterable<IDataObject>,
): Array<[string, string]> {
	const kept = new RecentMap(statuses, MAX_STATUSES);
	for (const order of orders) {
		const id = recordId(order, 'order');
		if (id !== undefined && typeof order.status === 'string') kept.set(id, order.status);
	}
	return kept.entries();
}

/**
 * Seen (docs/trigger.md): what the readings remember between two reads while its workflow stays active (lost at a
 * restart or a new activation): how far each list was read, the statuses it saw (on a service without `updated_at`
 * the one way to tell a status change), and when it first found each status change it found by comparison.
 */
export interface ReadMemory {
	readTo: Partial<Record<Resource, number>>;
	statuses: Array<[string, string]>;
	/** When a reading first saw each status change it found by comparison ("<order>/<status>", epoch ms). */
	firstFound: Array<[string, number]>;
}

export const newMemory = (): ReadMemory => ({ readTo: {}, statuses: [], firstFound: [] });

/**
 * A run a reading started for `events` did not claim them (it never started, or failed first): the memory forgets
 * what those readings learnt of their orders, so that the next reading reports the same changes again.
 */
export function unread(memory: ReadMemory, events: PolledEvent[]): void {
	const statuses = new RecentMap(memory.statuses, MAX_STATUSES);
	for (const { type, data } of events) {
		const id = String(data.order_id);
		if (type === 'order.updated' && typeof data.previous_status === 'string')
			statuses.set(id, data.previous_status);
		else if (type === 'order.created' || type === 'order.updated') statuses.delete(id);
	}
	memory.statuses = statuses.entries();
}

export interface CatchUp {
	/** The changes found, oldest first, in the webhook events' shape; none of them run here. */
	events: PolledEvent[];
	/** Status changes found by comparison too young to run yet: their first sighting was this reading. */
	young: number;
	requests: number;
	/** Kinds read for the first time: their baseline was taken, nothing of theirs reported. */
	baselined: EventKind[];
}

/** What one reading is for, and how it goes. */
export interface Reading {
	/** Whether a change (its claim key) ran or is running here: it is left out. */
	skip: (key: string) => boolean;
	/** The node's static data: the baselines and the last run change. */
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
export async function findChanges(client: StorefrontClient, reading: Reading): Promise<CatchUp> {
	const { staticData, memory, now } = reading;
	const wanted = CATCH_UP_KINDS.filter(
		(k) => reading.kinds.includes('*') || reading.kinds.includes(k),
	);
	const baselines: Baselines = { ...baselinesIn(staticData) };
	const baselined = wanted.filter((kind) => typeof baselines[kind] !== 'number');
	const firstFound = new RecentMap(memory.firstFound, MAX_STATUSES);
	const found: Array<{ at: number; event: PolledEvent }> = [];
	const result: CatchUp = { events: [], young: 0, requests: 0, baselined };
	for (const resource of ['orders', 'products'] as Resource[]) {
		const ofList = wanted.filter((kind) => resourceOf(kind) === resource);
		if (ofList.length === 0) continue;
		// 1. Read from the earliest cursor of the list's kinds, and not far before where the last reading got to.
		const kinds = ofList.filter((kind) => !baselined.includes(kind));
		const readTo = memory.readTo[resource] ?? -Infinity;
		const cursors = kinds.map((kind) => catchUpCursor(staticData, baselines[kind] as number));
		const since = kinds.length
			? Math.max(Math.min(...cursors), readTo - CATCH_UP_MARGIN_MS)
			: undefined;
		const fetchPage = reader(client, resource);
		const read = await readChanges(
			async (page) => {
				await reading.beforeRequest();
				return await fetchPage(page);
			},
			resource,
			since,
			1,
		);
		result.requests += read.requests;
		// 2. The list's newest change: a payment counts too, as records without updated_at (the spec shows none) are
		// dated by created_at and were paid later. A new baseline is just after it.
		let newest = Number.isNaN(read.newest) ? 0 : read.newest;
		for (const record of read.records.values())
			newest = Math.max(newest, timeOf(record.paid_at) || 0);
		for (const kind of ofList) if (baselined.includes(kind)) baselines[kind] = newest + 1;
		if (since === undefined) {
			// A baseline still learns the statuses it read: on a service without updated_at, the next reading finds a
			// change of these orders by comparing with them.
			if (resource === 'orders')
				memory.statuses = withStatuses(memory.statuses, read.records.values());
			continue;
		}
		memory.readTo[resource] = Math.max(readTo, newest);
		// 3. The changes, as the polling trigger finds them from a cursor at `since` and the statuses the memory saw.
		const state = { cursor: since, atCursor: [], sorted: true, statuses: memory.statuses, low: [] };
		const records = read.records.values();
		const events =
			resource === 'orders'
				? orderEvents(records, state, read.newest, new Set(kinds), now)
				: productEvents(records, state, read.newest, new Set(kinds), 0, now);
		// 4. What is older than the grace is found. A status change found by comparing (no updated_at) is dated when a
		// reading first found it, so that it outgrows the grace. The rest is left to its delivery for now: the memory
		// keeps what it knew of the order, so the next reading reports the change again.
		const statuses = new RecentMap(state.statuses, MAX_STATUSES);
		const before = new Map(memory.statuses);
		for (const e of events) {
			if (e.at < (baselines[e.event.type] as number)) continue;
			const { order_id, status } = e.event.data;
			const compared = e.compared ? `${String(order_id)}/${String(status)}` : undefined;
			const at = compared === undefined ? e.at : (firstFound.get(compared) ?? now);
			if (at <= now - reading.graceMs) {
				if (compared !== undefined) firstFound.delete(compared);
				found.push({ at, event: { ...e.event, created_at: new Date(at).toISOString() } });
				continue;
			}
			if (compared !== undefined) {
				firstFound.set(compared, at);
				result.young++;
			}
			const previous = before.get(String(order_id));
			if (previous === undefined) statuses.delete(String(order_id));
			else statuses.set(String(order_id), previous);
		}
		memory.statuses = statuses.entries();
	}
	if (baselined.length) staticData[BASELINES_KEY] = baselines;
	memory.firstFound = firstFound.entries();
	result.events = found
		.sort(byTime)
		.map((e) => e.event)
		.filter((event) => !reading.skip(claimKey(event)));
	return result;
}

// What a reading (docs/trigger.md: Catch Up After Downtime, Check for Missed Events) finds: the changes since shortly
// before the last run change, read and shaped as the polling trigger reads them (../shared/changes), oldest first.
import type { IDataObject } from 'n8n-workflow';

import { isObject, recordId, type StorefrontClient } from '../shared/transport';
import type { EventKind } from '../shared/constants';
import {
	changedAt,
	hasUpdatedAt,
	ORDER_KINDS,
	readChanges,
	resourceOf,
	timeOf,
	type Resource,
} from '../shared/changes/read';
import { byTime, changesSince, type PolledEvent } from '../shared/changes/events';
import { MAX_STATUSES, RecentMap } from '../shared/changes/state';

/** How far before the last run change a catch-up reads: deliveries come in no set order (docs/trigger.md). */
export const CATCH_UP_MARGIN_MS = 5 * 60_000;

/** The last run change, to the minute: a run saves the static data only for a change of a later minute. */
const LAST_RUN_KEY = 'lastRunChange';
const LAST_RUN_STEP_MS = 60_000;
/** Per event kind, its baseline (docs/trigger.md, How the trigger remembers). */
const BASELINES_KEY = 'catchUpBaselines';

/** The kinds a catch-up reports. Not inventory.low: a list shows a product's stock now, not when it fell. */
const CATCH_UP_KINDS: EventKind[] = [...ORDER_KINDS, 'product.created'];

/** A change's time as n8n saw it may lead the service's clock a little; further ahead, it is not believed. */
const MAX_LEAD_MS = 5 * 60_000;

type Baselines = Partial<Record<EventKind, number>>;

function baselinesIn(staticData: IDataObject): Baselines | undefined {
	const baselines = staticData[BASELINES_KEY];
	return isObject(baselines) ? (baselines as Baselines) : undefined;
}

/**
 * Notes that a change of time `createdAt` ran. A run whose static data has no baseline notes nothing: its copy predates
 * the activation, and saving it would drop the baseline (docs/maintainers.md, Static data).
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
	return typeof last === 'number' ? Math.max(baseline, last - CATCH_UP_MARGIN_MS) : baseline;
}

/** Seen (docs/trigger.md, How the trigger remembers). */
export interface ReadMemory {
	readTo: Partial<Record<Resource, number>>;
	/** The statuses read: on a service without `updated_at`, the one way to tell a status change. */
	statuses: Array<[string, string]>;
	/** When a reading first saw each status change it found by comparison ("<order>/<status>", epoch ms). */
	firstFound: Array<[string, number]>;
}

export const newMemory = (): ReadMemory => ({ readTo: {}, statuses: [], firstFound: [] });

/** A reading's run did not claim `events`: forget what was learnt of their orders, so the next reading reports them. */
export function unread(memory: ReadMemory, events: PolledEvent[]): void {
	const statuses = new RecentMap(memory.statuses, MAX_STATUSES);
	for (const { type, data } of events) {
		const id = String(data.order_id);
		if (type === 'order.updated' && typeof data.previous_status === 'string')
			statuses.set(id, data.previous_status);
		else if (type === 'order.created' || type === 'order.updated') statuses.delete(id);
	}
	memory.statuses = [...statuses];
}

export interface CatchUp {
	events: PolledEvent[];
	/** The status changes the reading cannot date, by event id: the earliest time each can have happened. */
	undated: Map<string, number>;
	/** Each order read, in its status then: when it changed to it (updated_at), else when its list was read. */
	seen: Array<{ order: string; status: string; at: number }>;
	/** Status changes found by comparison too young to run yet: their first sighting was this reading. */
	young: number;
	requests: number;
	/** Kinds read for the first time: their baseline was taken, nothing of theirs reported. */
	baselined: EventKind[];
}

export interface Reading {
	staticData: IDataObject;
	/** The Events parameter's values ("*": all). */
	kinds: string[];
	memory: ReadMemory;
	/** Changes younger than this are left to their deliveries (the next reading finds them if none arrives). */
	graceMs: number;
	beforeRequest: () => Promise<void>;
}

/** One read of the lists the chosen kinds need; a kind without a baseline gets one and reports nothing. */
export async function findChanges(client: StorefrontClient, reading: Reading): Promise<CatchUp> {
	const { staticData, memory } = reading;
	const wanted = CATCH_UP_KINDS.filter(
		(k) => reading.kinds.includes('*') || reading.kinds.includes(k),
	);
	const baselines: Baselines = { ...baselinesIn(staticData) };
	const baselined = wanted.filter((kind) => typeof baselines[kind] !== 'number');
	const firstFound = new RecentMap(memory.firstFound, MAX_STATUSES);
	const found: Array<{ at: number; event: PolledEvent }> = [];
	const result: CatchUp = {
		events: [],
		undated: new Map(),
		seen: [],
		young: 0,
		requests: 0,
		baselined,
	};
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
		const read = await readChanges(client, resource, since, 1, reading.beforeRequest);
		// A record without updated_at changed before its list was read to the end: a change on a later page may have
		// been made while the earlier pages were read (dated by the start, its window missed its delivery's time).
		const readAt = Date.now();
		result.requests += read.requests;
		// Each order's status. A baseline learns them: without updated_at, the next reading finds a change by comparing.
		const learnt = new RecentMap(memory.statuses, MAX_STATUSES);
		const current = new Map<string, string>();
		for (const order of resource === 'orders' ? read.records.values() : []) {
			const id = recordId(order, 'order');
			if (id === undefined || typeof order.status !== 'string') continue;
			const at = hasUpdatedAt(order) ? changedAt(order) : readAt;
			result.seen.push({ order: id, status: order.status, at });
			current.set(id, order.status);
			if (since === undefined) learnt.set(id, order.status);
		}
		// A first sighting dates its stay only: once the order is seen in another status, a return to it is dated anew.
		for (const key of [...firstFound.keys()]) {
			const cut = key.lastIndexOf('/');
			const status = current.get(key.slice(0, cut));
			if (status !== undefined && status !== key.slice(cut + 1)) firstFound.delete(key);
		}
		// 2. A new baseline is just after the list's newest change, payments too: without updated_at (the spec shows
		// none) a record is dated by created_at, and was paid later.
		let newest = Number.isNaN(read.newest) ? 0 : read.newest;
		for (const record of read.records.values())
			newest = Math.max(newest, timeOf(record.paid_at) || 0);
		for (const kind of ofList) if (baselined.includes(kind)) baselines[kind] = newest + 1;
		if (since === undefined) {
			memory.statuses = [...learnt];
			continue;
		}
		memory.readTo[resource] = Math.max(readTo, newest);
		// 3. The changes, as the polling trigger finds them from a cursor at `since`.
		const changes = changesSince(
			resource,
			read.records.values(),
			since,
			memory.statuses,
			read.newest,
			new Set(kinds),
			readAt,
		);
		// 4. What is older than the grace is found (a status change found by comparing is dated by its first sighting).
		// The rest is left to its delivery: the memory keeps what it knew of the order, so the next reading finds it.
		const statuses = new RecentMap(changes.statuses, MAX_STATUSES);
		const before = new Map(memory.statuses);
		for (const e of changes.events) {
			if (e.at < (baselines[e.event.type] as number)) continue;
			const { order_id, status } = e.event.data;
			const compared = e.compared ? `${String(order_id)}/${String(status)}` : undefined;
			const at = compared === undefined ? e.at : (firstFound.get(compared) ?? readAt);
			if (at <= readAt - reading.graceMs) {
				if (compared !== undefined) firstFound.delete(compared);
				found.push({ at, event: { ...e.event, created_at: new Date(at).toISOString() } });
				if (e.from !== undefined) result.undated.set(e.event.id, e.from);
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
		memory.statuses = [...statuses];
	}
	if (baselined.length) staticData[BASELINES_KEY] = baselines;
	memory.firstFound = [...firstFound];
	result.events = found.sort(byTime).map((e) => e.event);
	return result;
}

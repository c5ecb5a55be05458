import type { IDataObject } from 'n8n-workflow';

// "Drop Duplicate Events": which accepted event ids a trigger node remembers, and for how long.
// The service redelivers an event with the same id until it gets a 2xx in time (docs/api-contract.md row 14: the
// sandbox's schedule spans 15 s; real services keep retrying for hours, some for days). Ids are therefore kept for
// 72 hours, which covers such schedules, and at most 10,000 per node (past that the oldest go first), which bounds
// the memory and the workflow's static data (about 45 bytes an id).
export const SEEN_EVENT_RETENTION_MS = 72 * 60 * 60 * 1000;
export const SEEN_EVENT_IDS_LIMIT = 10_000;

type Seen = Record<string, number>;

/** One accepted (or claimed) event id: when, and which delivery/run holds it. */
interface Holder {
	at: number;
	token: string;
}

// Ids are checked in two places, both against this n8n process's memory (per workflow and node):
// 1. when a delivery arrives (webhook()): a known id is acknowledged as a duplicate and nothing is started;
// 2. when an execution starts (execute(), the trigger's first step of every run): the run goes on only if its
//    delivery still holds the id. That catches what the first check cannot see: after a crash, n8n re-runs the
//    executions it had accepted but not started ("enqueued execution recovery"), while the service redelivers the
//    same events because n8n never answered them; and in queue mode a worker sees runs accepted by several
//    webhook processors. Whichever run claims an id first goes on, the other outputs nothing.
// The workflow's static data gets the ids too, for n8n versions and paths that save it. n8n 2.41 does not save
// static data a webhook changed once the workflow has some (WorkflowRunner wraps the same object again, which
// clears its "changed" mark), so memory is what holds; several processes share none of it (README, "Queue mode").
const heldHere = new Map<string, Map<string, Holder>>();

function held(scope: string): Map<string, Holder> {
	let map = heldHere.get(scope);
	if (!map) heldHere.set(scope, (map = new Map()));
	return map;
}

/** The remembered ids in static data, oldest first; older versions stored a plain list of ids. */
function storedIds(staticData: IDataObject, now: number): Seen {
	if (staticData.seenEvents && typeof staticData.seenEvents === 'object' && !Array.isArray(staticData.seenEvents)) {
		return staticData.seenEvents as Seen;
	}
	const legacy = Array.isArray(staticData.seenEventIds) ? (staticData.seenEventIds as string[]) : [];
	delete staticData.seenEventIds;
	return Object.fromEntries(legacy.map((id) => [id, now]));
}

function prune<T>(seen: Map<string, T>, now: number, at: (value: T) => number): void {
	for (const [id, value] of seen) if (!(now - at(value) < SEEN_EVENT_RETENTION_MS)) seen.delete(id);
	// Insertion order is acceptance order: the overflow is at the front.
	for (const id of seen.keys()) {
		if (seen.size <= SEEN_EVENT_IDS_LIMIT) break;
		seen.delete(id);
	}
}
const pruneHeld = (map: Map<string, Holder>, now: number) => prune(map, now, (h) => h.at);
const pruneStored = (map: Map<string, number>, now: number) => prune(map, now, (at) => at);

/**
 * A delivery of `id` arrived at the node `scope` (workflow id + node id): records it as accepted, held by `token`;
 * false when the id was accepted or claimed before and is still remembered, i.e. the delivery is a redelivery.
 */
export function rememberEvent(staticData: IDataObject, scope: string, id: string, now: number, token: string): boolean {
	const local = held(scope);
	pruneHeld(local, now);
	const stored = new Map(Object.entries(storedIds(staticData, now)));
	pruneStored(stored, now);

	if (local.has(id) || stored.has(id)) return false;
	local.set(id, { at: now, token });
	stored.set(id, now);
	pruneHeld(local, now);
	pruneStored(stored, now);
	// A new object, so n8n sees the change and saves the static data (where it does).
	staticData.seenEvents = Object.fromEntries(stored);
	return true;
}

/**
 * An execution of the node `scope` starts with the event `id`, accepted as delivery `token`: true when it may go
 * on — the id is held by that same delivery, or by nobody in this process yet (it is claimed now) — and false when
 * another delivery of the event holds it (that one runs, this one is a duplicate).
 */
export function claimRun(scope: string, id: string, token: string, now: number): boolean {
	const local = held(scope);
	pruneHeld(local, now);
	const holder = local.get(id);
	if (holder === undefined) {
		local.set(id, { at: now, token });
		pruneHeld(local, now);
		return true;
	}
	return holder.token === token;
}

import type { IDataObject } from 'n8n-workflow';

// "Drop Duplicate Events": which accepted event ids a trigger node remembers, and for how long.
// The service redelivers an event with the same id until it gets a 2xx in time (docs/api-contract.md row 14: the
// sandbox's schedule spans 15 s; real services keep retrying for hours, some for days). Ids are therefore kept for
// 72 hours, which covers such schedules, and at most 10,000 per node (past that the oldest go first), which bounds
// the workflow's static data (about 45 bytes an id) that n8n rewrites after every accepted event.
export const SEEN_EVENT_RETENTION_MS = 72 * 60 * 60 * 1000;
export const SEEN_EVENT_IDS_LIMIT = 10_000;

type Seen = Record<string, number>;

// n8n loads a workflow's static data from its database for every webhook request and saves it after the request,
// so two deliveries of one event that arrive together would each find the id missing there. Ids accepted by this
// n8n process are therefore also kept here, per workflow and node, until their static data must have been saved.
// (Several webhook processes share no memory, and n8n 2.41 does not save static data a webhook changes once the
// workflow has some: in queue mode, see the README's recipe in "Queue mode and scaling".)
const acceptedHere = new Map<string, Map<string, number>>();

/** The remembered ids in static data, oldest first; older versions stored a plain list of ids. */
function storedIds(staticData: IDataObject, now: number): Seen {
	if (staticData.seenEvents && typeof staticData.seenEvents === 'object' && !Array.isArray(staticData.seenEvents)) {
		return staticData.seenEvents as Seen;
	}
	const legacy = Array.isArray(staticData.seenEventIds) ? (staticData.seenEventIds as string[]) : [];
	delete staticData.seenEventIds;
	return Object.fromEntries(legacy.map((id) => [id, now]));
}

function prune(seen: Map<string, number>, now: number): void {
	for (const [id, at] of seen) if (!(now - at < SEEN_EVENT_RETENTION_MS)) seen.delete(id);
	// Insertion order is acceptance order: the overflow is at the front.
	for (const id of seen.keys()) {
		if (seen.size <= SEEN_EVENT_IDS_LIMIT) break;
		seen.delete(id);
	}
}

/**
 * Records `id` as accepted by the node `scope` (workflow id + node id); false when it was accepted before and is
 * still remembered, i.e. the delivery is a redelivery.
 */
export function rememberEvent(staticData: IDataObject, scope: string, id: string, now: number): boolean {
	let local = acceptedHere.get(scope);
	if (!local) acceptedHere.set(scope, (local = new Map()));
	prune(local, now);
	const stored = new Map(Object.entries(storedIds(staticData, now)));
	prune(stored, now);

	if (local.has(id) || stored.has(id)) return false;
	local.set(id, now);
	stored.set(id, now);
	prune(local, now);
	prune(stored, now);
	// A new object, so n8n sees the change and saves the static data.
	staticData.seenEvents = Object.fromEntries(stored);
	return true;
}

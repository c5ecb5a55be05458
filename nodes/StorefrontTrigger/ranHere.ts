// What this running n8n knows by itself (a restart forgets it; what every n8n process knows is in n8n's database:
// ../shared/claims), per trigger node (`scope`: workflow id + node id). Free to ask, so it is asked first. Its two
// memories and their bounds are defined in docs/trigger.md, How the trigger remembers:
//  - Accepted: asked when a delivery arrives (./receive: a redelivery starts nothing) and when its run starts (./claim:
//    only the accepted delivery goes on, as after a crash n8n re-runs the executions it had accepted while the service
//    redelivers their events). Not in the workflow's static data: docs/maintainers.md, Static data.
//  - Ran here: the changes (claim keys: ./changeKeys) run or found claimed: this n8n's readings do not start them.
import { DEFAULT_REMEMBER_HOURS } from '../shared/claims';

export const ACCEPTED_RETENTION_MS = DEFAULT_REMEMBER_HOURS * 3_600_000;
export const ACCEPTED_IDS_LIMIT = 10_000;
const MAX_RAN_HERE = 100_000;

/** Per node, each accepted event id: when, and which delivery (or reading) it was accepted for. */
const acceptedHere = new Map<string, Map<string, { at: number; token: string }>>();
const ranInThisN8n = new Map<string, Map<string, number>>();

function memoryOf<V>(memories: Map<string, Map<string, V>>, scope: string): Map<string, V> {
	let memory = memories.get(scope);
	if (!memory) memories.set(scope, (memory = new Map()));
	return memory;
}

/** Keeps a memory to its newest `max` entries (insertion order is the order they came in). */
function cap(memory: Map<string, unknown>, max: number): void {
	for (const key of memory.keys()) {
		if (memory.size <= max) break;
		memory.delete(key);
	}
}

/**
 * Whether the delivery `token` of the event `id` is the one accepted here. A delivery arriving (./receive) or a run
 * starting (./claim) with an id none is accepted for yet is accepted now; another delivery of an accepted id is a
 * duplicate (a redelivery, or the run of one that n8n re-runs after a crash while the service redelivers it).
 */
export function acceptDelivery(scope: string, id: string, token: string, now: number): boolean {
	const accepted = memoryOf(acceptedHere, scope);
	for (const [key, { at }] of accepted)
		if (!(now - at < ACCEPTED_RETENTION_MS)) accepted.delete(key);
	const acceptance = accepted.get(id);
	if (acceptance !== undefined) return acceptance.token === token;
	accepted.set(id, { at: now, token });
	cap(accepted, ACCEPTED_IDS_LIMIT);
	return true;
}

/** Notes that the changes `keys` ran, or were found run, in a run of the node `scope` at `now`. */
export function noteRanHere(scope: string, keys: string[], now: number): void {
	const changes = memoryOf(ranInThisN8n, scope);
	for (const key of keys) {
		changes.delete(key);
		changes.set(key, now);
	}
	cap(changes, MAX_RAN_HERE);
}

/** Whether the change `key` ran in this n8n in the last `withinMs` (see noteRanHere). */
export function ranHere(scope: string, key: string, now: number, withinMs: number): boolean {
	const at = ranInThisN8n.get(scope)?.get(key);
	return at !== undefined && now - at < withinMs;
}

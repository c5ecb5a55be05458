// What this running n8n knows by itself per trigger node, free to ask, so asked before n8n's database: accepted and
// ran here (docs/trigger.md, How the trigger remembers). Not in the static data: docs/maintainers.md, Static data.
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
 * Whether the delivery `token` of the event `id` is the one accepted here (the first to arrive, or to start its run).
 * Another is a duplicate: a redelivery, or a run n8n re-runs after a crash while the service redelivers its event.
 */
export function acceptDelivery(scope: string, id: string, token: string, now: number): boolean {
	const accepted = memoryOf(acceptedHere, scope);
	// Oldest first (the order they came in): the old ones leave from the front, and the scan stops at the first young.
	for (const [key, { at }] of accepted) {
		if (now - at < ACCEPTED_RETENTION_MS) break;
		accepted.delete(key);
	}
	const acceptance = accepted.get(id);
	if (acceptance !== undefined) return acceptance.token === token;
	accepted.set(id, { at: now, token });
	cap(accepted, ACCEPTED_IDS_LIMIT);
	return true;
}

/** Forgets all this process knows of `scope`: its accepted ids and what ran here. */
export function forgetHere(scope: string): void {
	acceptedHere.delete(scope);
	ranInThisN8n.delete(scope);
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

/** Forgets `keys` noted for a reading's run that did not claim them: the next reading finds them again. */
export function forgetRanHere(scope: string, keys: string[]): void {
	const changes = ranInThisN8n.get(scope);
	for (const key of keys) changes?.delete(key);
}

/** Whether the change `key` ran in this n8n in the last `withinMs` (see noteRanHere). */
export function ranHere(scope: string, key: string, now: number, withinMs: number): boolean {
	const at = ranInThisN8n.get(scope)?.get(key);
	return at !== undefined && now - at < withinMs;
}

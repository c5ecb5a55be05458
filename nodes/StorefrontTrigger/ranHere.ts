// What this running n8n knows by itself, in its own memory (a restart forgets it; what every n8n process knows is in
// n8n's database: ../shared/claims). Free to ask, so it is asked first. Two memories per trigger node (`scope`:
// workflow id + node id):
//  - Accepted (docs/trigger.md): the event ids of the deliveries it answered, each with the delivery it was accepted
//    for, kept 72 hours (real services retry for hours, some for days), at most ACCEPTED_IDS_LIMIT. Asked when a
//    delivery arrives (./receive: a redelivery is answered and starts nothing) and when its run starts (./claim: the
//    run goes on only for the accepted delivery). That catches what the first check cannot see: after a crash, n8n
//    re-runs the executions it had accepted but not started, while the service redelivers the same events because n8n
//    never answered them. The workflow's static data cannot hold the ids: docs/maintainers.md says why.
//  - Ran here (docs/trigger.md): the changes (their claim keys, ./changeKeys) whose run started here, or whose run was
//    found claimed, so that the readings of this n8n do not start them again (./missedEvents), for Remember Events
//    For, at most MAX_RAN_HERE; so do those of a reading's run that has not ended (kept in ./missedEvents).
import { DEFAULT_REMEMBER_HOURS } from '../shared/claims';

export const ACCEPTED_RETENTION_MS = DEFAULT_REMEMBER_HOURS * 3_600_000;
export const ACCEPTED_IDS_LIMIT = 10_000;
const MAX_RAN_HERE = 100_000;

/** One accepted event id: when, and which delivery (or reading) it was accepted for. */
interface Acceptance {
	at: number;
	token: string;
}

const acceptedHere = new Map<string, Map<string, Acceptance>>();
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

/** Forgets the accepted ids past their time or their number. */
function prune(accepted: Map<string, Acceptance>, now: number): void {
	for (const [id, { at }] of accepted) if (!(now - at < ACCEPTED_RETENTION_MS)) accepted.delete(id);
	cap(accepted, ACCEPTED_IDS_LIMIT);
}

function accept(accepted: Map<string, Acceptance>, id: string, token: string, now: number): void {
	accepted.set(id, { at: now, token });
	prune(accepted, now);
}

/** A delivery of `id` arrived as `token`: accepts it; false when the id is still accepted here (a redelivery). */
export function acceptEvent(scope: string, id: string, token: string, now: number): boolean {
	const accepted = memoryOf(acceptedHere, scope);
	prune(accepted, now);
	if (accepted.has(id)) return false;
	accept(accepted, id, token, now);
	return true;
}

/**
 * An execution starts with the event `id`, delivered as `token`, bringing the changes `ran`: true when it may go on —
 * the id was accepted for that same delivery, or for none here yet (it is accepted for it now) — and false when it was
 * accepted for another delivery of the event (that one runs, this one is a duplicate). When it goes on, its changes
 * count as run here: wherever the claim in n8n's database finds they ran, this n8n's readings do not start them again.
 */
export function acceptRun(
	scope: string,
	id: string,
	token: string,
	now: number,
	ran: string[] = [],
): boolean {
	const accepted = memoryOf(acceptedHere, scope);
	prune(accepted, now);
	const acceptance = accepted.get(id);
	if (acceptance === undefined) accept(accepted, id, token, now);
	else if (acceptance.token !== token) return false;
	if (ran.length) noteRanHere(scope, ran, now);
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

// "Drop Duplicate Events": the event ids a trigger node accepted in this running n8n, and for how long.
// The service redelivers an event with the same id until it gets a 2xx in time (docs/api-contract.md row 14); real
// services keep retrying for hours, some for days. Ids are therefore kept for 72 hours in each running n8n, and at most
// ACCEPTED_IDS_LIMIT per node (past that the oldest go first), which bounds the memory.
export const ACCEPTED_RETENTION_MS = 72 * 60 * 60 * 1000;
export const ACCEPTED_IDS_LIMIT = 10_000;

/** One accepted event id: when, and which delivery (or run) it was accepted for. */
interface Acceptance {
	at: number;
	token: string;
}

// Ids are checked in this running n8n's memory (per workflow and node) in two places:
// 1. when a delivery arrives (webhook()): an accepted id is acknowledged as a duplicate and nothing is started;
// 2. when an execution starts (execute(), the trigger's first step of every run): the run goes on only if its
//    delivery is the one accepted for the id. That catches what the first check cannot see: after a crash, n8n
//    re-runs the executions it had accepted but not started, while the service redelivers the same events because
//    n8n never answered them.
// Both are free and answer redeliveries to the same running n8n. What other processes and earlier runs of this n8n
// claimed is in n8n's database (../shared/claims), asked when a run starts, after these checks. The workflow's
// static data cannot hold the ids: docs/maintainers.md says why.
const acceptedHere = new Map<string, Map<string, Acceptance>>();

function acceptedBy(scope: string): Map<string, Acceptance> {
	let map = acceptedHere.get(scope);
	if (!map) acceptedHere.set(scope, (map = new Map()));
	return map;
}

function prune(accepted: Map<string, Acceptance>, now: number): void {
	for (const [id, acceptance] of accepted)
		if (!(now - acceptance.at < ACCEPTED_RETENTION_MS)) accepted.delete(id);
	// Insertion order is acceptance order: the overflow is at the front.
	for (const id of accepted.keys()) {
		if (accepted.size <= ACCEPTED_IDS_LIMIT) break;
		accepted.delete(id);
	}
}

/**
 * A delivery of `id` arrived at the node `scope` (workflow id + node id): accepts it for `token`; false when the id
 * was accepted in this running n8n before and is still kept (a redelivery).
 */
export function acceptEvent(scope: string, id: string, now: number, token: string): boolean {
	const accepted = acceptedBy(scope);
	prune(accepted, now);
	if (accepted.has(id)) return false;
	accepted.set(id, { at: now, token });
	prune(accepted, now);
	return true;
}

/**
 * An execution of the node `scope` starts with the event `id`, delivered as `token`: true when it may go on — the id
 * was accepted for that same delivery, or for none in this running n8n yet (it is accepted for it now) — and false when
 * it was accepted for another delivery of the event (that one runs, this one is a duplicate).
 */
export function acceptRun(scope: string, id: string, token: string, now: number): boolean {
	const accepted = acceptedBy(scope);
	prune(accepted, now);
	const acceptance = accepted.get(id);
	if (acceptance === undefined) {
		accepted.set(id, { at: now, token });
		prune(accepted, now);
		return true;
	}
	return acceptance.token === token;
}

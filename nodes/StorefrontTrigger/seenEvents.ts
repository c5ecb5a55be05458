// "Drop Duplicate Events": which accepted event ids a trigger node remembers, and for how long.
// The service redelivers an event with the same id until it gets a 2xx in time (docs/api-contract.md row 14: the
// sandbox's schedule spans 15 s; real services keep retrying for hours, some for days). Ids are therefore kept for
// 72 hours in each running n8n, which covers such schedules, and at most 10,000 per node (past that the oldest go
// first), which bounds the memory (about 100 bytes an id).
export const SEEN_EVENT_RETENTION_MS = 72 * 60 * 60 * 1000;
export const SEEN_EVENT_IDS_LIMIT = 10_000;

/** One accepted (or claimed) event id: when, and which delivery/run holds it. */
interface Holder {
	at: number;
	token: string;
}

// Ids are checked in this running n8n's memory (per workflow and node) in two places:
// 1. when a delivery arrives (webhook()): a known id is acknowledged as a duplicate and nothing is started;
// 2. when an execution starts (execute(), the trigger's first step of every run): the run goes on only if its
//    delivery still holds the id. That catches what the first check cannot see: after a crash, n8n re-runs the
//    executions it had accepted but not started ("enqueued execution recovery"), while the service redelivers the
//    same events because n8n never answered them.
// Both are free and answer redeliveries to the same running n8n. What other ones and earlier runs of this n8n
// accepted is in n8n's database (../shared/claims), asked when a run starts, after these checks.
// The workflow's static data is not used: n8n does not save static data a webhook call changes once the workflow
// has some (WorkflowRunner wraps the same object again, which clears its "changed" mark), and a queue-mode worker
// starts a run with the static data of the execution, not the database's.
const heldHere = new Map<string, Map<string, Holder>>();

function held(scope: string): Map<string, Holder> {
	let map = heldHere.get(scope);
	if (!map) heldHere.set(scope, (map = new Map()));
	return map;
}

function prune(seen: Map<string, Holder>, now: number): void {
	for (const [id, holder] of seen)
		if (!(now - holder.at < SEEN_EVENT_RETENTION_MS)) seen.delete(id);
	// Insertion order is acceptance order: the overflow is at the front.
	for (const id of seen.keys()) {
		if (seen.size <= SEEN_EVENT_IDS_LIMIT) break;
		seen.delete(id);
	}
}

/**
 * A delivery of `id` arrived at the node `scope` (workflow id + node id): records it as accepted, held by `token`;
 * false when the id was accepted or claimed in this running n8n before and is still remembered (a redelivery).
 */
export function rememberEvent(scope: string, id: string, now: number, token: string): boolean {
	const local = held(scope);
	prune(local, now);
	if (local.has(id)) return false;
	local.set(id, { at: now, token });
	prune(local, now);
	return true;
}

/**
 * An execution of the node `scope` starts with the event `id`, accepted as delivery `token`: true when it may go
 * on — the id is held by that same delivery, or by nobody in this running n8n yet (it is claimed now) — and false when
 * another delivery of the event holds it (that one runs, this one is a duplicate).
 */
export function claimRun(scope: string, id: string, token: string, now: number): boolean {
	const local = held(scope);
	prune(local, now);
	const holder = local.get(id);
	if (holder === undefined) {
		local.set(id, { at: now, token });
		prune(local, now);
		return true;
	}
	return holder.token === token;
}

// What this n8n process keeps of a trigger node (accepted ids, what ran here, the statuses it knows, its refusal
// counts, its claims' periods and warnings) is released once its workflow is deactivated. n8n calls the trigger's
// closeFunction then, but also just before it activates the workflow again (a publish, an edit), when that memory
// still saves an execution that would pass nothing on: so the release waits RELEASE_AFTER_MS for an activation that
// keeps it. No timer in node code: the wait ends at the next activation, deactivation or delivery in this process
// (docs/maintainers.md, What each n8n process keeps in memory).
import { forgetClaims } from '../shared/claims/store';
import { forgetHere } from './ranHere';
import { forgetRefusals } from './refusals';
import { forgetStatuses } from './statusesKnown';

export const RELEASE_AFTER_MS = 10 * 60_000;

/** The trigger nodes deactivated, not activated since, and when. */
const closed = new Map<string, number>();

/** Releases the memory of the nodes deactivated RELEASE_AFTER_MS ago or more. */
export function release(now: number): void {
	for (const [scope, at] of closed) {
		if (now - at < RELEASE_AFTER_MS) continue;
		closed.delete(scope);
		forgetHere(scope);
		forgetStatuses(scope);
		forgetRefusals(scope);
		forgetClaims(scope);
	}
}

/** The node `scope` was activated: its memory is kept. */
export function opened(scope: string, now: number): void {
	closed.delete(scope);
	release(now);
}

/** The node `scope` was deactivated (or is about to be activated again). */
export function closedNow(scope: string, now: number): void {
	closed.set(scope, now);
	release(now);
}

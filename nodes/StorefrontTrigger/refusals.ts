// Refused deliveries, made visible where an n8n user looks. A wrong Webhook Secret answers every delivery 401; the
// service gives up after its retries and n8n would show nothing at all ("the trigger never fires"). So a refusal is
// said in n8n's log (naming the workflow and the reason, never a secret or digest) and, from node version 1.3, also
// becomes a failed execution of the workflow, which n8n's error workflow can report. Both are bounded per trigger node
// and n8n process, so a flood of forgeries cannot flood the log or the executions list:
//  - a warning at most once a minute, saying how many deliveries were refused since the last one;
//  - a failed execution for the first refusal, then at most one per 20 minutes: at most 3 an hour.

export const WARNING_EVERY_MS = 60_000;
export const FAILED_EXECUTION_EVERY_MS = 20 * 60_000;

interface Tally {
	lastWarning: number;
	lastExecution: number;
	/** Refusals since the last warning (that one included). */
	since: number;
}

const tallies = new Map<string, Tally>();

export interface RefusalReport {
	/** Refusals since the last warning, this one included; 0: no warning now. */
	warn: number;
	/** Whether this refusal becomes a failed execution. */
	execution: boolean;
}

/** Counts a refusal by the node `scope` (workflow id + node id) at `now`, and says what to report of it. */
export function noteRefusal(scope: string, now: number): RefusalReport {
	let tally = tallies.get(scope);
	if (!tally) tallies.set(scope, (tally = { lastWarning: -Infinity, lastExecution: -Infinity, since: 0 }));
	tally.since++;
	const report: RefusalReport = { warn: 0, execution: false };
	if (now - tally.lastWarning >= WARNING_EVERY_MS) {
		report.warn = tally.since;
		tally.since = 0;
		tally.lastWarning = now;
	}
	if (now - tally.lastExecution >= FAILED_EXECUTION_EVERY_MS) {
		report.execution = true;
		tally.lastExecution = now;
	}
	return report;
}

// Refused deliveries (docs/trigger.md): a wrong Webhook Secret answers every delivery 401 and n8n would show nothing
// ("the trigger never fires"), so a refusal is said in n8n's log (never a secret or digest) and becomes a failed
// execution, which n8n's error workflow can report. Both are bounded per trigger node and n8n process, so that a flood
// of forgeries floods neither the log nor the executions list.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Throttle } from '../shared/clock';

export const WARNING_EVERY_MS = 60_000;
export const FAILED_EXECUTION_EVERY_MS = 20 * 60_000;

const warnings = new Throttle(WARNING_EVERY_MS);
const executions = new Throttle(FAILED_EXECUTION_EVERY_MS);

/**
 * Counts a refusal by the node `scope` (workflow id + node id) at `now`, and says what to report of it: `warn`, the
 * refusals since the last warning (this one included), 0 when no warning is due; `execution`, whether this refusal
 * becomes a failed execution.
 */
export function noteRefusal(scope: string, now: number): { warn: number; execution: boolean } {
	return { warn: warnings.note(scope, now), execution: executions.note(scope, now) > 0 };
}

/** Beside `json` of the one item of a refused delivery's run: its code. */
export const REFUSED_KEY = 'storefrontRefused';

/** Where the Webhook Secret comes from, said wherever one is missing or wrong. */
export const COPY_SECRET =
	'Copy the signing secret shown next to the webhook URL in the Storefront dashboard into the "Webhook Secret" ' +
	'field of the credentials';

/** What a user can do about each refusal, said in the failed execution it becomes. */
const REFUSAL_ADVICE: Record<string, string> = {
	invalid_signature: `${COPY_SECRET}, then deactivate and activate the workflow.`,
	webhook_secret_missing: `${COPY_SECRET}.`,
	invalid_event:
		'The sender is not the Storefront service, or it sends something other than events to this URL.',
	invalid_created_at:
		'The sender sends events without a valid created_at: check the URL set in the Storefront dashboard.',
	event_outside_window:
		'The event is older than "Reject Events Older Than" allows (a late retry, or a clock that is off). Raise the ' +
		'option or remove it; Catch Up After Downtime runs such a change.',
};

/**
 * The run of a refused delivery: it fails with the reason and what to do. Asked to continue on errors, n8n would pass
 * the error on as an item, so it passes nothing instead: the next node never runs for a refused delivery (the refusal
 * is in n8n's log). Undefined when the items are not a refusal's.
 */
export function refusedRun(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
): INodeExecutionData[] | undefined {
	const refused = items.find((item) => typeof item[REFUSED_KEY] === 'string');
	if (!refused) return undefined;
	if (context.continueOnFail()) return [];
	const { code, message } = (refused.json.refused ?? {}) as IDataObject;
	throw new NodeOperationError(context.getNode(), `Refused a delivery: ${String(message)}`, {
		description: REFUSAL_ADVICE[String(code)] ?? '',
	});
}

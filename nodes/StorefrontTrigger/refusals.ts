// Refused deliveries (docs/trigger.md): a wrong Webhook Secret refuses every delivery and n8n would show nothing, so a
// refusal is said in n8n's log and fails an execution (for an error workflow), each bounded per n8n process and node.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Throttle } from '../shared/clock';

export const WARNING_EVERY_MS = 60_000;
export const FAILED_EXECUTION_EVERY_MS = 20 * 60_000;

const warnings = new Throttle(WARNING_EVERY_MS);
const executions = new Throttle(FAILED_EXECUTION_EVERY_MS);

/** Counts a refusal by `scope`. `warn`: refusals since the last warning (0: none due); `execution`: fail its run? */
export function noteRefusal(scope: string, now: number): { warn: number; execution: boolean } {
	return { warn: warnings.note(scope, now), execution: executions.note(scope, now) > 0 };
}

/** Forgets `scope`'s refusals (its test URL's too): the next one is reported at once. */
export function forgetRefusals(scope: string): void {
	for (const key of [scope, `${scope}:test`]) {
		warnings.forget(key);
		executions.forget(key);
	}
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
 * The run of a refused delivery fails with the reason and what to do; asked to continue on errors, it passes nothing
 * (not the error as an item), so no node runs for a refusal. Undefined when the items are not a refusal's.
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

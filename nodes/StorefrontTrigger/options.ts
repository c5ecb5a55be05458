// What a Storefront Trigger node does: its Options, else what its version turns on (docs/trigger.md, Options). A
// behaviour change for saved workflows is a new node version, so each default is tied to the version that brought it.
import type { IExecuteFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import { DEFAULT_REMEMBER_HOURS } from '../shared/claims/retention';

/** From this version on, "Drop Duplicate Events" is on unless the user turns it off. */
const DEDUPLICATING_VERSION = 1.2;

/** From this version on, "Catch Up After Downtime" is on unless the user turns it off, and a refusal fails a run. */
export const CATCH_UP_VERSION = 1.3;

/** From this version on, the trigger also reconciles every DEFAULT_RECONCILE_MINUTES unless the user changes it. */
const RECONCILE_VERSION = 1.4;
export const DEFAULT_RECONCILE_MINUTES = 5;

export type Options = {
	catchUp?: boolean;
	reconcileEveryMinutes?: number;
	dropDuplicates?: boolean;
	includeHeaders?: boolean;
	rejectOlderThanMinutes?: number;
	rememberHours?: number;
	leaveOutSuperseded?: boolean;
};

/** Whether duplicate events are dropped outside test runs. */
export const dropsDuplicates = (options: Options, typeVersion: number) =>
	options.dropDuplicates ?? typeVersion >= DEDUPLICATING_VERSION;

/** Whether the node catches up. It claims changes, so it needs Drop Duplicate Events. */
export const catchesUp = (options: Options, typeVersion: number) =>
	dropsDuplicates(options, typeVersion) && (options.catchUp ?? typeVersion >= CATCH_UP_VERSION);

/**
 * Minutes between two reconciliations; 0: none. The editor takes whole minutes; a workflow's JSON may say less, down
 * to MIN_RECONCILE_MINUTES (the suites' quick schedules), never a reading every second.
 */
export const reconcileMinutes = (options: Options, typeVersion: number) => {
	const minutes =
		options.reconcileEveryMinutes ??
		(typeVersion >= RECONCILE_VERSION ? DEFAULT_RECONCILE_MINUTES : 0);
	return minutes > 0 ? Math.max(MIN_RECONCILE_MINUTES, minutes) : 0;
};
const MIN_RECONCILE_MINUTES = 0.25;

/** How long claimed events and changes are remembered ("Remember Events For"), in ms. */
export const rememberMs = (options: Options) =>
	Math.max(1, options.rememberHours ?? DEFAULT_REMEMBER_HOURS) * 3_600_000;

/** Whose remembered ids and claims apply: this trigger node of this workflow. */
export const scopeOf = (context: IWebhookFunctions | IExecuteFunctions | ITriggerFunctions) =>
	`${context.getWorkflow().id ?? ''}:${context.getNode().id}`;

/**
 * Which accepted delivery (or which reading) an item came from: set beside `json`, so it never shows in the item's
 * data, and read when its run starts (./claim).
 */
export const DELIVERY_KEY = 'storefrontDelivery';

/** Which item field says where an item came from: "webhook" (a delivery) or "catchUp" (found by a reading). */
export const SOURCE_FIELD = 'source';

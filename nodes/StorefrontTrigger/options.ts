// What a Storefront Trigger node does, from its Options (docs/trigger.md, Options), and the items of its runs.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { DEFAULT_REMEMBER_HOURS } from '../shared/claims';

export const DEFAULT_CHECK_MINUTES = 5;

export type Options = {
	catchUp?: boolean;
	missedEventsCheckMinutes?: number;
	dropDuplicates?: boolean;
	includeHeaders?: boolean;
	rejectOlderThanMinutes?: number;
	rememberHours?: number;
	leaveOutSuperseded?: boolean;
};

/** Whether duplicate events are dropped outside test runs. */
export const dropsDuplicates = (options: Options) => options.dropDuplicates ?? true;

/** Whether the node catches up. It claims changes, so it needs Drop Duplicate Events. */
export const catchesUp = (options: Options) =>
	dropsDuplicates(options) && (options.catchUp ?? true);

/** Minutes between two checks; 0: none. Whole minutes, at least 1: more often would spend the shop's requests. */
export const checkMinutes = (options: Options) => {
	const minutes = options.missedEventsCheckMinutes ?? DEFAULT_CHECK_MINUTES;
	return minutes > 0 ? Math.max(1, Math.round(minutes)) : 0;
};

/** How long claims of events and changes are kept ("Remember Events For"), in ms. */
export const rememberMs = (options: Options) =>
	Math.max(1, options.rememberHours ?? DEFAULT_REMEMBER_HOURS) * 3_600_000;

/** Which accepted delivery (or reading) an item came from, read by ./claim: beside `json`, so it never shows. */
export const DELIVERY_KEY = 'storefrontDelivery';

/** What the process that received or read a change knew of it (a Judgement): read by ./claim, ./superseded. */
export const CHANGE_KEY = 'storefrontChange';

/** Which item field says where an item came from: "webhook" (a delivery) or "catchUp" (found by a reading). */
export const SOURCE_FIELD = 'source';

/** An item of a run the trigger starts: its event, and beside it (never shown) its delivery and what was known. */
export function runItem(json: IDataObject, delivery?: string, known?: object) {
	const item: INodeExecutionData = { json };
	if (delivery !== undefined) item[DELIVERY_KEY] = delivery;
	if (known) item[CHANGE_KEY] = { ...known };
	return item;
}

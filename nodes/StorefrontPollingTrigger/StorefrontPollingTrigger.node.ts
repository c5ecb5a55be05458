import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { idFieldNames, recordId, StorefrontClient } from '../shared/transport';
import { EVENT_KINDS, type EventKind } from '../shared/constants';
import {
	changedAt,
	ORDER_KINDS,
	PRODUCT_KINDS,
	readChanges,
	resourceOf,
	timeOf,
	type ChangeRead,
	type Resource,
} from '../shared/changes/read';
import {
	byTime,
	INITIAL_STATUS,
	isLowStock,
	lowStockData,
	orderData,
	orderEvents,
	paymentData,
	productData,
	productEvents,
	type PolledEvent,
} from '../shared/changes/events';
import { readState, writeState, type PollState } from '../shared/changes/state';
import { eventsSubtitle, triggerProperties } from '../shared/triggerParameters';
import { scopeOf } from '../shared/n8n';

/** Pages read at the first activation to learn the shop's recent statuses and low products. */
const BASELINE_PAGES = 5;

/** Inventory Low's default threshold: the contract's (row 16), which the webhook event reports. */
const DEFAULT_THRESHOLD = 5;

/** The polling triggers (workflow and node) whose poll is under way: none once their polls have ended. */
const running = new Set<string>();

/** A poll waits at most this long for the key's rate limit: the next poll comes within minutes anyway. */
const RATE_LIMIT_WAIT_S = 120;

/**
 * The first activation's state of a list: where it is now, nothing reported. Every record read then goes through the
 * events of every kind of the list, which learns the orders' statuses, the low products and the ids at the cursor.
 */
const baselineOf = (read: ChangeRead) => ({
	cursor: Number.isNaN(read.newest) ? 0 : read.newest,
	atCursor: [],
	sorted: read.sorted,
});

/** Fetch Test Event's sample of a kind: the record that shows it, when its event happened, its data. */
interface Sample {
	time: string;
	shows?: (record: IDataObject, threshold: number) => boolean;
	data: (record: IDataObject, threshold: number) => IDataObject;
}

const SAMPLES: Record<EventKind, Sample> = {
	// As a poll reports it: every order is created pending (docs/polling-trigger.md), whatever its status now.
	'order.created': { time: 'created_at', data: (order) => orderData(order, INITIAL_STATUS) },
	'order.updated': {
		time: 'updated_at',
		data: (order) => ({ ...orderData(order), previous_status: null }),
	},
	'payment.completed': {
		time: 'paid_at',
		shows: (order) => typeof order.paid_at === 'string',
		data: paymentData,
	},
	'product.created': { time: 'created_at', data: productData },
	'inventory.low': { time: 'updated_at', shows: isLowStock, data: lowStockData },
};

/** Fetch Test Event: the newest record that shows the first chosen kind, as that event; the state is not touched. */
async function sampleEvent(
	client: StorefrontClient,
	kinds: EventKind[],
	threshold: number,
): Promise<PolledEvent | undefined> {
	const lists: Partial<Record<Resource, IDataObject[]>> = {};
	for (const kind of kinds) {
		const resource = resourceOf(kind);
		// Most recently changed first, read once: page 1 of a list in contract row 21's order, else the whole list.
		const changed = (lists[resource] ??= [
			...(await readChanges(client, resource, undefined, 1)).records.values(),
		].sort((a, b) => changedAt(b) - changedAt(a)));
		// A creation's sample is the newest record created (a creation is a change, so among those read).
		const records = kind.endsWith('.created')
			? [...changed].sort((a, b) => timeOf(b.created_at) - timeOf(a.created_at))
			: changed;
		const { time, shows = () => true, data } = SAMPLES[kind];
		const pick = records.find((record) => shows(record, threshold));
		const id = pick && recordId(pick, resource);
		if (!pick || id === undefined) continue;
		const created_at = String(pick[time] ?? pick.created_at ?? '');
		return { id: `poll_${kind}_${id}_sample`, type: kind, created_at, data: data(pick, threshold) };
	}
	return undefined;
}

export class StorefrontPollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Storefront Polling Trigger',
		name: 'storefrontPollingTrigger',
		icon: { light: 'file:storefront.svg', dark: 'file:storefront.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: eventsSubtitle(),
		description:
			'Start workflows from Storefront orders, payments, products and stock by checking the shop on a schedule, ' +
			'with no public URL or webhook needed',
		defaults: { name: 'Storefront Polling Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'storefrontApi', required: true }],
		properties: triggerProperties(
			'Checks Storefront on the schedule of <b>Poll Times</b>: no public URL, no dashboard setting. ' +
				'The first activation notes where the shop is; every later change is reported once, in order.',
			'The changes that start the workflow, one item each',
			[
				{
					displayName: 'Low Stock Threshold',
					name: 'lowStockThreshold',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 0 },
					default: DEFAULT_THRESHOLD,
					description:
						'For Inventory Low: reported when a product changes and its stock is at or below this number ' +
						'(once, until it is seen above it again). The default, 5, is the threshold the webhook trigger uses.',
				},
			],
		),
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const kinds = this.getNodeParameter('events', []) as EventKind[];
		if (!Array.isArray(kinds) || kinds.length === 0) {
			throw new NodeOperationError(this.getNode(), 'Choose at least one event in "Events"', {
				description: 'The trigger has nothing to report until at least one event kind is selected.',
			});
		}
		const unknown = kinds.filter((kind) => !EVENT_KINDS.some((k) => k.value === kind));
		if (unknown.length) {
			throw new NodeOperationError(
				this.getNode(),
				`Unknown event in "Events": ${unknown.join(', ')}`,
			);
		}
		const options = this.getNodeParameter('options', {}) as { lowStockThreshold?: number };
		const { lowStockThreshold: threshold = DEFAULT_THRESHOLD } = options;
		if (!Number.isInteger(threshold) || threshold < 0) {
			throw new NodeOperationError(
				this.getNode(),
				'Option "Low Stock Threshold" must be a whole number of 0 or more',
			);
		}
		const client = await StorefrontClient.create(this, { maxRateLimitWait: RATE_LIMIT_WAIT_S });

		if (this.getMode() === 'manual') {
			const sample = await sampleEvent(client, kinds, threshold);
			return sample ? [this.helpers.returnJsonArray([sample])] : null;
		}

		const staticData = this.getWorkflowStaticData('node');
		// n8n starts the next scheduled poll even while one still waits (for the rate limit, say): two polls from one
		// state would report the same changes twice, so a poll that finds another running skips its turn.
		const scope = scopeOf(this);
		if (running.has(scope)) return null;
		running.add(scope);
		try {
			return await pollOnce(this, client, staticData, kinds, threshold);
		} finally {
			running.delete(scope);
		}
	}
}

/** One scheduled poll: what changed since the cursors, as events oldest first; the state moves on. */
async function pollOnce(
	context: IPollFunctions,
	client: StorefrontClient,
	staticData: IDataObject,
	kinds: EventKind[],
	threshold: number,
): Promise<INodeExecutionData[][] | null> {
	const state: PollState = readState(staticData);
	const events: Parameters<typeof byTime>[0][] = [];
	const now = Date.now();
	if (kinds.some((k) => ORDER_KINDS.includes(k))) {
		const read = await readResource(context, client, 'orders', state.orders);
		const orders = state.orders ?? { ...baselineOf(read), statuses: [] };
		// A baseline finds the events of every kind of its list (their ids at the cursor), and reports none.
		const wanted = new Set<string>(state.orders ? kinds : ORDER_KINDS);
		const changes = orderEvents(read.records.values(), orders, read.newest, wanted, now);
		if (state.orders) events.push(...changes);
		state.orders = { ...orders, sorted: read.sorted && read.stamped };
	}
	if (kinds.some((k) => PRODUCT_KINDS.includes(k))) {
		const read = await readResource(context, client, 'products', state.products);
		const products = state.products ?? { ...baselineOf(read), low: [] };
		const wanted = new Set<string>(state.products ? kinds : PRODUCT_KINDS);
		const records = read.records.values();
		const changes = productEvents(records, products, read.newest, wanted, threshold, now);
		if (state.products) events.push(...changes);
		state.products = { ...products, sorted: read.sorted && read.stamped };
	}
	// n8n saves the static data only when the poll returns items (and at activation): otherwise the cursor moves in
	// memory only, and a restart repeats that read, which reports nothing new either.
	writeState(staticData, state);
	if (events.length === 0) return null;
	return [context.helpers.returnJsonArray(events.sort(byTime).map((e) => e.event))];
}

/**
 * One list's changes since its cursor, with what is wrong with them said. Records without an id or time would go
 * unreported silently: the baseline fails naming the field, a later poll logs them. A list read whole is logged once.
 */
async function readResource(
	context: IPollFunctions,
	client: StorefrontClient,
	resource: Resource,
	state: { cursor: number; sorted: boolean } | undefined,
): Promise<ChangeRead> {
	const read = await readChanges(client, resource, state?.cursor, BASELINE_PAGES);
	const { noId, noTime } = read.skipped;
	if (noId > 0 || noTime > 0) {
		const missing = [
			noId ? `${noId} without an id (${idFieldNames(resource)})` : '',
			noTime ? `${noTime} without a time field ("updated_at" or "created_at")` : '',
		]
			.filter(Boolean)
			.join(' and ');
		const message =
			`Storefront Polling Trigger: ${missing} among the ${resource} read, ` +
			'so their changes cannot be reported';
		if (!state) {
			throw new NodeOperationError(context.getNode(), message, {
				description:
					`The trigger needs each of the ${resource} to carry its id (${idFieldNames(resource)}) ` +
					'and a time ("updated_at" or "created_at"). Ask the service which fields hold them.',
			});
		}
		context.logger.warn(`${message}; they are skipped`);
	}
	if ((read.sorted && read.stamped) || !(state?.sorted ?? true)) return read;
	const why = read.stamped
		? `does not list ${resource} most recently changed first`
		: `gives ${resource} no "updated_at", so a change is found by comparing with the last poll`;
	context.logger.warn(
		`Storefront Polling Trigger: the service ${why}, and every poll reads the whole list (one request per 100 ` +
			`${resource})`,
	);
	return read;
}

// What the polling trigger remembers between polls, in the node's static data (saved when a poll emits items, and at
// activation). Every part is capped, so it stays small however big the shop is (docs/polling-trigger.md, State).
import type { IDataObject } from 'n8n-workflow';

import { isObject } from '../transport';

/** Orders whose last seen status is kept, most recently changed last: enough for `previous_status`. */
export const MAX_STATUSES = 2000;
/** Products reported at or below the threshold (so each fall is reported once), most recent last. */
export const MAX_LOW = 2000;
/** Ids of events already emitted at the cursor's timestamp: a record changed in that same millisecond is re-read. */
export const MAX_AT_CURSOR = 1000;

interface ResourceState {
	/** `updated_at` (epoch ms) of the most recently changed record read so far; the next poll reads back to it. */
	cursor: number;
	atCursor: string[];
	/** Whether the service listed this resource most recently changed first at the last poll (contract row 21). */
	sorted: boolean;
}

export interface OrderState extends ResourceState {
	/** [order id, status] pairs, oldest change first. */
	statuses: Array<[string, string]>;
}

export interface ProductState extends ResourceState {
	/** Ids of products reported low (or created low), oldest first. */
	low: string[];
}

export interface PollState {
	orders?: OrderState;
	products?: ProductState;
}

const STATE_KEY = 'poll';
const STATE_VERSION = 1;

/** The array saved under `key` in `value`, else an empty one. */
const listIn = (value: unknown, key: string): unknown[] =>
	isObject(value) && Array.isArray(value[key]) ? (value[key] as unknown[]) : [];

function resource(value: unknown): ResourceState | undefined {
	if (!isObject(value) || typeof value.cursor !== 'number' || !Number.isFinite(value.cursor))
		return undefined;
	return {
		cursor: value.cursor,
		atCursor: listIn(value, 'atCursor').map(String),
		sorted: value.sorted !== false,
	};
}

/** The saved state, or an empty one (first activation, or state of an unknown version: a new baseline). */
export function readState(staticData: IDataObject): PollState {
	const saved = staticData[STATE_KEY];
	if (!isObject(saved) || saved.v !== STATE_VERSION) return {};
	const state: PollState = {};
	const orders = resource(saved.orders);
	if (orders) {
		state.orders = {
			...orders,
			statuses: listIn(saved.orders, 'statuses')
				.filter((p): p is [string, string] => Array.isArray(p) && p.length === 2)
				.map(([id, status]) => [String(id), String(status)]),
		};
	}
	const products = resource(saved.products);
	if (products) state.products = { ...products, low: listIn(saved.products, 'low').map(String) };
	return state;
}

/** Writes the state back into the static data object n8n saves (only its own key; other keys are left alone). */
export function writeState(staticData: IDataObject, state: PollState): void {
	staticData[STATE_KEY] = { v: STATE_VERSION, ...state } as unknown as IDataObject;
}

/** An insertion-ordered map kept to its newest `max` entries: `set` moves a key to the newest end. */
export class RecentMap<V> extends Map<string, V> {
	constructor(
		entries: Iterable<[string, V]>,
		private readonly max: number,
	) {
		super(entries);
	}

	set(key: string, value: V): this {
		this.delete(key);
		super.set(key, value);
		while (this.size > this.max) this.delete(this.keys().next().value as string);
		return this;
	}
}

// n8n's shared deduplication store for tests that run nodes through n8n-core without an n8n instance. n8n-core asks
// a deduplicator that the n8n application registers at start (DataDeduplicationService.init); n8n's own one
// (packages/cli/src/deduplication/deduplication-helper.ts, 2.41.1 and 1.123.81 alike) needs n8n's database layer,
// so this is a stand-in with the same observable behaviour for mode "entries", which the e2e, queue and reliability
// suites then check against the real one in real n8n:
//  - one row per workflow and context ("n:<node id>" for scope node, "" for scope workflow), values stored as the
//    base64 MD5 of their string, newest last, trimmed to maxEntries from the front;
//  - a call reads the row, then (after an await, as the database round trip) inserts it or writes it back whole:
//    no lock, so overlapping calls lose each other's values; two first-ever inserts: one fails on the unique key;
//    writing back a row deleted meanwhile changes nothing;
//  - removeProcessed reads and writes back the same way, clearAllProcessedItems deletes the row, and a row saved in
//    another mode (`otherModes`: another node's) refuses calls in mode "entries" and counts 0 values.
// `pause` lets a test hold a call before its read and before its write, to play out a given interleaving.
import { createHash } from 'crypto';
import type {
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

import type { StoreRow } from '../../nodes/shared/n8n';
import { core } from './core';

const hash = (value: unknown) => createHash('md5').update(String(value)).digest('base64');

export class InMemoryDeduplicator implements IDataDeduplicator {
	readonly rows = new Map<string, string[]>();
	/** Rows saved in another mode than "entries" (by another node): n8n refuses calls in mode "entries" on them. */
	readonly otherModes = new Map<string, string>();
	/** Awaited before a call reads the row and before it writes it, when set; `call` is the same object for both. */
	pause?: (step: 'read' | 'write', values: string[], call: object) => Promise<void>;

	private key(scope: string, { workflow, node }: ICheckProcessedContextData) {
		return `${workflow.id}|${scope === 'node' ? `n:${node?.id}` : ''}`;
	}

	async checkProcessedAndRecord(
		items: Array<string | number>,
		scope: 'node' | 'workflow',
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new Error('the test store only keeps mode "entries"');
		const key = this.key(scope, contextData);
		const call = {};
		await this.pause?.('read', items.map(String), call);
		this.validateMode(key);
		const read = this.rows.get(key);
		const stored = read ? [...read] : undefined;
		await Promise.resolve();
		await this.pause?.('write', items.map(String), call);
		const hashes = items.map(hash);
		const result: IDeduplicationOutput = { new: [], processed: [] };
		const data = stored ?? [];
		const seen = new Set(data);
		hashes.forEach((value, index) => {
			if (seen.has(value)) result.processed.push(items[index]);
			else {
				result.new.push(items[index]);
				data.push(value);
			}
		});
		if (options.maxEntries) data.splice(0, data.length - options.maxEntries);
		if (stored === undefined && this.rows.has(key)) {
			throw Object.assign(
				new Error('duplicate key value violates unique constraint "PK_processed_data"'),
				{ code: '23505' },
			);
		}
		// n8n's UPDATE of a row deleted since the read changes nothing (and says nothing).
		if (stored !== undefined && !this.rows.has(key)) return result;
		this.rows.set(key, data);
		return result;
	}

	/** n8n's validateMode: a row saved in another mode refuses the call, before anything is written. */
	private validateMode(key: string) {
		const mode = this.otherModes.get(key);
		if (mode && this.rows.has(key)) {
			throw new Error(
				`Deduplication Failed: Deduplication data was originally saved with an incompatible setting (${mode})`,
			);
		}
	}

	async removeProcessed(
		items: Array<string | number>,
		scope: 'node' | 'workflow',
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		if (options.mode !== 'entries') throw new Error('the test store only keeps mode "entries"');
		const key = this.key(scope, contextData);
		const call = {};
		await this.pause?.('read', items.map(String), call);
		const read = this.rows.get(key);
		if (!read) return;
		const data = [...read];
		await Promise.resolve();
		await this.pause?.('write', items.map(String), call);
		for (const value of items.map(hash)) {
			const index = data.indexOf(value);
			if (index !== -1) data.splice(index, 1);
		}
		// n8n's update of a row that is gone meanwhile changes nothing.
		if (this.rows.has(key)) this.rows.set(key, data);
	}

	async clearAllProcessedItems(
		scope: 'node' | 'workflow',
		contextData: ICheckProcessedContextData,
	): Promise<void> {
		const call = {};
		await this.pause?.('read', [], call);
		await this.pause?.('write', [], call);
		const key = this.key(scope, contextData);
		this.rows.delete(key);
		this.otherModes.delete(key);
	}

	async getProcessedDataCount(
		scope: 'node' | 'workflow',
		contextData: ICheckProcessedContextData,
	): Promise<number> {
		await this.pause?.('read', [], {});
		const key = this.key(scope, contextData);
		// n8n counts the values of rows in mode "entries" only.
		return this.otherModes.has(key) ? 0 : (this.rows.get(key)?.length ?? 0);
	}
}

let registered: InMemoryDeduplicator | undefined;

/** The deduplicator n8n-core asks in this test file (one per module registry, as n8n registers one per process). */
export function sharedDeduplicator(): InMemoryDeduplicator {
	if (!registered) {
		registered = new InMemoryDeduplicator();
		void core.DataDeduplicationService.init(registered);
	}
	return registered;
}

/** The context n8n gives the store for a trigger node of the workflow `id` (whose rows the claims use). */
export const triggerContext = (id: string) => ({
	workflow: { id, active: true },
	node: {
		id: 'trigger',
		name: 'Storefront Trigger',
		type: 'storefrontTrigger',
		typeVersion: 2,
		position: [0, 0] as [number, number],
		parameters: {},
	},
});

/**
 * One scope's row of `store` ("node": the claims, "workflow": the lock), as the package reaches n8n's helper
 * (nodes/shared/n8n.ts): the claims' StoreRow. `maxEntries` trims the row where a call gives no `keepLast`.
 */
export function storeRowOf(
	store: InMemoryDeduplicator,
	scope: 'node' | 'workflow',
	context: ICheckProcessedContextData,
	maxEntries?: number,
): StoreRow {
	return {
		count: async () => await store.getProcessedDataCount(scope, context),
		record: async (values, keepLast) =>
			new Set(
				(
					await store.checkProcessedAndRecord(values, scope, context, {
						mode: 'entries',
						maxEntries: keepLast ?? maxEntries,
					})
				).processed.map(String),
			),
		remove: async (values) =>
			await store.removeProcessed(values, scope, context, { mode: 'entries' }),
		clear: async () => await store.clearAllProcessedItems(scope, context),
	};
}

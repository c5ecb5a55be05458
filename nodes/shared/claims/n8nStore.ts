// The claim store over n8n's own deduplication helper (./sharedClaims works on any StoreAccess): the node's row for
// its claims, the workflow's row for the lock (unless a Remove Duplicates node keeps its memory there), and the
// warnings a user reads in n8n's log when a claim goes without the lock.
import type { IExecuteFunctions, ICheckProcessedOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Throttle } from '../clock';
import { helperRow, isUniqueViolation, workflowRowUser } from '../n8n';
import { MAX_ROW_VALUES } from './retention';
import { storeOver, type SharedStore } from './sharedClaims';

/** The trigger node's row: entries, at most MAX_ROW_VALUES of them; trimmed by time (./retention). */
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ROW_VALUES };
/** The lock's row: entries, never trimmed (a lock row holds a few values). */
const LOCK_OPTIONS: ICheckProcessedOptions = { mode: 'entries' };

/** A unique-key violation is retried (up to 3 calls); every other failure becomes the node's error. */
async function retryingUniqueKey<T>(
	context: IExecuteFunctions,
	call: () => Promise<T>,
): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await call();
		} catch (error) {
			// The very first insert of the node's row by two processes at once: one gets a unique-key violation. The
			// row exists then, so the same call reads it like any later one.
			if (attempt < 3 && isUniqueViolation(error)) continue;
			throw new NodeOperationError(context.getNode(), error as Error);
		}
	}
}

/**
 * The warning of a batch without the lock, at most once a minute per node: a foreign row makes every batch go without.
 */
const unlockedWarnings = new Throttle(60_000);
/** The nodes told that a Remove Duplicates node keeps the lock's row (a setting: said once per node while n8n runs). */
const toldSharedRow = new Set<string>();

// The lock's row is the workflow-scope row of n8n's store, the one n8n's Remove Duplicates node uses with Scope
// Workflow (Remove Items Processed in Previous Executions, and its Clean Database) — the only node of n8n's that uses
// the store. Sharing it would harm that node: a lock inserted before its first call takes its values, and releasing the
// lock deletes them (updates of orders it had passed got through), its first insert can collide with
// the lock's (a failed execution), and its Clean Database deletes a held lock. So a trigger that finds such a node
// connected to it never touches the row and claims without the lock: exact within one n8n process (its calls for a
// node never overlap), the small window of docs/maintainers.md across processes. Every Storefront Trigger of a workflow
// takes the lock the same way, so they share it as one lock; their claims are each in its own node's row. How such a
// node is found (workflowRowUser) is n8n's, in ../n8n.

/** How the warnings of a store name its node, its claims and what can happen without the lock. */
export interface ClaimWords {
	node: string;
	claims: string;
	risk: string;
	doc: string;
}

/**
 * The node's values in n8n's database, through the deduplication helper; undefined where this n8n has none.
 * `scope` names the node in this running n8n (workflow id + node id): its calls are batched one after the other.
 */
export function sharedStore(
	context: IExecuteFunctions,
	scope: string,
	retentionMs: number,
	words: ClaimWords,
): SharedStore | undefined {
	const helpers = context.helpers;
	const needed = [
		'checkProcessedAndRecord',
		'getProcessedDataCount',
		'removeProcessed',
		'clearAllProcessedItems',
	] as const;
	if (needed.some((name) => typeof helpers[name] !== 'function')) return undefined;
	const data = helperRow(context, 'node', OPTIONS);
	const rowUser = workflowRowUser(context);
	return storeOver(scope, {
		// The claims' calls fail as the node's errors; the lock's are read as they are (codes and n8n's messages).
		data: {
			count: async () => await retryingUniqueKey(context, data.count),
			record: async (values, keepLast) =>
				await retryingUniqueKey(context, async () => await data.record(values, keepLast)),
			remove: data.remove,
			clear: data.clear,
		},
		lock: rowUser === undefined ? helperRow(context, 'workflow', LOCK_OPTIONS) : undefined,
		lockKey: String(context.getWorkflow().id ?? ''),
		retentionMs,
		onUnlocked: (why, waitedMs) => {
			if (why === 'shared row') {
				if (toldSharedRow.has(scope)) return;
				toldSharedRow.add(scope);
				return context.logger.warn(
					`${words.node}: node "${rowUser}" (Remove Duplicates, Scope: Workflow) keeps its memory in the database ` +
						`row ` +
						`the claim lock is made of, so ${words.node} leaves that row to it and claims ${words.claims} without ` +
						`the ` +
						`lock: exact within one n8n process; across processes (queue mode) ${words.risk} (${words.doc})`,
				);
			}
			if (!unlockedWarnings.note(scope, Date.now())) return;
			context.logger.warn(
				`${words.node}: claimed ${words.claims} in n8n's database without the claim lock (${why}, after ${waitedMs} ` +
					`ms), so ${words.risk} (${words.doc})`,
			);
		},
	});
}

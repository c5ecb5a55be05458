// The claim store over n8n's own deduplication helper (./index works on any StoreAccess): the node's row for
// its claims, the workflow's row for the lock (unless a Remove Duplicates node keeps its memory there), and the
// warnings a user reads in n8n's log when a claim goes without the lock.
import type { IExecuteFunctions, ICheckProcessedOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { helperRow, isUniqueViolation, workflowRowUser } from '../n8n';
import type { StoreRow, Unlocked } from './claimLock';
import { MAX_ROW_VALUES, storeOver, type SharedStore } from './index';

/** The trigger node's row: entries, at most MAX_ROW_VALUES of them; trimmed by time (./index, turnPeriod). */
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

/** A batch without the lock is told at most once a minute per node: a foreign row makes every batch go without. */
const UNLOCKED_WARNING_EVERY_MS = 60_000;
/** Per node, when that warning was last said. */
const unlockedWarnedAt = new Map<string, number>();
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
	const row = helperRow(context, 'node', OPTIONS);
	// The claims' calls fail as the node's errors; the lock's are read as they are (codes and n8n's messages).
	const data: StoreRow = {
		count: async () => await retryingUniqueKey(context, row.count),
		record: async (values, keepLast) =>
			await retryingUniqueKey(context, async () => await row.record(values, keepLast)),
		remove: row.remove,
		clear: row.clear,
	};
	const rowUser = workflowRowUser(context);
	const lock = rowUser === undefined ? helperRow(context, 'workflow', LOCK_OPTIONS) : undefined;
	const onUnlocked = (why: Unlocked, waitedMs: number) => {
		if (why === 'shared row') {
			if (toldSharedRow.has(scope)) return;
			toldSharedRow.add(scope);
			return context.logger.warn(
				`${words.node}: node "${rowUser}" (Remove Duplicates, Scope: Workflow) keeps its memory in the database ` +
					`row the claim lock is made of, so ${words.node} leaves that row to it and claims ${words.claims} ` +
					`without the lock: exact within one n8n process; across processes (queue mode) ${words.risk} ` +
					`(${words.doc})`,
			);
		}
		const now = Date.now();
		if (now - (unlockedWarnedAt.get(scope) ?? -Infinity) < UNLOCKED_WARNING_EVERY_MS) return;
		unlockedWarnedAt.set(scope, now);
		context.logger.warn(
			`${words.node}: claimed ${words.claims} in n8n's database without the claim lock (${why}, after ${waitedMs} ` +
				`ms), so ${words.risk} (${words.doc})`,
		);
	};
	const lockKey = String(context.getWorkflow().id ?? '');
	return storeOver(scope, { data, lock, lockKey, retentionMs, onUnlocked });
}

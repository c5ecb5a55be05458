// The claims' store in n8n: the protocol (./index, ./claimLock) over the rows of n8n's deduplication store, which
// ../n8n reads (helperRow), with n8n's log for the claims made without the lock. Below it, ../n8n knows nothing of
// the protocol.
import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { helperRow, isUniqueViolation, scopeOf, workflowRowUser, type StoreRow } from '../n8n';
import type { Unlocked } from './claimLock';
import { forgetPeriods, MAX_ROW_VALUES, storeOver, type SharedStore } from './index';

/** The node's row: entries, at most MAX_ROW_VALUES of them; trimmed by time (./index, turnPeriod). */
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ROW_VALUES };
/** The lock's row: entries, never trimmed (a lock row holds a few values). */
const LOCK_OPTIONS: ICheckProcessedOptions = { mode: 'entries' };

/** Retries a unique-key violation (the node row's first insert by two processes: the row exists then). */
async function retryingUniqueKey<T>(
	context: IExecuteFunctions,
	call: () => Promise<T>,
): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await call();
		} catch (error) {
			if (attempt < 3 && isUniqueViolation(error)) continue;
			throw new NodeOperationError(context.getNode(), error as Error);
		}
	}
}

/** Claims without the lock are told at most once a minute per node (a foreign row makes every batch go without). */
const UNLOCKED_WARNING_EVERY_MS = 60_000;
const unlockedWarnedAt = new Map<string, number>();
/** A Remove Duplicates node sharing the lock's row is a setting: told once per node while n8n runs. */
const toldSharedRow = new Set<string>();

/** Forgets what this process keeps of `scope`'s claims: its warnings are said again, its periods read again. */
export function forgetClaims(scope: string): void {
	unlockedWarnedAt.delete(scope);
	toldSharedRow.delete(scope);
	forgetPeriods(scope);
}

/** How the warnings of a store name its node, its claims and what can happen without the lock. */
export interface ClaimWords {
	node: string;
	claims: string;
	risk: string;
	doc: string;
}

/**
 * The node's claims in n8n's database: the node's row for the claims, the workflow's for the lock (unless a Remove
 * Duplicates node uses it), a warning in n8n's log for claims without the lock.
 */
export function sharedStore(
	context: IExecuteFunctions,
	retentionMs: number,
	words: ClaimWords,
): SharedStore {
	const scope = scopeOf(context);
	const row = helperRow(context, 'node', OPTIONS);
	// The claims' calls fail as the node's errors; the lock's are read as they are (codes and n8n's messages).
	const data: StoreRow = {
		...row,
		count: async () => await retryingUniqueKey(context, row.count),
		record: async (values, keepLast) =>
			await retryingUniqueKey(context, async () => await row.record(values, keepLast)),
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

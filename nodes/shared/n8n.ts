// What the nodes rely on inside n8n that n8n does not document as API, in one place. Each part names the n8n
// behaviour it reads and its contract test (test/n8n/contract.test.ts, "n8n contract: …"), which runs it against the
// real n8n of every matrix cell, so that an n8n release that changes one fails CI by name. The whole list, with the
// behaviours that have no code here: docs/maintainers.md, What the code relies on in n8n.
import type {
	DeduplicationScope,
	ICheckProcessedOptions,
	IDataObject,
	IExecuteFunctions,
	IRun,
	NodeTypeAndVersion,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MAX_ROW_VALUES, storeOver, type SharedStore } from './claims';
import type { StoreRow, Unlocked } from './claims/claimLock';

/**
 * n8n handles a webhook start node of version 1 as its own legacy Webhook v1: it evaluates
 * `$parameter.options.binaryData` on every delivery (an expression isolate each time) to decide whether to parse the
 * body. So a webhook node of this package starts at 2. Contract: "a webhook start node of version 1 is handled as the
 * legacy Webhook v1".
 */
export const FIRST_WEBHOOK_NODE_VERSION = 2;

/**
 * One scope's row of n8n's deduplication store (table `processed_data`, one row per workflow and scope) through the
 * helpers n8n gives a run's steps. In mode "entries" checkProcessedAndRecord answers, in `processed`, which values the
 * row had before the call, adds the others after them and, with maxEntries, drops the oldest down to maxEntries; the
 * first call on a scope inserts the row (isUniqueViolation). Contract: "the dedupe store keeps rows as the claims read
 * them" (docs/maintainers.md lists the other helpers' part).
 * @public The contract test's probe node runs it in real n8n (test/n8n/probe).
 */
export function helperRow(
	context: IExecuteFunctions,
	scope: DeduplicationScope,
	options: ICheckProcessedOptions,
): StoreRow {
	const helpers = context.helpers;
	return {
		count: async () => await helpers.getProcessedDataCount(scope, options),
		record: async (values, keepLast) => {
			const trimmed = keepLast === undefined ? options : { ...options, maxEntries: keepLast };
			const recorded = await helpers.checkProcessedAndRecord(values, scope, trimmed);
			return new Set(recorded.processed.map(String));
		},
		remove: async (values) => await helpers.removeProcessed(values, scope, options),
		clear: async () => await helpers.clearAllProcessedItems(scope, options),
	};
}

/**
 * A unique-key violation: two first inserts of the same row at once, as n8n's database drivers report it (Postgres
 * 23505, SQLite SQLITE_CONSTRAINT, MySQL ER_DUP_ENTRY, or their wording); n8n passes the driver's error on. Contract:
 * "two first inserts of a row: one fails as a unique-key violation".
 */
export const isUniqueViolation = (error: unknown) => {
	const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
	return (
		['23505', 'SQLITE_CONSTRAINT', 'ER_DUP_ENTRY'].includes(String(code)) ||
		/unique constraint|duplicate key|duplicate entry/i.test(String(message))
	);
};

/**
 * n8n's refusal of a call in another mode than the row was saved in ("Deduplication Failed: … incompatible
 * setting …"): the row is then another node's, and it counts 0 values in mode "entries". Contract: "a row saved in
 * another mode refuses a call in mode entries".
 */
export const isModeRefusal = (error: unknown) =>
	/^Deduplication Failed/.test(String((error as { message?: unknown })?.message));

// n8n's Remove Duplicates node is the only node of n8n's that uses the store. With Scope Workflow its operations Remove
// Items Processed in Previous Executions and Clean Database use the workflow-scope row, the claim lock's row. Sharing
// it would harm that node: a lock inserted before its first call takes its values, releasing the lock deletes them
// (updates of orders it had passed got through), its first insert can collide with the lock's (a failed execution),
// and its Clean Database deletes a held lock. So a trigger that finds such a node connected to it never touches the
// row and claims without the lock (sharedStore). Its type name, operation values and `options.scope` (default Node)
// are read from the saved workflow. Contract: "Remove Duplicates with Scope Workflow keeps its memory in the lock's
// row, and is found connected to the trigger".
const REMOVE_DUPLICATES = 'n8n-nodes-base.removeDuplicates';
const WORKFLOW_ROW_OPERATIONS = [
	'removeItemsSeenInPreviousExecutions',
	'clearDeduplicationHistory',
];

const usesWorkflowRow = ({ type, disabled, parameters }: NodeTypeAndVersion) =>
	type === REMOVE_DUPLICATES &&
	!disabled &&
	WORKFLOW_ROW_OPERATIONS.includes(String(parameters?.operation)) &&
	// Node is its default; an expression may name either, so only Node itself is safe.
	((parameters?.options as IDataObject | undefined)?.scope ?? 'node') !== 'node';

/**
 * The name of a node connected to the running node (before or after it, through any node) that uses the workflow-scope
 * row, read through getChildNodes/getParentNodes with `includeNodeParameters` (the nodes' saved parameters).
 * @public The contract test's probe node runs it in real n8n (test/n8n/probe).
 */
export function workflowRowUser(context: IExecuteFunctions): string | undefined {
	const seen = new Set([context.getNode().name]);
	const next = [...seen];
	for (let name = next.pop(); name !== undefined; name = next.pop()) {
		const around = [
			...context.getChildNodes(name, { includeNodeParameters: true }),
			...context.getParentNodes(name, { includeNodeParameters: true }),
		];
		for (const node of around) {
			if (seen.has(node.name)) continue;
			if (usesWorkflowRow(node)) return node.name;
			seen.add(node.name);
			next.push(node.name);
		}
	}
	return undefined;
}

/**
 * Whether the run that trigger() emitted ran `node`'s execute() without an error, from the IRun that the deferred
 * promise given to emit() resolves with when the run ends, on a queue worker too. n8n's summary of a queue-mode run
 * may carry no node data: the node then ran if the run succeeded or failed at a later node. Contract: "emit's done
 * promise resolves with the run, and tells whether the node's step ran".
 */
export function claimedIn(run: IRun | undefined, node: string): boolean {
	if (!run) return false;
	const { runData, lastNodeExecuted } = run.data.resultData;
	const step = runData[node]?.[0];
	if (step) return !step.error;
	if (run.status === 'success') return true;
	return run.status === 'error' && lastNodeExecuted !== undefined && lastNodeExecuted !== node;
}

/** The node's row: entries, at most MAX_ROW_VALUES of them; trimmed by time (./index, turnPeriod). */
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

/** How the warnings of a store name its node, its claims and what can happen without the lock. */
export interface ClaimWords {
	node: string;
	claims: string;
	risk: string;
	doc: string;
}

/**
 * The node's claims in n8n's database, through the deduplication helper (every n8n this package supports has it, in
 * execute() and tool contexts alike): the node's row for the claims, the workflow's for the lock (unless a Remove
 * Duplicates node keeps its memory there), and a warning in n8n's log when a claim goes without the lock. `scope`
 * names the node in this running n8n (workflow id + node id): its calls are batched one after the other.
 */
export function sharedStore(
	context: IExecuteFunctions,
	scope: string,
	retentionMs: number,
	words: ClaimWords,
): SharedStore {
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

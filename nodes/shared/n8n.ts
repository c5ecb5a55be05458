// What the nodes rely on inside n8n that n8n does not document as API, in one place (docs/maintainers.md, What the
// code relies on in n8n). Each part names its contract test (test/n8n/contract.test.ts, "n8n contract: …"), run on
// every matrix cell's n8n, so that an n8n release that changes one fails CI by name.
import type {
	DeduplicationScope,
	ICheckProcessedOptions,
	IDataObject,
	IExecuteFunctions,
	IPollFunctions,
	IRun,
	ITriggerFunctions,
	IWebhookFunctions,
	NodeTypeAndVersion,
} from 'n8n-workflow';

/**
 * n8n takes a webhook start node of version 1 for its legacy Webhook v1, which builds an expression isolate on every
 * delivery. Contract: "a webhook start node of version 1 is handled as the legacy Webhook v1".
 */
export const FIRST_WEBHOOK_NODE_VERSION = 2;

/** One row of n8n's deduplication store (mode "entries"): the claims' (./claims) lock row and node row. */
export interface StoreRow {
	/** How many values the row holds; 0 when there is no row. A read: it writes nothing. */
	count(): Promise<number>;
	/**
	 * Records values, inserting the row when there is none (a unique-key violation when another insert won), keeping its
	 * last `keepLast` when given. Resolves to those the row had.
	 */
	record(values: string[], keepLast?: number): Promise<Set<string>>;
	/** Takes values out of the row (read, then rewrite). */
	remove(values: string[]): Promise<void>;
	clear(): Promise<void>;
}

/**
 * One scope's row of n8n's deduplication store, through the helpers n8n gives a run's steps (docs/maintainers.md, The
 * deduplication store's rows). Contract: "the dedupe store keeps rows as the claims read them".
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
 * Two first inserts of one row at once, as the database driver reports it (n8n passes its error on). Contract: "two
 * first inserts of a row: one fails as a unique-key violation".
 */
export const isUniqueViolation = (error: unknown) => {
	const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
	return (
		['23505', 'SQLITE_CONSTRAINT', 'ER_DUP_ENTRY'].includes(String(code)) ||
		/unique constraint|duplicate key|duplicate entry/i.test(String(message))
	);
};

/**
 * n8n refusing a call in another mode than the row's: the row is another node's (it counts 0 in mode "entries").
 * Contract: "a row saved in another mode refuses a call in mode entries".
 */
export const isModeRefusal = (error: unknown) =>
	/^Deduplication Failed/.test(String((error as { message?: unknown })?.message));

// n8n's Remove Duplicates with Scope Workflow keeps its memory in the lock's row (docs/maintainers.md). Sharing it
// would harm it (the lock takes or deletes its values, first inserts collide, its Clean Database deletes a held lock),
// so a trigger connected to one claims without the lock. Contract: "Remove Duplicates with Scope Workflow keeps its
// memory in the lock's row, and is found connected to the trigger".
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
 * The name of a node connected to the running node, before or after it through any node, that uses the workflow row.
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
 * Whether a run that trigger() emitted ran `node`'s execute() without an error, from the run emit's done promise
 * resolves with. A queue-mode run's summary may carry no node data: then its status and last node tell. Contract:
 * "emit's done promise resolves with the run, and tells whether the node's step ran".
 */
export function claimedIn(run: IRun | undefined, node: string): boolean {
	if (!run) return false;
	const { runData, lastNodeExecuted } = run.data.resultData;
	const step = runData[node]?.[0];
	if (step) return !step.error;
	if (run.status === 'success') return true;
	return run.status === 'error' && lastNodeExecuted !== undefined && lastNodeExecuted !== node;
}

/**
 * Whether the running node is the AI-tool variant n8n makes of a node (usableAsTool): its type is the node's with
 * "Tool" appended (n8n 2.x's NodeHelpers.isToolType reads it so; 1.x has no helper). Contract: the AI Agent suite's "a
 * forbidden transition: the model gets the service's 409 message as the result" (test/ai), in every matrix cell.
 */
export const isAiTool = (context: IExecuteFunctions) => context.getNode().type.endsWith('Tool');

/** This node of this workflow: whose accepted ids, claims, polls and warnings in this n8n they are. */
export const scopeOf = (
	context: IWebhookFunctions | IExecuteFunctions | ITriggerFunctions | IPollFunctions,
) => `${context.getWorkflow().id ?? ''}:${context.getNode().id}`;

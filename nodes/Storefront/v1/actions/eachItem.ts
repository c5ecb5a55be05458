// The loop every operation runs its items in, as n8n's own nodes loop over theirs: up to Max Concurrent Requests
// items at once, items of one record in input order, a failure handled as the node's settings say.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { Clock } from '../../../shared/clock';
import { isAiTool } from '../../../shared/n8n';
import type { StorefrontClient } from '../../../shared/transport';
import type { OperationExecute, RunSettings } from './common';
import { asNodeError, DEFAULT_CONCURRENCY, locatorValue } from './common';

type Outcome = { ok: true; json: IDataObject | IDataObject[] } | { ok: false; error: unknown };

/** With a bound, a wait for a turn looks at the clock this often (the turn's end ends the wait at once). */
const TURN_CHECK_MS = 1_000;

/** A holder's turn: when it began (by the bound's clock) and when it ended. */
export interface Turn {
	began: Promise<number>;
	ended: Promise<void>;
}

/**
 * Waits for `key`'s turn in `turns`, until the holder ahead let go; with `bound`, at most until that holder has held
 * its turn `maxWaitMs` (then it goes on beside a holder that never lets go). Returns this turn's release.
 */
export async function turnOf(
	turns: Map<string, Turn>,
	key: string,
	bound?: { clock: Clock; maxWaitMs: number },
): Promise<() => void> {
	const previous = turns.get(key);
	let release = () => {};
	let begin: (at: number) => void = () => {};
	const mine: Turn = {
		began: new Promise<number>((resolve) => (begin = resolve)),
		ended: new Promise<void>((resolve) => (release = resolve)),
	};
	turns.set(key, mine);
	if (previous && bound) {
		let ended = false;
		void previous.ended.then(() => (ended = true));
		const { clock, maxWaitMs } = bound;
		const since = await previous.began;
		while (!ended && clock.now() - since < maxWaitMs)
			await Promise.race([previous.ended, clock.sleep(TURN_CHECK_MS)]);
	} else await previous?.ended;
	begin(bound?.clock.now() ?? 0);
	return () => {
		release();
		if (turns.get(key) === mine) turns.delete(key);
	};
}

/** Up to `limit` items at once, in input order, one key's in turn; none starts once a failure stops the node. */
async function runItems(
	count: number,
	limit: number,
	keyOf: (itemIndex: number) => string | undefined,
	run: (itemIndex: number) => Promise<Outcome>,
): Promise<Outcome[]> {
	const outcomes: Outcome[] = new Array<Outcome>(count);
	const tails = new Map<string, Turn>();
	let next = 0;
	let stopped = false;
	const worker = async () => {
		while (!stopped && next < count) {
			const itemIndex = next++;
			const key = keyOf(itemIndex);
			const done = key === undefined ? () => {} : await turnOf(tails, key);
			try {
				const outcome = await run(itemIndex);
				outcomes[itemIndex] = outcome;
				if (!outcome.ok) stopped = true;
			} finally {
				done();
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
	return outcomes;
}

/** Max Concurrent Requests, a whole number of 1 or more: the default where an expression gives no number. */
export function concurrencyOf(context: IExecuteFunctions): number {
	const asked = context.getNodeParameter('options.maxConcurrency', 0, DEFAULT_CONCURRENCY);
	return typeof asked === 'number' && Number.isFinite(asked)
		? Math.max(1, Math.floor(asked))
		: DEFAULT_CONCURRENCY;
}

/**
 * A tool answers the model with the error on every n8n line, not only on 2.x: n8n 1.x would stop the workflow and
 * the agent never hear why (docs/ai-agent.md, When a call is refused). "Stop Workflow" still stops it.
 */
function answersItsModel(context: IExecuteFunctions): boolean {
	return isAiTool(context) && context.getNode().onError !== 'stopWorkflow';
}

/** Whether an item's failure stops the node ("On Error: Stop Workflow"), or becomes that item's output. */
export const failureStops = (context: IExecuteFunctions, { continueOnFail }: RunSettings) =>
	!continueOnFail && !answersItsModel(context);

/** Runs `run` for each item, output paired with input. `record` names an item's record: a parameter or a function. */
export async function eachItem(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	{ continueOnFail }: RunSettings,
	run: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
	record?: string | ((itemIndex: number) => string | undefined),
): Promise<INodeExecutionData[]> {
	const answersModel = answersItsModel(this);
	const attempt = async (itemIndex: number): Promise<Outcome> => {
		try {
			return { ok: true, json: await run(itemIndex) };
		} catch (error) {
			if (!answersModel && !continueOnFail) return { ok: false, error };
			const { message, description } = error as { message: string; description?: string };
			// Details only where they add to the message for a model, which pays per token (as n8n's tool wrapper).
			const details = description && !(answersModel && message.includes(description));
			return {
				ok: true,
				json: details ? { error: message, details: description } : { error: message },
			};
		}
	};
	const concurrency = concurrencyOf(this);
	const keyOf =
		concurrency === 1 || record === undefined
			? () => undefined
			: typeof record === 'string'
				? (itemIndex: number) => {
						try {
							return locatorValue(this, record, itemIndex);
						} catch {
							return undefined;
						}
					}
				: record;
	const outcomes = await runItems(items.length, concurrency, keyOf, attempt);

	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < outcomes.length; itemIndex++) {
		const outcome = outcomes[itemIndex];
		// Items after a failure never started or were not claimed: the first failure by index stops the node.
		if (!outcome) continue;
		if (!outcome.ok) throw asNodeError(this, outcome.error, itemIndex);
		const records = Array.isArray(outcome.json) ? outcome.json : [outcome.json];
		for (const json of records) returnData.push({ json, pairedItem: { item: itemIndex } });
	}
	return returnData;
}

/** The execute of an operation whose items each make their own requests (`record`: as in eachItem). */
export function perItem(
	run: (
		this: IExecuteFunctions,
		client: StorefrontClient,
		itemIndex: number,
	) => Promise<IDataObject | IDataObject[]>,
	record?: string,
): OperationExecute {
	return async function (this: IExecuteFunctions, items, settings) {
		return await eachItem.call(this, items, settings, run.bind(this, settings.client), record);
	};
}

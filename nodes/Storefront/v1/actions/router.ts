import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ClientSettings } from '../../../shared/transport';
import { duration, StorefrontClient } from '../../../shared/transport';
import * as analytics from './analytics';
import type { OperationExecute } from './common';
import { asNodeError, DEFAULT_CONCURRENCY } from './common';
import * as customer from './customer';
import * as order from './order';
import * as product from './product';
import type { OpenSession, RunSession } from './session';
import * as store from './store';

/**
 * What an operation file exports: its execute and the parameter naming the record it changes or reads, if any; or,
 * for an operation on the run as a whole, openSession.
 */
interface Operation {
	execute?: OperationExecute;
	recordParameter?: string;
	openSession?: OpenSession;
}

const resources: Record<string, Record<string, Operation | unknown>> = {
	analytics,
	customer,
	order,
	product,
	store,
};

/** The client's settings from the node's options. */
function settingsFrom(options: IDataObject): Partial<ClientSettings> {
	const settings: Partial<ClientSettings> = {};
	if (typeof options.maxRequestsPerMinute === 'number')
		settings.maxRequestsPerMinute = Math.max(0, options.maxRequestsPerMinute);
	if (typeof options.maxRetries === 'number')
		settings.maxRetries = Math.max(0, Math.floor(options.maxRetries));
	if (typeof options.retryDelay === 'number')
		settings.retryDelayMs = Math.max(0, options.retryDelay);
	if (typeof options.maxRateLimitWait === 'number')
		settings.rateLimitWaitMs = Math.max(0, options.maxRateLimitWait) * 1000;
	if (typeof options.timeout === 'number') settings.timeoutMs = Math.max(1, options.timeout) * 1000;
	return settings;
}

/** Items sent at once ("Max Concurrent Requests"). */
function concurrencyOf(options: IDataObject): number {
	const value = options.maxConcurrency;
	return typeof value === 'number' && Number.isFinite(value)
		? Math.max(1, Math.floor(value))
		: DEFAULT_CONCURRENCY;
}

/**
 * Whether a failed call goes back to the AI model as the tool's result, `[{"error": "…"}]`, instead of failing the
 * node. n8n 2.x does this itself for tool nodes, but n8n 1.x stops the whole workflow on the first refused call
 * (a 409 for a move the model should not have tried), and the agent never hears why. So the tool variant answers
 * the model on every n8n line, unless the user chose "Stop Workflow" in the node's settings.
 */
function answersModelWithError(ctx: IExecuteFunctions): boolean {
	const node = ctx.getNode();
	return node.type.endsWith('Tool') && node.onError !== 'stopWorkflow';
}

type Outcome = { ok: true; json: IDataObject | IDataObject[] } | { ok: false; error: unknown };

/**
 * Runs `run` for every item, up to `limit` at once, claiming items in input order. Items with the same record key
 * run one after another in input order (a price set twice ends with the second); after a failure that stops the
 * node no further item starts. Outcomes come back by item index.
 */
async function runItems(
	count: number,
	limit: number,
	keyOf: (itemIndex: number) => string | undefined,
	run: (itemIndex: number) => Promise<Outcome>,
): Promise<Outcome[]> {
	const outcomes: Outcome[] = new Array<Outcome>(count);
	const tails = new Map<string, Promise<void>>();
	let next = 0;
	let stopped = false;
	const worker = async () => {
		while (!stopped && next < count) {
			const itemIndex = next++;
			const key = keyOf(itemIndex);
			const previous = key === undefined ? undefined : tails.get(key);
			let done = () => {};
			if (key !== undefined) tails.set(key, new Promise<void>((resolve) => (done = resolve)));
			try {
				if (previous) await previous;
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

/**
 * How the node's settings ask failures to be handled; `continueOnFail` is `this.continueOnFail()`, read in execute().
 */
export interface RouterOptions {
	continueOnFail: boolean;
}

export async function router(
	this: IExecuteFunctions,
	{ continueOnFail }: RouterOptions,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const op = resources[resource]?.[operation] as Operation | undefined;
	if (!op?.execute && !op?.openSession) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" is not known for resource "${resource}"`,
		);
	}
	// One client per run: credentials are read once and the pace cap spans every item.
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const client = await StorefrontClient.create(this, settingsFrom(options));
	// Opened just before the items run, so that nothing between can leave it open (it may hold a turn on the account).
	let session: RunSession | undefined = undefined;
	const execute = async (itemIndex: number) =>
		session
			? await session.execute(itemIndex)
			: await (op.execute as OperationExecute).call(this, client, itemIndex);

	const answersModel = answersModelWithError(this);
	const run = async (itemIndex: number): Promise<Outcome> => {
		try {
			return { ok: true, json: await execute(itemIndex) };
		} catch (error) {
			if (answersModel) {
				// Details only where they add to the message (n8n's own tool wrapper does the same): a model pays per token.
				const { message, description } = error as { message: string; description?: string };
				const details =
					description && !message.includes(description) ? { details: description } : {};
				return { ok: true, json: { error: message, ...details } };
			}
			if (continueOnFail) {
				const { description } = error as { description?: string };
				return {
					ok: true,
					json: description
						? { error: (error as Error).message, details: description }
						: { error: (error as Error).message },
				};
			}
			return { ok: false, error };
		}
	};
	// The record an item changes or reads, so that two items of one record keep their order; unreadable: none.
	const keyOf = (itemIndex: number): string | undefined => {
		if (!op.recordParameter) return undefined;
		try {
			const value = this.getNodeParameter(op.recordParameter, itemIndex, '', {
				extractValue: true,
			}) as unknown;
			return typeof value === 'string' || typeof value === 'number'
				? String(value).trim()
				: undefined;
		} catch {
			return undefined;
		}
	};
	const concurrency = concurrencyOf(options);
	const recordKey = (itemIndex: number) =>
		session ? session.recordKey(itemIndex) : keyOf(itemIndex);
	let outcomes: Outcome[];
	session = op.openSession ? await op.openSession.call(this, client) : undefined;
	try {
		outcomes = await runItems(
			items.length,
			concurrency,
			concurrency > 1 ? recordKey : () => undefined,
			run,
		);
	} finally {
		session?.close();
	}

	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < outcomes.length; itemIndex++) {
		const outcome = outcomes[itemIndex];
		// Items after a failure never started (one at a time) or were not claimed (concurrent): the first failure by index
		// stops the node.
		if (!outcome) continue;
		// Both error constructors hand back an error of their own class unchanged (item index included).
		if (!outcome.ok) throw asNodeError(this, outcome.error, itemIndex);
		const { json } = outcome;
		if (Array.isArray(json)) {
			for (const record of json) returnData.push({ json: record, pairedItem: { item: itemIndex } });
		} else {
			returnData.push({ json, pairedItem: { item: itemIndex } });
		}
	}
	addHints(this, [...rateLimitHint(client), ...(session?.hints() ?? [])]);
	return [returnData];
}

/** "Waited 48 s for Storefront's rate limit": a run held back by the plan's limit says so instead of a silent pause. */
function rateLimitHint(client: StorefrontClient): string[] {
	const waited = client.waitedForLimitMs;
	return waited >= 1000 ? [`Waited ${duration(waited)} for Storefront's rate limit`] : [];
}

/**
 * Hints in the output panel, where the n8n line has them (addExecutionHints is not on every line's IExecuteFunctions).
 */
function addHints(ctx: IExecuteFunctions, messages: string[]): void {
	if (messages.length === 0 || typeof ctx.addExecutionHints !== 'function') return;
	ctx.addExecutionHints(
		...messages.map((message) => ({
			message,
			type: 'info' as const,
			location: 'outputPane' as const,
		})),
	);
}

// The reading behind Catch Up After Downtime and Check for Missed Events (docs/trigger.md): started by trigger() when
// n8n activates the workflow or starts with it active, then on n8n's own schedule (the Schedule Trigger's registerCron,
// which n8n stops on deactivation). It never holds n8n up, and a reading that fails is tried again with backoff until
// the service answers, so the changes missed meanwhile still run, once (each is claimed by its run: ./changeKeys).
// What runs after trigger() returns evaluates no expression: n8n 2.41 lends a node its expression engine only during
// its own calls ("No bridge acquired for this context" otherwise), so parameters and credentials are read before.
import { randomUUID } from 'crypto';
import type { IDataObject, IRun, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { PolledEvent } from '../shared/changes/events';
import { claimedIn } from '../shared/n8n';
import { StorefrontClient } from '../shared/transport';
import { findChanges, newMemory, unread } from './catchUp';
import { claimKey } from './changeKeys';
import { noteRanHere, ranHere } from './ranHere';
import {
	catchesUp,
	DELIVERY_KEY,
	checkMinutes,
	rememberMs,
	scopeOf,
	SOURCE_FIELD,
	type Options,
} from './options';

/** How long an activation by hand waits for the first reading before it returns and the reading goes on. */
const ACTIVATION_WAIT_MS = 5_000;
/** One request of a reading waits this long for an answer (a hung load balancer answers never). */
const READ_TIMEOUT_MS = 15_000;
/** A reading's requests wait at most this long for the key's rate limit; the next reading tries again. */
const RATE_LIMIT_WAIT_MS = 60_000;
/**
 * A scheduled reading leaves changes younger than this to their deliveries: the delivery carries the service's own
 * data (previous_status, payment_id) that a list does not show. Twice the contract's retry span (15 s).
 */
const DELIVERY_GRACE_MS = 30_000;
/**
 * A scheduled reading sends its first FREE_REQUESTS requests at once, each further one REQUEST_SPACING_MS after the
 * last, and the next starts only once it is done: however large a shop read whole, the checks add at most 10 requests
 * a minute (docs/trigger.md, Check for Missed Events). The reading at activation and start is not paced: it runs
 * once, and what n8n missed while down should run soon.
 */
export const FREE_REQUESTS = 2;
export const REQUEST_SPACING_MS = 6_000;
/**
 * A change a reading started a run for is not started again while that run may still be going: until it ends, for this
 * long at most (a run that never started — a worker or Redis down — never ends; the next reading finds it again).
 */
const RUNNING_FOR_MS = 10 * 60_000;
/** After a failed reading: 5 s, doubling, at most this long, until one succeeds. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 5 * 60_000;

/** A first reading the service refused for good (a wrong key or Base URL): trying again cannot help. */
const isRefusal = (error: unknown): error is Error => {
	const status = Number((error as { httpCode?: unknown } | undefined)?.httpCode);
	return status >= 400 && status < 500 && status !== 429;
};

/**
 * trigger(), which n8n calls on main only (docs/maintainers.md says when): starts the first reading and the schedule,
 * and returns before the reading ends. The runs it starts go through ./claim like a delivery's.
 */
export async function startReading(ctx: ITriggerFunctions): Promise<ITriggerResponse> {
	const options = ctx.getNodeParameter('options', {}) as Options;
	if (ctx.getMode() === 'manual' || !catchesUp(options)) return {};
	// No retries of its own: a failed reading is tried again whole, with backoff.
	const client = await StorefrontClient.create(ctx, {
		rateLimitWaitMs: RATE_LIMIT_WAIT_MS,
		timeoutMs: READ_TIMEOUT_MS,
		maxRetries: 0,
	});
	const reader = new MissedEventsReader(ctx, client, options);
	const first = reader.read();
	// A user activating by hand hears why the first reading failed (a wrong key, say), within a few seconds; n8n's
	// start, which activates workflows in batches, never waits for it.
	if (['activate', 'create', 'update'].includes(ctx.getActivationMode())) {
		const error = await Promise.race([first, sleep(ACTIVATION_WAIT_MS)]);
		if (isRefusal(error)) {
			reader.stop();
			throw new NodeOperationError(ctx.getNode(), error, {
				description:
					'The trigger reads the order and product lists to run the changes no delivery brought. Check the ' +
					'credentials, or turn off "Catch Up After Downtime".',
			});
		}
	}
	const minutes = checkMinutes(options);
	if (minutes > 0)
		ctx.helpers.registerCron(
			{ expression: scheduleOf(minutes) as never },
			() => void reader.read(true),
		);
	return { closeFunction: async () => reader.stop() };
}

/**
 * n8n's cron expression (with seconds) for a reading every `minutes` whole minutes, at a random second, as n8n's
 * Schedule Trigger spreads its own.
 */
function scheduleOf(minutes: number): string {
	const second = Math.floor(Math.random() * 60);
	const whole = Math.min(60, minutes);
	return whole === 60 ? `${second} ${second} * * * *` : `${second} */${whole} * * * *`;
}

class MissedEventsReader {
	private reading = false;
	private stopped = false;
	private readonly memory = newMemory();
	/**
	 * Changes of runs this reader started that have not ended yet, when each started: ran here (docs/trigger.md) until
	 * their run ends, RUNNING_FOR_MS at most.
	 */
	private readonly running = new Map<string, { at: number; event: PolledEvent }>();
	private readonly staticData: IDataObject;
	private readonly kinds: string[];
	private readonly scope: string;
	private readonly rememberMs: number;
	/** 'workflow "Orders" (id 12)', for the log. */
	private readonly about: string;

	/** Made in trigger(), before it returns (the header says why); its requests need no expression. */
	constructor(
		private readonly ctx: ITriggerFunctions,
		private readonly client: StorefrontClient,
		options: Options,
	) {
		const workflow = ctx.getWorkflow();
		this.staticData = ctx.getWorkflowStaticData('node');
		this.kinds = ctx.getNodeParameter('events', []) as string[];
		this.scope = scopeOf(ctx);
		this.rememberMs = rememberMs(options);
		this.about = `workflow "${workflow.name ?? ''}" (id ${workflow.id ?? ''})`;
	}

	/**
	 * Starts a reading unless one is under way (then nothing: a schedule's tick never queues behind a slow one).
	 * Resolves with the outcome of its first attempt; when that failed, it goes on trying in the background.
	 */
	async read(scheduled = false): Promise<Error | undefined> {
		if (this.reading || this.stopped) return undefined;
		this.reading = true;
		// Only the first report settles it: a promise resolves once.
		return await new Promise((report) => {
			void this.attempts(scheduled, report).finally(() => (this.reading = false));
		});
	}

	/** Deactivation: no further attempt starts, and a reading under way starts no run. */
	stop(): void {
		this.stopped = true;
	}

	private async attempts(
		scheduled: boolean,
		report: (outcome: Error | undefined) => void,
	): Promise<void> {
		for (let attempt = 0; !this.stopped; attempt++) {
			try {
				const young = await this.once(scheduled);
				report(undefined);
				// Changes left to their deliveries are read again once they outgrow the grace, not an interval later.
				if (young > 0) {
					await this.wait(DELIVERY_GRACE_MS);
					if (!this.stopped) await this.once(scheduled);
				}
				return;
			} catch (error) {
				report(error as Error);
				const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt);
				if (!this.stopped) {
					this.ctx.logger.warn(
						`Storefront Trigger: could not read the Storefront lists for ${this.about}; trying again in ` +
							`${Math.round(wait / 1000)} s (the changes made meanwhile run then, once): ${(error as Error).message}`,
					);
				}
				await this.wait(wait);
			}
		}
	}

	/** Waits `ms` in steps, so that a deactivation ends the wait too. */
	private async wait(ms: number): Promise<void> {
		for (let waited = 0; waited < ms && !this.stopped; waited += 1_000)
			await sleep(Math.min(1_000, ms - waited));
	}

	/** One reading; resolves to the number of changes it left for later (too young). */
	private async once(scheduled: boolean): Promise<number> {
		const { client, memory, staticData, scope, kinds, about, rememberMs } = this;
		let sent = 0;
		const pace = async () => {
			if (scheduled && ++sent > FREE_REQUESTS) await this.wait(REQUEST_SPACING_MS);
			if (this.stopped) throw new Error('deactivated');
		};
		const now = Date.now();
		const lapsed = [...this.running].filter(([, { at }]) => now - at >= RUNNING_FOR_MS);
		for (const [key] of lapsed) this.running.delete(key);
		unread(
			this.memory,
			lapsed.map(([, run]) => run.event),
		);
		const found = await findChanges(client, {
			staticData,
			kinds,
			memory,
			now,
			graceMs: scheduled ? DELIVERY_GRACE_MS : 0,
			beforeRequest: pace,
		});
		if (this.stopped) return 0;
		if (found.baselined.length) {
			this.ctx.logger.info(
				`Storefront Trigger: catch-up baseline for ${about} (${found.baselined.join(', ')}) in ${found.requests} ` +
					`requests; changes from now on are caught up after downtime`,
			);
		}
		// Left out: the changes that ran, or are running, here.
		const skip = (key: string) => this.running.has(key) || ranHere(scope, key, now, rememberMs);
		const events = found.events.filter((event) => !skip(claimKey(event)));
		if (events.length) {
			// Known once its run claimed them, wherever it ran (a queue worker); until it ends, not started again.
			const keys = events.map(claimKey);
			events.forEach((event, i) => this.running.set(keys[i], { at: now, event }));
			const ended = (claimed: boolean) => {
				// Changes a later reading started again (after RUNNING_FOR_MS) are that reading's now.
				const mine = events.filter((_, i) => this.running.get(keys[i])?.at === now);
				for (const event of mine) this.running.delete(claimKey(event));
				if (claimed) noteRanHere(scope, keys, Date.now());
				else unread(this.memory, mine);
			};
			void this.start(events).then(ended, () => ended(false));
		}
		const log = events.length ? this.ctx.logger.info : this.ctx.logger.debug;
		log.call(
			this.ctx.logger,
			`Storefront Trigger: catch-up for ${about} read the lists in ${found.requests} requests: ` +
				`${events.length} changes this n8n has not run` +
				(events.length ? ', one run started for them' : ''),
		);
		return found.young;
	}

	/**
	 * Starts one run with the changes found (what emit() does, in the shape the trigger's execute() reads); resolves once
	 * it ended, with whether it claimed them.
	 */
	private async start(events: PolledEvent[]): Promise<boolean> {
		const token = randomUUID();
		const done = this.ctx.helpers.createDeferredPromise<IRun>();
		const items = events.map((event) => ({
			json: { ...event, [SOURCE_FIELD]: 'catchUp' },
			[DELIVERY_KEY]: token,
		}));
		this.ctx.emit([items], undefined, done);
		return claimedIn(await done.promise, this.ctx.getNode().name);
	}
}

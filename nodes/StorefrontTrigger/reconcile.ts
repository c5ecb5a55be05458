// The reading behind Catch Up After Downtime and Reconcile Every (docs/trigger.md): started by trigger() when n8n
// activates the workflow or starts with it active, then on n8n's own schedule (the Schedule Trigger's registerCron,
// which n8n stops on deactivation) while the workflow stays active. It never holds n8n up: trigger() waits for the
// first reading only when a user activates by hand and only for ACTIVATION_WAIT_MS (to say why it failed), every
// request has a time-out, and a reading that fails is tried again with backoff until the service answers, however
// long, so the changes missed meanwhile still run, once (each is claimed by the run it starts: ./catchUp's keys).
// What runs after trigger() returns evaluates no expression: n8n 2.41 lends a node its expression engine only during
// its own calls ("No bridge acquired for this context" otherwise), so parameters and credentials are read before.
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { StorefrontClient } from '../shared/transport';
import { claimKey, newMemory, noteKnown, readChanges } from './catchUp';
import type { PolledEvent } from '../shared/changes/events';

/** From this version on, the trigger also reconciles every DEFAULT_RECONCILE_MINUTES unless the user changes it. */
export const RECONCILE_VERSION = 1.4;
export const DEFAULT_RECONCILE_MINUTES = 5;

/** How long an activation by hand waits for the first reading before it returns and the reading goes on. */
export const ACTIVATION_WAIT_MS = 5_000;
/** One request of a reading waits this long for an answer (a hung load balancer answers never). */
const READ_TIMEOUT_MS = 15_000;
/** A reading's requests wait at most this long for the key's rate limit; the next reading tries again. */
const RATE_LIMIT_WAIT_MS = 60_000;
/**
 * A scheduled reading leaves changes younger than this to their deliveries: the delivery carries the service's own
 * data (previous_status, payment_id) that a list does not show. Twice the contract's retry span (15 s).
 */
export const SETTLE_MS = 30_000;
/**
 * A scheduled reading sends its first FREE_REQUESTS requests at once and each further one REQUEST_SPACING_MS after the
 * last, and the next one starts only once it is done: however large a shop a service makes the trigger read whole (no
 * `updated_at`: ⌈records/100⌉ requests per list), the reconciliation adds at most 10 requests a minute, a tenth of the
 * Starter plan's 100, to the FREE_REQUESTS per interval a quiet shop costs. The reading at activation and start is
 * not paced: it runs once, and what n8n missed while down should run soon.
 */
export const FREE_REQUESTS = 2;
export const REQUEST_SPACING_MS = 6_000;
/** After a failed reading: 5 s, doubling, at most this long, until one succeeds. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 5 * 60_000;

/**
 * n8n's cron expression (with seconds) for a reading every `minutes`: below a minute every whole number of seconds
 * (what the tests and the demo use), else every whole number of minutes at a random second, as n8n's Schedule
 * Trigger spreads its own.
 */
export function scheduleOf(minutes: number): string {
	const second = Math.floor(Math.random() * 60);
	const seconds = Math.max(1, Math.round(minutes * 60));
	if (seconds < 60) return `*/${seconds} * * * * *`;
	const whole = Math.min(60, Math.max(1, Math.round(minutes)));
	return whole === 60 ? `${second} ${second} * * * *` : `${second} */${whole} * * * *`;
}

export interface ReadingOptions {
	/** The Events parameter. */
	events: string[];
	/** Workflow id + node id: whose claims and known changes. */
	scope: string;
	/** 'workflow "Orders" (id 12)', for the log. */
	about: string;
	/** Starts one run with the changes found (what emit() does, in the shape the trigger's execute() reads). */
	start: (events: PolledEvent[]) => void;
}

export class Reconciler {
	private running = false;
	private stopped = false;
	private readonly memory = newMemory();
	private readonly staticData: IDataObject;

	private constructor(
		private readonly ctx: ITriggerFunctions,
		private readonly client: StorefrontClient,
		private readonly options: ReadingOptions,
	) {
		this.staticData = ctx.getWorkflowStaticData('node');
	}

	/**
	 * Called in trigger(), before it returns: n8n 2.x lends a node its expression engine only until then, and reading
	 * the credentials (like the node's parameters) may need it. Its requests need none (see the credentials' authenticate).
	 */
	static async create(ctx: ITriggerFunctions, options: ReadingOptions): Promise<Reconciler> {
		// No retries of its own: a failed reading is tried again whole, with the backoff below.
		const client = await StorefrontClient.create(ctx, { rateLimitWaitMs: RATE_LIMIT_WAIT_MS, timeoutMs: READ_TIMEOUT_MS, maxRetries: 0 });
		return new Reconciler(ctx, client, options);
	}

	/**
	 * Starts a reading unless one is under way (then nothing: a schedule's tick never queues behind a slow one).
	 * Resolves with the outcome of its first attempt; when that failed, it goes on trying in the background.
	 */
	async read(settleMs: number, paced = false): Promise<Error | undefined> {
		if (this.running || this.stopped) return undefined;
		this.running = true;
		let first: (outcome: Error | undefined) => void = () => {};
		const outcome = new Promise<Error | undefined>((resolve) => (first = resolve));
		void this.attempts(settleMs, paced, (result) => {
			first(result);
			first = () => {};
		}).finally(() => (this.running = false));
		return await outcome;
	}

	/** Deactivation: no further attempt starts, and a reading under way starts no run. */
	stop(): void {
		this.stopped = true;
	}

	private async attempts(settleMs: number, paced: boolean, report: (outcome: Error | undefined) => void): Promise<void> {
		for (let attempt = 0; !this.stopped; attempt++) {
			try {
				await this.once(settleMs, paced);
				report(undefined);
				return;
			} catch (error) {
				report(error as Error);
				const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt);
				if (!this.stopped) {
					this.ctx.logger.warn(
						`Storefront Trigger: could not read the Storefront lists for ${this.options.about}; trying again in ${Math.round(wait / 1000)} s (the changes made meanwhile run then, once): ${(error as Error).message}`,
					);
				}
				await this.wait(wait);
			}
		}
	}

	/** Waits `ms` in steps, so that a deactivation ends the wait too. */
	private async wait(ms: number): Promise<void> {
		for (let waited = 0; waited < ms && !this.stopped; waited += 1_000) await sleep(Math.min(1_000, ms - waited));
	}

	private async once(settleMs: number, paced: boolean): Promise<void> {
		const { scope, events, about } = this.options;
		let sent = 0;
		const pace = async () => {
			if (paced && ++sent > FREE_REQUESTS) await this.wait(REQUEST_SPACING_MS);
			if (this.stopped) throw new Error('deactivated');
		};
		const found = await readChanges(this.client, scope, this.staticData, events, this.memory, Date.now(), settleMs, pace);
		if (this.stopped) return;
		if (found.baselined.length) {
			this.ctx.logger.info(
				`Storefront Trigger: catch-up baseline for ${about} (${found.baselined.join(', ')}) in ${found.requests} requests; changes from now on are caught up after downtime`,
			);
		}
		for (const event of found.events) noteKnown(scope, claimKey(event));
		if (found.events.length) this.options.start(found.events);
		const log = found.events.length ? this.ctx.logger.info : this.ctx.logger.debug;
		log.call(
			this.ctx.logger,
			`Storefront Trigger: catch-up for ${about} read the lists in ${found.requests} requests: ${found.events.length} changes not known to have run${found.events.length ? ', one run started for them' : ''}`,
		);
	}
}

// The reading behind Catch Up After Downtime and Check for Missed Events (docs/trigger.md), started by trigger() and
// n8n's registerCron; it never holds n8n up, and a failed one is tried again with backoff. Nothing after trigger()
// returns evaluates an expression (docs/maintainers.md, Expressions only during the node's own calls).
import { randomUUID } from 'crypto';
import type { CronExpression, IRun, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { PolledEvent } from '../shared/changes/events';
import { claimedIn, scopeOf } from '../shared/n8n';
import { StorefrontClient } from '../shared/transport';
import { findChanges, newMemory, unread } from './catchUp';
import { closedNow, opened } from './release';
import { keysOf, knowChange } from './changeKeys';
import { forgetRanHere, noteRanHere, ranHere } from './ranHere';
import { noteStatus, type Judgement } from './statusesKnown';
import {
	catchesUp,
	checkMinutes,
	rememberMs,
	runItem,
	SOURCE_FIELD,
	type Options,
} from './options';

/** How long an activation by hand waits for the first reading before it returns and the reading goes on. */
const ACTIVATION_WAIT_MS = 5_000;
/** One request of a reading waits this long for an answer (a hung load balancer answers never). */
const READ_TIMEOUT_S = 15;
/** A reading's requests wait at most this long for the key's rate limit; the next reading tries again. */
const RATE_LIMIT_WAIT_S = 60;
/** A scheduled reading leaves younger changes to their deliveries, which carry data a list does not show. */
const DELIVERY_GRACE_MS = 30_000;
/** A scheduled reading's pacing (docs/trigger.md, Check for Missed Events); what n8n missed while down is not paced. */
export const FREE_REQUESTS = 2;
export const REQUEST_SPACING_MS = 6_000;
/** A reading's changes are not started again until their run ends, or this long (a run never started never ends). */
const RUNNING_FOR_MS = 10 * 60_000;
/** After a failed reading: 5 s, doubling, at most this long, until one succeeds. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 5 * 60_000;

/** A first reading the service refused for good (a wrong key or Base URL): trying again cannot help. */
const isRefusal = (error: unknown): error is Error => {
	const status = Number((error as { httpCode?: unknown } | undefined)?.httpCode);
	return status >= 400 && status < 500 && status !== 429;
};

/** trigger(): starts the first reading and the schedule, and returns before the reading ends. */
export async function startReading(context: ITriggerFunctions): Promise<ITriggerResponse> {
	const options = context.getNodeParameter('options', {}) as Options;
	if (context.getMode() === 'manual') return {};
	// What this process keeps of the node lives while it is active (./release).
	const scope = scopeOf(context);
	opened(scope, Date.now());
	const closed = () => closedNow(scope, Date.now());
	if (!catchesUp(options)) return { closeFunction: async () => closed() };
	// No retries of its own: a failed reading is tried again whole, with backoff.
	const client = await StorefrontClient.create(context, {
		maxRateLimitWait: RATE_LIMIT_WAIT_S,
		timeout: READ_TIMEOUT_S,
		maxRetries: 0,
	});
	const reader = new MissedEventsReader(context, client, options);
	const first = reader.read();
	// A user activating by hand hears why the first reading failed (a wrong key, say); n8n's start never waits for it.
	if (['activate', 'create', 'update'].includes(context.getActivationMode())) {
		const error = await Promise.race([first, sleep(ACTIVATION_WAIT_MS)]);
		if (isRefusal(error)) {
			reader.stop();
			closed();
			throw new NodeOperationError(context.getNode(), error, {
				description:
					'The trigger reads the order and product lists to run the changes no delivery brought. Check the ' +
					'credentials, or turn off "Catch Up After Downtime".',
			});
		}
	}
	const minutes = checkMinutes(options);
	if (minutes > 0)
		context.helpers.registerCron({ expression: scheduleOf(minutes) }, () => void reader.read(true));
	return {
		closeFunction: async () => {
			reader.stop();
			closed();
		},
	};
}

/** A cron expression (seconds first) every `minutes`, at a random second as n8n's Schedule Trigger spreads its own. */
function scheduleOf(minutes: number): CronExpression {
	const second = Math.floor(Math.random() * 60);
	const whole = Math.min(60, minutes);
	return whole === 60 ? `${second} ${second} * * * *` : `${second} */${whole} * * * *`;
}

class MissedEventsReader {
	private reading = false;
	private stopped = false;
	private readonly memory = newMemory();
	/** Changes of this reader's runs not ended yet, when each started: ran here until then, RUNNING_FOR_MS at most. */
	private readonly running = new Map<string, { at: number; event: PolledEvent }>();
	// Read in trigger(), before it returns (the header says why).
	private readonly staticData = this.context.getWorkflowStaticData('node');
	private readonly kinds = this.context.getNodeParameter('events', []) as string[];
	private readonly scope = scopeOf(this.context);
	private readonly rememberMs = rememberMs(this.options);
	/** 'workflow "Orders" (id 12)', for the log. */
	private readonly about: string;

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly client: StorefrontClient,
		private readonly options: Options,
	) {
		const { name, id } = context.getWorkflow();
		this.about = `workflow "${name ?? ''}" (id ${id ?? ''})`;
	}

	/** Starts a reading unless one is under way (a tick never queues behind a slow one); resolves to its first error. */
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
					this.context.logger.warn(
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
		this.end(lapsed.map(([key]) => key));
		const found = await findChanges(client, {
			staticData,
			kinds,
			memory,
			graceMs: scheduled ? DELIVERY_GRACE_MS : 0,
			beforeRequest: pace,
		});
		if (this.stopped) return 0;
		if (found.baselined.length) {
			this.context.logger.info(
				`Storefront Trigger: catch-up baseline for ${about} (${found.baselined.join(', ')}) in ${found.requests} ` +
					`requests; changes from now on are caught up after downtime`,
			);
		}
		// What the reading saw, then each change with what this n8n knows of its order. Left out: the changes that ran,
		// or are running, here; the door answers their deliveries while the run goes on.
		for (const { order, status, at } of found.seen)
			noteStatus(scope, order, { status, at, read: true });
		const skip = (key: string) => this.running.has(key) || ranHere(scope, key, now, rememberMs);
		// A change the reading cannot date happened after its window's start, and within Remember Events For.
		const from = (event: PolledEvent) => {
			const start = found.undated.get(event.id);
			return start === undefined ? undefined : Math.max(start, now - rememberMs);
		};
		const changes = found.events
			.map((event) => ({ event, ...knowChange(scope, event, true, now, from(event)) }))
			.filter(({ claim }) => !keysOf(claim).some(skip));
		if (changes.length) {
			// Known once its run claimed them, wherever it ran (a queue worker); until it ends, not started again.
			const keys = changes.map(({ claim }) => claim.key);
			changes.forEach(({ event }, i) => this.running.set(keys[i], { at: now, event }));
			noteRanHere(scope, keys, now);
			const ended = (claimed: boolean) => {
				// Changes a later reading started again (after RUNNING_FOR_MS) are that reading's now.
				const mine = keys.filter((key) => this.running.get(key)?.at === now);
				this.end(mine, claimed);
				if (claimed) noteRanHere(scope, keys, Date.now());
			};
			void this.start(changes).then(ended, () => ended(false));
		}
		this.context.logger[changes.length ? 'info' : 'debug'](
			`Storefront Trigger: catch-up for ${about} read the lists in ${found.requests} requests: ` +
				`${changes.length} changes this n8n has not run` +
				(changes.length ? ', one run started for them' : ''),
		);
		return found.young;
	}

	/** The runs of `keys` ended, or are given up: unless they claimed them, the next reading finds them again. */
	private end(keys: string[], claimed = false): void {
		const events = keys.map((key) => this.running.get(key)!.event);
		for (const key of keys) this.running.delete(key);
		if (claimed) return;
		unread(this.memory, events);
		forgetRanHere(this.scope, keys);
	}

	/** Starts one run with the changes found, in the shape execute() reads; resolves once it ended: did it claim them? */
	private async start(changes: Array<{ event: PolledEvent; known?: Judgement }>): Promise<boolean> {
		const token = randomUUID();
		const done = this.context.helpers.createDeferredPromise<IRun>();
		const items = changes.map(({ event, known }) =>
			runItem({ ...event, [SOURCE_FIELD]: 'catchUp' }, token, known),
		);
		this.context.emit([items], undefined, done);
		return claimedIn(await done.promise, this.context.getNode().name);
	}
}

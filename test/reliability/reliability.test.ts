/* eslint-disable @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; n8n's internal REST API answers untyped JSON */
// Nothing lost, nothing twice: the Storefront Trigger and node in a real n8n (the pinned 2.x) under bursts, a crash, restarts,
// redelivery storms, hostile requests, a secret rotation and API faults, driven by the sandbox's real webhook
// delivery (signed, retried with the same id and bytes, logged). Each scenario prints its counts and asserts them;
// latencies are printed, never asserted. `npm run test:reliability` (after `npm run build` and `npm run n8n:prepare`).
import { createHmac, randomUUID } from 'crypto';

import {
	createWorkflow,
	eventually,
	instance,
	registerWebhook,
	rest,
	startEnvironment,
	triggerNode,
	TYPES,
	type Environment,
	type EnvironmentOptions,
} from '../e2e/environment';
import { runFlashSale } from '../helpers/flashsale';
import { api, resend, type SentDelivery } from '../helpers/sandbox';
import { percentile } from '../helpers/stats';
import { executionsOf, stopDatabaseReader, type ExecutionRecord } from './n8n-db';

// Generous: n8n's default engine handles about 10 deliveries/s on 2 cores, and far fewer when the machine is busy.
jest.setTimeout(1_200_000);

/** What docs/reliability.md recommends for production webhook volume (docs/performance.md says why). */
const RECOMMENDED = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };
const KINDS = [
	'order.created',
	'order.updated',
	'payment.completed',
	'product.created',
	'inventory.low',
];

const report: string[] = [];
const say = (line: string) => {
	report.push(line);
	process.stdout.write(`${line}\n`);
};
afterAll(() => {
	if (report.length)
		process.stdout.write(`\nReliability summary\n${report.map((l) => `  ${l}`).join('\n')}\n`);
});

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

afterAll(stopDatabaseReader);

/** One environment (sandbox + n8n without its editor) for the enclosing describe block, started before its tests and stopped after. */
function useEnvironment(label: string, options: EnvironmentOptions) {
	const holder: { env?: Environment } = {};
	beforeAll(async () => {
		holder.env = await startEnvironment(label, { editor: false, ...options });
	}, 300_000);
	afterAll(async () => holder.env?.stop(), 60_000);
	return () => holder.env as Environment;
}

/**
 * An active "Storefront Trigger → No Op" workflow, registered in the sandbox: all events and the options given, with
 * Catch Up After Downtime off unless `options` turn it on, or `trigger` says otherwise.
 */
async function receivingWorkflow(
	env: Environment,
	options: Record<string, unknown> = {},
	trigger = triggerNode(['*'], { catchUp: false, ...options }),
) {
	const wf = await createWorkflow(env, {
		name: 'reliability',
		nodes: [
			trigger,
			{
				id: 'r-noop',
				name: 'Received',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		connections: {
			'Storefront Trigger': { main: [[{ node: 'Received', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	});
	await registerWebhook(env, wf.url);
	return wf;
}

interface Delivery {
	event_id: string;
	type: string;
	status: string;
	attempts: Array<{
		status: number | null;
		ok: boolean;
		error: string | null;
		ms: number;
		response: string | null;
	}>;
}

const UNFINISHED = ['new', 'running', 'waiting'];

/**
 * Stops an execution the list showed unfinished. It may end by itself between that read and the stop; n8n then
 * answers "Only running or waiting executions can be stopped and N is currently success", and there is nothing to stop.
 */
async function stopUnlessEnded(env: Environment, id: string): Promise<void> {
	const stopped = await env.client.request('POST', `/executions/${id}/stop`).then(
		() => undefined,
		(error: Error) => error.message,
	);
	if (stopped) expect(stopped).toMatch(/is currently (success|error|crashed|canceled)/);
}

/**
 * Executions of a workflow once they stop changing (every accepted delivery has run). Executions created before
 * `unfinishedBefore` (a crash) may stay unfinished: n8n left them so, and nothing will finish them.
 */
async function settledExecutions(
	env: Environment,
	workflowId: string,
	atLeast: number,
	{ timeoutMs = 180_000, unfinishedBefore = 0 } = {},
) {
	let last = -1;
	return eventually(
		async () => {
			const all = await executionsOf(env.userFolder, workflowId);
			const done = all.filter(
				(e) => !UNFINISHED.includes(e.status) || e.createdAt < unfinishedBefore,
			);
			const stable = done.length === all.length && all.length === last && all.length >= atLeast;
			last = all.length;
			if (stable) return all;
			await new Promise((resolve) => setTimeout(resolve, 500));
			return undefined;
		},
		`executions of ${workflowId} to settle (at least ${atLeast})`,
		timeoutMs,
	);
}

/**
 * n8n's own answer to every request while it checks its database migrations at start (n8n's abstract-server.js):
 * 200 with this text, before any node runs. A delivery it answers is acknowledged and never reaches the trigger.
 */
const N8N_STARTING_UP = 'n8n is starting up';

/**
 * The counts every scenario reports: sent, acknowledged, retried, executed, executed twice, lost. An event that did
 * not run is lost, unless an execution that did not finish names it (recoverable) or n8n's start-up answer
 * acknowledged it (`lostToStartup`, counted apart: the trigger never saw it).
 */
function tally(
	deliveries: Delivery[],
	executions: ExecutionRecord[],
	{ recoverable = [] as ExecutionRecord[] } = {},
) {
	const acknowledged = deliveries.filter((d) => d.status === 'delivered');
	const ran = new Map<string, number>();
	for (const e of executions.filter((x) => x.status === 'success'))
		for (const id of e.eventIds) ran.set(id, (ran.get(id) ?? 0) + 1);
	const recoverableIds = new Set(recoverable.flatMap((e) => e.eventIds));
	const notRun = deliveries.filter((d) => !ran.has(d.event_id) && !recoverableIds.has(d.event_id));
	const byStartup = (d: Delivery) =>
		d.attempts.some((a) => a.ok && (a.response ?? '').startsWith(N8N_STARTING_UP));
	const lostIds = notRun.filter((d) => !byStartup(d)).map((d) => d.event_id);
	return {
		lostIds,
		lostToStartup: notRun.filter(byStartup).length,
		twiceIds: [...ran].filter(([, n]) => n > 1).map(([id]) => id),
		sent: deliveries.length,
		acknowledged: acknowledged.length,
		retried: deliveries.filter((d) => d.attempts.length > 1).length,
		failed: deliveries.filter((d) => d.status === 'failed').length,
		executed: [...ran.values()].reduce((a, b) => a + b, 0),
		executedTwice: [...ran.values()].filter((n) => n > 1).length,
		lost: lostIds.length,
		latencies: deliveries.flatMap((d) => d.attempts.filter((a) => a.ok).map((a) => a.ms)),
	};
}

const countsLine = (t: ReturnType<typeof tally>) =>
	`sent ${t.sent}, acknowledged ${t.acknowledged}, retried ${t.retried}, executed ${t.executed}, executed twice ${t.executedTwice}, lost ${t.lost}` +
	(t.lostToStartup
		? `, acknowledged by n8n's start-up answer and never run ${t.lostToStartup}`
		: '');
const latencyLine = (t: ReturnType<typeof tally>) =>
	`ack latency p50 ${seconds(percentile(t.latencies, 50))}, p95 ${seconds(percentile(t.latencies, 95))}, p99 ${seconds(percentile(t.latencies, 99))}, max ${seconds(Math.max(...t.latencies))}`;

// n8n's default expression engine acknowledges 6–7 deliveries a second here, on an idle machine: at 50 in flight its p99
// stands at 9.4–9.9 s, the sender's 10 s time-out. With another job on the machine (CI's lanes; a busy loop on one of
// the two cores here) it falls behind: n8n 2.41.1's own SQLite write lock times out ("There was a problem executing the
// workflow"), and deliveries it acknowledged never run, the landed 0.1.0 code alike (docs/reliability.md). So n8n's
// defaults get 20 in flight, which they answer within the time-out on a shared machine; the recommended engine gets 50.
describe.each([
	['n8n defaults', 300, 20, {}],
	['recommended (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true)', 1000, 50, RECOMMENDED],
])('burst of signed deliveries — %s: %s events, %s in flight', (label, count, inFlight, n8nEnv) => {
	const environment = useEnvironment('burst', {
		n8nEnv,
		// The contract's delivery policy: 10 s to answer, 5 attempts 1 s, 2 s, 4 s, 8 s apart.
		sandbox: {
			sizes: { products: 300, orders: 300, customers: 20 },
			delivery: { attempts: 5, baseDelayMs: 1000, timeoutMs: 10_000, concurrency: inFlight },
		},
	});

	it(`executes each of ${count.toLocaleString('en-US')} events exactly once and loses none`, async () => {
		const env = environment();
		const wf = await receivingWorkflow(env);
		const started = Date.now();
		const emitted = await env.sandbox.admin('POST', '/simulate/events', { count });
		expect(emitted.status).toBe(201);
		await env.sandbox.idle();
		const elapsed = Date.now() - started;
		const deliveries = (await env.sandbox.admin<Delivery[]>('GET', '/deliveries')).body;
		// Executions may still be running when the last delivery is acknowledged. If they do not settle, the counts
		// below say what is missing (a time-out alone would not).
		const delivered = new Set(
			deliveries.filter((d) => d.status === 'delivered').map((d) => d.event_id),
		).size;
		const executions = await settledExecutions(env, wf.id, delivered, { timeoutMs: 600_000 }).catch(
			async (error: Error) => {
				const now = await executionsOf(env.userFolder, wf.id);
				say(
					`burst, ${label}: ${error.message}; ${now.length} executions, ${now.filter((e) => UNFINISHED.includes(e.status)).length} unfinished`,
				);
				return now;
			},
		);
		const t = tally(deliveries, executions);
		say(
			`burst, ${label}: ${countsLine(t)}; ${(count / (elapsed / 1000)).toFixed(1)} deliveries/s; ${latencyLine(t)}`,
		);

		expect(new Set(deliveries.map((d) => d.type))).toEqual(new Set(KINDS));
		expect(t.sent).toBe(count);
		expect(t.acknowledged).toBe(count);
		expect(t.failed).toBe(0);
		expect(executions.filter((e) => e.status === 'success')).toHaveLength(count);
		expect(t.executed).toBe(count);
		expect(t.executedTwice).toBe(0);
		expect(t.lost).toBe(0);
	});
});

/** The kinds Catch Up After Downtime reports (docs/trigger.md), and the next status of each status. */
const CAUGHT_UP = ['order.created', 'order.updated', 'payment.completed', 'product.created'];
const NEXT: Record<string, string> = {
	pending: 'processing',
	processing: 'shipped',
	shipped: 'delivered',
	delivered: 'refunded',
};

/** What a change is (kind, record, new status): a delivery and a catch-up report one change with different event ids. */
const changeOf = (type: unknown, data: any) =>
	type === 'order.updated'
		? `${String(type)} ${data?.order_id} → ${data?.status}`
		: `${String(type)} ${data?.order_id ?? data?.product_id}`;

/** The executions with each item named by the sandbox event of its change, so a caught-up change counts as its event. */
function byEvent(
	executions: ExecutionRecord[],
	events: Array<{ id: string; type: string; data: any }>,
): ExecutionRecord[] {
	const eventOf = new Map(events.map((e) => [changeOf(e.type, e.data), e.id]));
	return executions.map((e) => ({
		...e,
		eventIds: e.items.map(
			({ json }) => eventOf.get(changeOf(json.type, json.data)) ?? String(json.id),
		),
	}));
}

describe('crash: n8n killed with SIGKILL while deliveries of real changes flow, then restarted (Catch Up After Downtime on)', () => {
	const environment = useEnvironment('crash', {
		n8nEnv: RECOMMENDED,
		// Retries spread over two minutes (1, 2, 4 … 32 s), so deliveries refused while n8n is down come back.
		sandbox: {
			sizes: { products: 100, orders: 200, customers: 20 },
			delivery: { attempts: 7, baseDelayMs: 1000, timeoutMs: 10_000, concurrency: 10 },
		},
	});

	it('runs every change once (also those n8n acknowledged while starting), or lists it as recoverable, and runs none twice', async () => {
		const env = environment();
		// Catch-up at activation and start only: no scheduled check for missed events while the deliveries flow.
		const wf = await receivingWorkflow(
			env,
			{},
			triggerNode(CAUGHT_UP, { missedEventsCheckMinutes: 0 }),
		);
		// Activation read where the shop is (a baseline per kind) before it returned, and n8n saved it.
		const staticData = (await env.client.getWorkflow(wf.id)).staticData ?? {};
		expect(
			Object.values(staticData['node:Storefront Trigger']?.catchUpBaselines ?? {}).length,
		).toBeGreaterThan(0);
		// 300 changes the lists show: 150 checkouts (order.created; their inventory.low deliveries are not selected)
		// and 150 status changes of orders that were there before.
		const from = env.sandbox.events.length;
		const movers = [...env.sandbox.state.orders.values()]
			.filter((o) => NEXT[String(o.status)])
			.slice(0, 150);
		expect(movers).toHaveLength(150);
		for (let i = 0; i < 150; i++) {
			const checkout = await env.sandbox.admin('POST', '/simulate/checkout', {});
			expect(checkout.status).toBe(201);
			const order = movers[i];
			const moved = await api(env.sandbox, 'PUT', `/orders/${String(order.id)}/status`, {
				status: NEXT[String(order.status)],
			});
			expect(moved.status).toBe(200);
		}
		const events = env.sandbox.events.slice(from).filter((e) => CAUGHT_UP.includes(e.type));
		await eventually(async () => {
			const { body } = await env.sandbox.admin<Delivery[]>('GET', '/deliveries');
			return body.filter((d) => d.status === 'delivered').length >= 80 ? true : undefined;
		}, '80 acknowledged deliveries before the crash');
		const pid = env.n8nPid();
		const crashedAt = Date.now();
		const { downMs } = await env.crashAndRestart();
		expect(env.n8nPid()).not.toBe(pid);
		await env.sandbox.idle();

		const deliveries = (await env.sandbox.admin<Delivery[]>('GET', '/deliveries')).body.filter(
			(d) => events.some((e) => e.id === d.event_id),
		);
		// n8n 2.41 marks the executions it finds in its event log as crashed, and re-runs those it had not started;
		// one that died before it logged anything stays "running" in the list for good. What a user does with it:
		// Stop (it becomes "canceled"), then treat it as a crashed one.
		const settled = await settledExecutions(env, wf.id, 1, { unfinishedBefore: crashedAt });
		const leftRunning = settled.filter((e) => UNFINISHED.includes(e.status));
		for (const execution of leftRunning) await stopUnlessEnded(env, execution.id);
		const executions = byEvent(
			leftRunning.length ? await settledExecutions(env, wf.id, settled.length) : settled,
			events,
		);
		const recoverable = executions.filter((e) => e.status !== 'success');
		const t = tally(deliveries, executions, { recoverable });
		const refusedWhileDown = deliveries.filter((d) => d.attempts.some((a) => !a.ok)).length;
		const stoppedAtStart = executions.filter((e) => e.status === 'success' && e.passedNothing);
		const rerunAtStart = executions.filter(
			(e) => e.createdAt < crashedAt && (e.startedAt ?? 0) > crashedAt,
		);
		const caughtUp = executions
			.flatMap((e) => (e.status === 'success' ? e.items : []))
			.filter(({ json }) => json.source === 'catchUp').length;
		const startupAnswered = deliveries.filter((d) =>
			d.attempts.some((a) => a.ok && (a.response ?? '').startsWith(N8N_STARTING_UP)),
		).length;
		const answeredDuplicate = deliveries.filter((d) =>
			d.attempts.some((a) => a.ok && (a.response ?? '').includes('duplicate_event')),
		);
		// The trigger's step of each run is its duplicate check (the claim in n8n's database): how long runs spend in it
		// under this load, before the crash (the longer, the more runs a crash cuts off in the middle).
		// Successful runs only: n8n rebuilds a crashed execution's run data from its event log.
		const claimMs = executions
			.filter((e) => e.createdAt < crashedAt && e.status === 'success' && e.nodeMs !== null)
			.map((e) => e.nodeMs as number);
		const slow = executions
			.filter((e) => (e.nodeMs ?? 0) > 5_000)
			.map((e) => `${e.id} ${e.status} ${e.nodeMs} ms`);
		if (slow.length) say(`  executions whose trigger step took over 5 s: ${slow.join(', ')}`);
		say(
			`crash (SIGKILL, back after ${seconds(downMs)}): ${countsLine(t)}; deliveries that failed an attempt while n8n was down and were redelivered: ${refusedWhileDown}; executions left crashed (recoverable) by the crash: ${recoverable.length} (${recoverable.map((e) => `${e.id} ${e.status}`).join(', ') || 'none'}; ${leftRunning.length} of them left "running" by n8n and stopped here); executions n8n accepted before the crash and ran after its restart: ${rerunAtStart.length}; deliveries acknowledged by n8n's start-up answer ${startupAnswered}; changes run by the catch-up at the restart ${caughtUp}; their redeliveries dropped as duplicates — on arrival: ${answeredDuplicate.length}, as the run started: ${stoppedAtStart.length}; the trigger's step (its duplicate check) before the crash: p50 ${percentile(claimMs, 50)} ms, p95 ${percentile(claimMs, 95)} ms, max ${Math.max(...claimMs)} ms over ${claimMs.length} runs`,
		);

		// Should a count below fail: what n8n recorded for each event it concerns.
		for (const d of deliveries.filter(
			(x) => t.lostIds.includes(x.event_id) || t.twiceIds.includes(x.event_id),
		)) {
			const records = executions
				.filter((e) => e.eventIds.includes(d.event_id))
				.map((e) => `${e.id} ${e.status}`);
			say(
				`  ${d.event_id}: attempts ${JSON.stringify(d.attempts.map((a) => [a.status, a.error, a.response]))}; executions: ${records.join(', ') || 'none'}`,
			);
		}

		expect(t.sent).toBe(300);
		expect(t.acknowledged).toBe(300);
		expect(t.failed).toBe(0);
		expect(refusedWhileDown).toBeGreaterThan(0);
		expect(t.executedTwice).toBe(0);
		// Every change ran or is in a crashed execution — also those whose retry came while n8n checked its database at
		// start, answered 200 by n8n itself before any node ran (22, 10 and 15 of 300 in three CI runs without the
		// catch-up, all lost then): the catch-up at the start found them in the lists.
		expect(t.lost).toBe(0);
		expect(t.lostToStartup).toBe(0);

		// What a user does next: Executions → a crashed execution → Retry (n8n's own endpoint), for the crashed executions
		// whose event has not run since. The others were cut off before n8n answered, so the service redelivered their
		// event and it ran then: retrying those would run it twice.
		const succeeded = new Set(
			executions.filter((e) => e.status === 'success').flatMap((e) => e.eventIds),
		);
		const toRetry = recoverable.filter((e) => e.eventIds.some((id) => !succeeded.has(id)));
		for (const execution of toRetry) {
			await env.client.request('POST', `/executions/${execution.id}/retry`, {
				loadWorkflow: false,
			});
		}
		const after = byEvent(
			await settledExecutions(env, wf.id, executions.length + toRetry.length),
			events,
		);
		const retried = tally(deliveries, after);
		say(
			`crash, after retrying the ${toRetry.length} crashed executions whose event had not run (the other ${recoverable.length - toRetry.length} were redelivered and ran): ${countsLine(retried)}`,
		);
		// Should a count below fail: the executions of each event still not run, with what n8n recorded.
		for (const id of [...retried.lostIds, ...retried.twiceIds]) {
			const records = after.filter(
				(e) =>
					e.eventIds.includes(id) || toRetry.some((r) => r.eventIds.includes(id) && e.id === r.id),
			);
			say(
				`  ${id} after the retries: ${records.map((e) => `${e.id} ${e.status} items ${JSON.stringify(e.items).slice(0, 200)}`).join('; ') || 'no execution names it'}`,
			);
		}
		const retries = after.filter((e) => !executions.some((x) => x.id === e.id));
		for (const e of retries.filter((x) => x.status !== 'success' || !x.eventIds.length)) {
			say(`  retry ${e.id} (${e.status}): trigger output ${JSON.stringify(e.items).slice(0, 300)}`);
		}
		expect(retried.executed).toBe(300);
		expect(retried.executedTwice).toBe(0);
		expect(retried.lost).toBe(0);
	});
});

describe('restart: events redelivered byte for byte after n8n restarts on the same database', () => {
	const environment = useEnvironment('restart', {
		n8nEnv: RECOMMENDED,
		// The redeliveries after each restart are the test's own (below); the sandbox's retries only cover a slow answer.
		sandbox: {
			sizes: { products: 100, orders: 100, customers: 20 },
			delivery: { attempts: 3, baseDelayMs: 1000, timeoutMs: 10_000, concurrency: 10 },
		},
	});

	const crash = async (env: Environment) => {
		await env.crashAndRestart();
		return 'n8n killed';
	};
	const cleanStop = async (env: Environment) => {
		const { exit } = await env.restart();
		// A clean stop: n8n shut down on SIGTERM by itself, it was not killed after the time limit.
		expect(exit.signal).not.toBe('SIGKILL');
		return `n8n exited with ${exit.signal ?? `code ${exit.code}`}`;
	};

	it.each([
		['SIGKILL', crash],
		['clean stop, SIGTERM', cleanStop],
	])(
		'restart (%s): each of 60 events runs once, its redelivery after the restart does not run it again',
		async (how, restart) => {
			const env = environment();
			const wf = await receivingWorkflow(env);
			await env.sandbox.admin('DELETE', '/deliveries');
			const emitted = await env.sandbox.admin<{ ids: string[] }>('POST', '/simulate/events', {
				count: 60,
			});
			expect(emitted.status).toBe(201);
			const ids = emitted.body.ids;
			await env.sandbox.idle();
			// What the service sent, from the sandbox's own delivery log (in this process): each delivery keeps the exact
			// bytes it sent and signed, and the secret it signed them with (both kept off the log's JSON view).
			const deliveries = (env.sandbox.deliveries as SentDelivery[]).filter((d) =>
				ids.includes(d.event_id),
			);
			expect(deliveries.map((d) => d.event_id)).toEqual(ids);
			const events = (await env.sandbox.admin<Array<{ id: string }>>('GET', '/events')).body;
			for (const d of deliveries) {
				expect(Buffer.isBuffer(d.body)).toBe(true);
				expect(
					d.body.equals(
						Buffer.from(JSON.stringify(events.find((e) => e.id === d.event_id)), 'utf8'),
					),
				).toBe(true);
			}
			const before = await settledExecutions(env, wf.id, 60);
			const first = tally(deliveries, before);

			const stopped = await restart(env);

			// The service redelivers every event as its retries do (the same bytes, signature and delivery id).
			const redeliver = (d: SentDelivery) => resend(wf.url, d);
			const redeliveredFrom = Date.now();
			const answers: Array<Awaited<ReturnType<typeof redeliver>>> = [];
			for (let i = 0; i < deliveries.length; i += 10)
				answers.push(...(await Promise.all(deliveries.slice(i, i + 10).map(redeliver))));
			const accepted = answers.filter(
				(a) => a.status === 200 && !a.text.includes('duplicate_event'),
			);
			const droppedAtArrival = answers.filter(
				(a) => a.status === 200 && a.text.includes('duplicate_event'),
			);
			const executions = await settledExecutions(env, wf.id, before.length + accepted.length);
			const after = executions.filter((e) => !before.some((b) => b.id === e.id));
			const droppedAtStart = after.filter((e) => e.status === 'success' && e.passedNothing);
			const notSuccessful = after.filter((e) => e.status !== 'success');

			const ran = new Map<string, number>();
			for (const e of executions.filter((x) => x.status === 'success'))
				for (const id of e.eventIds) ran.set(id, (ran.get(id) ?? 0) + 1);
			const ranAgain = ids.filter((id) => (ran.get(id) ?? 0) > 1);
			const lost = ids.filter((id) => !ran.has(id));
			say(
				`restart (${how}, ${stopped}): ${first.executed} events ran (${countsLine(first)}), redelivered ${answers.length} byte for byte after the restart: ran again ${ranAgain.length}, lost ${lost.length}; dropped at arrival ${droppedAtArrival.length}, as the run started ${droppedAtStart.length}; answered other than 200: ${answers.filter((a) => a.status !== 200).length}; executions after the restart not successful: ${notSuccessful.length}`,
			);
			// Should a count below fail: what n8n recorded for the first few events it concerns.
			for (const id of [...ranAgain, ...lost].slice(0, 5)) {
				const records = executions
					.filter((e) => e.eventIds.includes(id))
					.map(
						(e) =>
							`${e.id} ${e.status}${e.startedAt !== null && e.startedAt >= redeliveredFrom ? ' (after the restart)' : ''}`,
					);
				say(
					`  ${id}: redelivery answered ${JSON.stringify(answers.find((a) => a.eventId === id))}; executions: ${records.join(', ') || 'none'}`,
				);
			}

			// The first deliveries: every event acknowledged and run once, and the redelivered bytes are the events that ran.
			expect(first.sent).toBe(60);
			expect(first.acknowledged).toBe(60);
			expect(first.executed).toBe(60);
			expect(first.executedTwice).toBe(0);
			expect(first.lost).toBe(0);
			for (const d of deliveries) {
				expect(before.find((e) => e.eventIds.includes(d.event_id))?.items[0].json).toEqual(
					JSON.parse(d.body.toString('utf8')),
				);
			}
			// The redeliveries: each acknowledged, none ran again, and each was dropped in one of the two places.
			expect(answers.every((a) => a.status === 200)).toBe(true);
			expect(notSuccessful).toHaveLength(0);
			expect(ranAgain).toHaveLength(0);
			expect(lost).toHaveLength(0);
			expect(droppedAtArrival.length + droppedAtStart.length).toBe(60);
		},
	);
});

describe('one n8n under storms, hostile requests, a secret rotation and API faults (recommended settings)', () => {
	const environment = useEnvironment('hostile', {
		n8nEnv: RECOMMENDED,
		sandbox: {
			sizes: { products: 100, orders: 40, customers: 20 },
			delivery: { attempts: 3, baseDelayMs: 200, timeoutMs: 10_000, concurrency: 5 },
		},
	});
	let env: Environment;
	beforeAll(() => {
		env = environment();
	});
	const sign = (body: Buffer | string, secret = env.sandbox.webhookSecret) =>
		`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
	const post = (
		url: string,
		body: Buffer | string,
		headers: Record<string, string> = {},
		method = 'POST',
	) =>
		fetch(url, {
			method,
			body: method === 'GET' || method === 'HEAD' ? undefined : body,
			headers: { 'content-type': 'application/json', ...headers },
		});
	const eventBody = (id = `evt_${randomUUID().replace(/-/g, '')}`) =>
		Buffer.from(
			JSON.stringify({
				id,
				type: 'order.created',
				created_at: new Date().toISOString(),
				data: { order_id: 'ord_00001' },
			}),
		);

	it('redelivery storm: the same signed delivery 20 times in parallel, then 20 times in sequence, runs once', async () => {
		const wf = await receivingWorkflow(env);
		const body = eventBody();
		const headers = { 'x-service-signature': sign(body) };
		const parallel = await Promise.all(
			Array.from({ length: 20 }, () => post(wf.url, body, headers)),
		);
		const sequential: Response[] = [];
		for (let i = 0; i < 20; i++) sequential.push(await post(wf.url, body, headers));
		const answers = await Promise.all(
			[...parallel, ...sequential].map(async (r) => ({ status: r.status, body: await r.text() })),
		);
		const executions = await settledExecutions(env, wf.id, 1);
		const skipped = answers.filter((a) => a.body.includes('duplicate_event')).length;
		say(
			`redelivery storm: 40 identical deliveries (20 parallel, 20 sequential): ${answers.filter((a) => a.status === 200).length} answered 200, ${skipped} acknowledged as duplicates, executions ${executions.length}`,
		);
		expect(answers.every((a) => a.status === 200)).toBe(true);
		expect(executions).toHaveLength(1);
		expect(skipped).toBe(39);
	});

	it('hostile input: each request gets its documented status, runs nothing (the first refusal is one failed execution that passes nothing on), leaks nothing, and n8n serves the next good delivery', async () => {
		const wf = await receivingWorkflow(env);
		const secret = env.sandbox.webhookSecret;
		const good = eventBody();
		const goodSignature = sign(good);
		const hex = goodSignature.slice('sha256='.length);
		const nested = Buffer.from(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
		const invalidUtf8 = Buffer.concat([
			Buffer.from('{"id":"evt_bad_utf8","type":"order.created","x":"'),
			Buffer.from([0xc3, 0x28, 0xff]),
			Buffer.from('"}'),
		]);
		const oneMiB = Buffer.from(JSON.stringify({ padding: 'x'.repeat(1024 * 1024) }));
		const overLimit = Buffer.alloc(17 * 1024 * 1024, 0x20); // n8n's N8N_PAYLOAD_SIZE_MAX default is 16 MiB
		const cases: Array<{
			name: string;
			body: Buffer;
			headers?: Record<string, string>;
			method?: string;
			expected: number;
		}> = [
			{
				name: 'empty body (0 B), signed',
				body: Buffer.alloc(0),
				headers: { 'x-service-signature': sign(Buffer.alloc(0)) },
				expected: 400,
			},
			{ name: 'empty body, unsigned', body: Buffer.alloc(0), expected: 401 },
			{
				name: '1 MiB JSON object that is not an event, signed',
				body: oneMiB,
				headers: { 'x-service-signature': sign(oneMiB) },
				expected: 400,
			},
			{ name: '1 MiB, unsigned', body: oneMiB, expected: 401 },
			// n8n reads and parses the body before any node runs; its reader refuses more than N8N_PAYLOAD_SIZE_MAX
			// and n8n 2.41 answers that with a bare 500 (no detail). Nothing runs; the service retries, then gives up.
			{
				name: 'over the payload limit (17 MiB), signed',
				body: overLimit,
				headers: { 'x-service-signature': sign(overLimit) },
				expected: 500,
			},
			{
				name: 'invalid UTF-8, signed',
				body: invalidUtf8,
				headers: { 'x-service-signature': sign(invalidUtf8) },
				expected: 400,
			},
			{
				name: 'deeply nested JSON (50,000 levels), signed',
				body: nested,
				headers: { 'x-service-signature': sign(nested) },
				expected: 400,
			},
			{
				name: 'a JSON array of events, signed',
				body: Buffer.from(`[${good}]`),
				headers: { 'x-service-signature': sign(`[${good}]`) },
				expected: 400,
			},
			{
				name: 'a non-JSON content type and body, signed',
				body: Buffer.from('id=evt_1&type=order.created'),
				headers: {
					'content-type': 'application/x-www-form-urlencoded',
					'x-service-signature': sign('id=evt_1&type=order.created'),
				},
				expected: 400,
			},
			{ name: 'GET', body: good, method: 'GET', expected: 404 },
			{
				name: 'PUT',
				body: good,
				headers: { 'x-service-signature': goodSignature },
				method: 'PUT',
				expected: 404,
			},
			{
				name: 'DELETE',
				body: good,
				headers: { 'x-service-signature': goodSignature },
				method: 'DELETE',
				expected: 404,
			},
			{
				name: 'a valid signature over a different body',
				body: eventBody(),
				headers: { 'x-service-signature': goodSignature },
				expected: 401,
			},
			{
				name: 'whitespace inside the header',
				body: good,
				headers: { 'x-service-signature': `sha256= ${hex}` },
				expected: 401,
			},
			{
				name: 'whitespace inside the digest',
				body: good,
				headers: { 'x-service-signature': `sha256=${hex.slice(0, 32)} ${hex.slice(32)}` },
				expected: 401,
			},
			{
				name: 'unicode look-alike prefix (Cyrillic "ѕ")',
				body: good,
				headers: { 'x-service-signature': `\u0455ha256=${hex}` },
				expected: 401,
			},
			{
				name: 'unicode look-alike "=" (fullwidth)',
				body: good,
				headers: { 'x-service-signature': `sha256\uff1d${hex}` },
				expected: 401,
			},
			{
				name: 'extra parameters after the digest',
				body: good,
				headers: { 'x-service-signature': `${goodSignature},v2=abc` },
				expected: 401,
			},
			{
				name: 'two signatures, one valid',
				body: good,
				headers: { 'x-service-signature': `sha256=${'0'.repeat(64)}, ${goodSignature}` },
				expected: 401,
			},
			{
				name: 'upper-case algorithm name',
				body: good,
				headers: { 'x-service-signature': `SHA256=${hex}` },
				expected: 401,
			},
		];
		const results: string[] = [];
		for (const c of cases) {
			let status: number;
			let text: string;
			try {
				// Header values with non-Latin-1 characters go as raw UTF-8 bytes, as an attacker's client would send them.
				const headers = Object.fromEntries(
					Object.entries(c.headers ?? {}).map(([k, v]) => [
						k,
						Buffer.from(v, 'utf8').toString('latin1'),
					]),
				);
				const res = await post(wf.url, c.body, headers, c.method);
				status = res.status;
				text = await res.text();
			} catch (error) {
				status = -1;
				text = String(error);
			}
			results.push(`${c.name} → ${status}`);
			expect({ case: c.name, status }).toEqual({ case: c.name, status: c.expected });
			expect(text).not.toContain(secret);
			expect(text).not.toMatch(/\n\s+at |node_modules|\.js:\d+/);
		}
		const next = await post(wf.url, good, { 'x-service-signature': goodSignature });
		expect(next.status).toBe(200);
		const executions = await settledExecutions(env, wf.id, 2);
		// Which executions ran the node after the trigger.
		const ranNext = await Promise.all(
			executions.map(async (e) => 'Received' in rest.runData(await env.client.getExecution(e.id))),
		);
		say(
			`hostile input: ${cases.length} requests, ${executions.length} executions (${executions.map((e) => e.status).join(', ')}: the first refusal's report, the good delivery after them); ${results.join('; ')}`,
		);
		// A refused delivery reports itself as a failed execution, the first of a trigger node and then at most one per
		// 20 minutes (the others are in n8n's log): one here, and it passed nothing on. The good delivery is the one run.
		expect(executions.map((e) => e.status)).toEqual(['error', 'success']);
		expect(ranNext).toEqual([false, true]);
		expect(executions[1].eventIds).toEqual([JSON.parse(good.toString()).id]);
	});

	it('secret rotation: deliveries keep flowing with zero 401s; once the previous secret is cleared the old one gets 401', async () => {
		const wf = await receivingWorkflow(env);
		await env.sandbox.admin('DELETE', '/deliveries');
		const oldSecret = env.sandbox.webhookSecret;
		const newSecret = `whsec_rotated_${randomUUID().slice(0, 8)}`;
		const setCredential = (data: Record<string, string>) =>
			instance.ensureCredential(env.client, {
				name: env.credential.name,
				data: { ...env.credentialData, ...data },
			});

		await env.sandbox.admin('POST', '/simulate/events', { count: 100 });
		await eventually(async () => {
			const { body } = await env.sandbox.admin<Delivery[]>('GET', '/deliveries');
			return body.filter((d) => d.status === 'delivered').length >= 30 ? true : undefined;
		}, 'deliveries before the rotation');
		// 1. n8n accepts the new and the old secret; 2. the service switches to the new one.
		await setCredential({ webhookSecret: newSecret, previousWebhookSecret: oldSecret });
		const rotated = await env.sandbox.admin('POST', '/webhook/rotate', { secret: newSecret });
		expect(rotated.status).toBe(200);
		await env.sandbox.admin('POST', '/simulate/events', { count: 100 });
		await env.sandbox.idle();
		const deliveries = (await env.sandbox.admin<Delivery[]>('GET', '/deliveries')).body;
		const attempts = deliveries.flatMap((d) => d.attempts);
		const executions = await settledExecutions(env, wf.id, 200);
		const t = tally(deliveries, executions);
		const refused = attempts.filter((a) => a.status === 401).length;

		// 3. the previous secret is cleared: the old one is refused from then on.
		await setCredential({ webhookSecret: newSecret, previousWebhookSecret: '' });
		const body = eventBody();
		const withOld = await post(wf.url, body, { 'x-service-signature': sign(body, oldSecret) });
		const withNew = await post(wf.url, body, { 'x-service-signature': sign(body, newSecret) });
		say(
			`secret rotation: ${countsLine(t)}; 401s during the rotation: ${refused}; after clearing the previous secret: old secret → ${withOld.status}, new secret → ${withNew.status}`,
		);
		expect(t.sent).toBe(200);
		expect(refused).toBe(0);
		expect(t.acknowledged).toBe(200);
		expect(t.executed).toBe(200);
		expect(t.lost).toBe(0);
		expect(withOld.status).toBe(401);
		expect(withNew.status).toBe(200);
	});

	it('Order › Update Status on 200 items under 429s (with and without Retry-After), 503s and dropped connections', async () => {
		await env.sandbox.admin('PUT', '/webhook', { url: null });
		// 200 new pending orders.
		await env.sandbox.admin('POST', '/simulate/stock', {
			product_id: 'prod_00001',
			stock: 100_000,
		});
		const ids: string[] = [];
		for (let i = 0; i < 200; i++) {
			const res = await env.sandbox.admin<{ id: string; status: string }>(
				'POST',
				'/simulate/checkout',
				{ items: [{ product_id: 'prod_00001', quantity: 1 }] },
			);
			expect(res.body.status).toBe('pending');
			ids.push(res.body.id);
		}
		await env.sandbox.admin('DELETE', '/requests');
		await env.sandbox.admin('DELETE', '/deliveries');
		const eventsBefore = (await env.sandbox.admin<any[]>('GET', '/events')).body.length;
		for (const fault of [
			// Without Retry-After first: a request refused again and again backs off from Retry Delay, doubling.
			{ status: 429, retry_after: null, count: 12, path: '/orders/' },
			{ status: 429, retry_after: 0, count: 12, path: '/orders/' },
			{ status: 503, count: 12, path: '/orders/' },
			{ type: 'drop', count: 12, path: '/orders/' },
		]) {
			expect((await env.sandbox.admin('POST', '/faults', fault)).status).toBe(201);
		}

		const path = `reliability-${randomUUID()}`;
		const wf = await createWorkflow(env, {
			name: 'update 200 orders',
			nodes: [
				{
					id: 'f-hook',
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: {
						httpMethod: 'POST',
						path,
						responseMode: 'lastNode',
						responseData: 'allEntries',
						options: {},
					},
				},
				{
					id: 'f-split',
					name: 'Orders',
					type: 'n8n-nodes-base.splitOut',
					typeVersion: 1,
					position: [200, 0],
					parameters: { fieldToSplitOut: 'body.orders', options: {} },
				},
				{
					id: 'f-update',
					name: 'Mark Processing',
					type: TYPES.action,
					typeVersion: 1,
					position: [400, 0],
					onError: 'continueRegularOutput',
					parameters: {
						resource: 'order',
						operation: 'updateStatus',
						orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
						status: 'processing',
						options: { maxRetries: 3, retryDelay: 1 },
					},
					credentials: { storefrontApi: { id: env.credential.id, name: env.credential.name } },
				},
			],
			connections: {
				Webhook: { main: [[{ node: 'Orders', type: 'main', index: 0 }]] },
				Orders: { main: [[{ node: 'Mark Processing', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		});
		const res = await post(wf.url, JSON.stringify({ orders: ids.map((id) => ({ id })) }));
		expect(res.status).toBe(200);
		const out = (await res.json()) as Array<{ id?: string; status?: string; error?: string }>;

		const requests = (
			await env.sandbox.admin<Array<{ method: string; path: string; status: number | string }>>(
				'GET',
				'/requests',
			)
		).body;
		const events = (
			await env.sandbox.admin<Array<{ type: string; data: { order_id: string } }>>('GET', '/events')
		).body.slice(eventsBefore);
		const updated = out.filter((item) => item.status === 'processing');
		const errors = out.filter((item) => item.error !== undefined);
		const changesPerOrder = new Map<string, number>();
		for (const e of events.filter((x) => x.type === 'order.updated'))
			changesPerOrder.set(e.data.order_id, (changesPerOrder.get(e.data.order_id) ?? 0) + 1);
		const puts = requests.filter((r) => r.method === 'PUT');
		const faulted = puts.filter((r) => r.status !== 200).length;
		say(
			`action node under faults: 200 items → ${updated.length} updated, ${errors.length} error items; ${puts.length} PUTs (${faulted} answered with a fault or dropped, then retried), POSTs ${requests.filter((r) => r.method === 'POST').length}; orders changed twice: ${[...changesPerOrder.values()].filter((n) => n > 1).length}`,
		);

		expect(out).toHaveLength(200);
		expect(updated.length + errors.length).toBe(200);
		expect(faulted).toBeGreaterThanOrEqual(48);
		expect(requests.filter((r) => r.method === 'POST')).toEqual([]);
		expect([...changesPerOrder.values()].every((n) => n === 1)).toBe(true);
		// Exactly the items reported updated changed status, once each; the others are untouched and reported as errors.
		expect([...changesPerOrder.keys()].sort()).toEqual(updated.map((item) => item.id).sort());
		for (const item of errors) expect(String(item.error)).toMatch(/429|503|Could not reach/);
		const finalStatuses = await Promise.all(
			ids.map(
				async (id) =>
					(await fetch(`${env.sandbox.baseUrl}/orders/${id}`, {
						headers: { authorization: `Bearer ${env.sandbox.apiKey}` },
					}).then((r) => r.json())) as { status: string },
			),
		);
		expect(finalStatuses.filter((o) => o.status === 'processing')).toHaveLength(updated.length);

		// In n8n's execution record every output item, error items included, is paired with its own input item.
		// n8n may answer the webhook a moment before its record of the run is written: wait for the finished run.
		const [execution] = await eventually(async () => {
			const list = await executionsOf(env.userFolder, wf.id, 'Mark Processing');
			return list.length > 0 && list.every((e) => !UNFINISHED.includes(e.status))
				? list
				: undefined;
		}, `the finished execution of ${wf.id} in n8n's database`);
		expect(execution.items).toHaveLength(200);
		expect(execution.items.map((item) => item.pairedItem)).toEqual(
			ids.map((_, item) => ({ item })),
		);
		expect(execution.items.map((item) => item.json.id ?? null).filter(Boolean)).toEqual(
			updated.map((item) => item.id),
		);
	});
});

describe('flash sale on the Starter plan: 100 orders at once, Trigger → Get → Update Status, n8n defaults, one process', () => {
	// The plan's rate in short windows (20 a window): 200 calls need ten windows, as 500 orders do in real minutes
	// (bench/flashsale.js measures 12 s and true one-minute windows). With the headers, 6 s windows: in 3 s windows one
	// run here, its n8n starved of CPU beside two cells and their catch-up suites, had 3 calls refused. The likely cause
	// (not observed): a call released in one window that reaches the service only after that window ended is counted
	// in the next, which no answer has shown yet; longer windows leave a starved process more room. Without the headers, 3 s: their bound counts windows.
	const environment = useEnvironment('flashsale', {
		sandbox: {
			sizes: { products: 50, orders: 10, customers: 20 },
			delivery: { attempts: 5, baseDelayMs: 1000, timeoutMs: 10_000, concurrency: 20 },
		},
	});

	it.each([
		['with X-RateLimit-* headers', true],
		['without them (Retry-After only)', false],
	])('%s: no execution fails, every order is set exactly once', async (_label, headers) => {
		const sale = await runFlashSale(environment(), {
			orders: 100,
			limit: 20,
			windowMs: headers ? 6_000 : 3_000,
			headers,
		});
		say(`flash sale: ${sale.summary}`);
		expect(sale.executions).toBe(100);
		expect(sale.failedExecutions).toBe(0);
		expect({ once: sale.setOnce, twice: sale.setTwice, never: sale.notSet }).toEqual({
			once: 100,
			twice: 0,
			never: 0,
		});
		expect(sale.calls).toBe(200);
		expect(sale.windows).toBeGreaterThanOrEqual(10);
		// With the headers nothing is sent that the window cannot take. Without them (this run follows the one with
		// headers, on the same key in the same n8n: headers that stop coming), the governor keeps the limit they said as
		// if learned from 429s, and one call a window finds where the window ends: on average at most 2 a window. When
		// it dropped that limit instead, everything queued went at once (39 refused in the first window, one CI run).
		// A cold start without headers is the unit model's (test/node/governor.test.ts). Every call for itself, as
		// before the governor, was refused 441 times for 148 served.
		if (headers) expect(sale.refused).toBe(0);
		else expect(sale.refused).toBeLessThanOrEqual(2 * sale.windows);
	});
});

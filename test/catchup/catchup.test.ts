/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's internal REST API answers untyped JSON; the measured counts are printed */
// The Storefront Trigger's Catch Up After Downtime and its refused-delivery reports in a real n8n process (the matrix
// runs this suite in one cell per n8n line, the copied install, and in the spec-literal cell), against the sandbox's real, signed, retried
// deliveries of real changes (checkouts, status changes, payments): a first activation is a baseline; a restart with
// nothing missed costs one request per list and runs nothing again; n8n stopped while 200 orders are created and 50
// change status, then started: each of the 250 runs once, and the service's late retries run nothing more; SIGKILL
// while deliveries flow, then a start: nothing lost (not even what n8n's start-up answer acknowledged), nothing twice;
// a wrong Webhook Secret: one failed execution that says why, a warning in n8n's log, and a flood of forgeries adds
// no more. A change is counted by what it is (kind, order or product, new status), not by event id: a delivery and
// a catch-up report one change with different ids.
import { createHmac, randomUUID } from 'crypto';
import * as fs from 'fs';

import { api } from '../helpers/sandbox';
import { CREDENTIAL_NAME, eventually, registerWebhook, startEnvironment, createWorkflow, TYPES, type Environment } from '../e2e/environment';
import { executionsOf, stopDatabaseReader, type ExecutionRecord } from '../reliability/n8n-db';
import { PROFILE, SPEC_LITERAL } from '../helpers/profile';

jest.setTimeout(600_000);

const TRIGGER = 'Storefront Trigger';
/** The kinds a catch-up reports (inventory.low is not one: docs/trigger.md). */
const KINDS = ['order.created', 'order.updated', 'payment.completed', 'product.created'];
const NEXT: Record<string, string> = { pending: 'processing', processing: 'shipped', shipped: 'delivered', delivered: 'refunded' };

let env: Environment;
const report: string[] = [];
const say = (line: string) => {
	report.push(line);
	process.stdout.write(`${line}\n`);
};

beforeAll(async () => {
	env = await startEnvironment('catchup', {
		editor: false,
		// The info level: the catch-up says in n8n's log what it read.
		n8nEnv: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true', N8N_LOG_LEVEL: 'info' },
		// The contract's delivery policy (5 attempts, ten in flight) at half its spacing: 0.5, 1, 2 and 4 s apart (7.5 s
		// instead of 15). The suite waits out the service's retries about ten times a cell.
		sandbox: { sizes: { products: 100, orders: 150, customers: 20 }, delivery: { attempts: 5, baseDelayMs: 500, timeoutMs: 10_000, concurrency: 10 } },
	});
}, 300_000);

afterAll(async () => {
	if (report.length) process.stdout.write(`\nCatch-up summary\n${report.map((l) => `  ${l}`).join('\n')}\n`);
	await env?.stop();
	await stopDatabaseReader();
}, 60_000);

/** What a change is, from an event's type and data: the test's own reading of "the same change", apart from the node's. */
const changeOf = (type: string, data: any) =>
	type === 'order.updated' ? `${type} ${data.order_id ?? data.id} → ${data.status}` : `${type} ${data.order_id ?? data.product_id ?? data.id}`;

/** The sandbox's events of the caught-up kinds since index `from` of its event log, as changes. */
const sandboxChanges = (from: number) =>
	env.sandbox.events
		.slice(from)
		.filter((e) => KINDS.includes(e.type))
		.map((e) => changeOf(e.type, e.data));

/** Every item the trigger passed on, in every execution of the workflow, by change: how often each ran, and from where. */
function runsOf(executions: ExecutionRecord[]) {
	const runs = new Map<string, number>();
	const sources = { webhook: 0, catchUp: 0 };
	for (const e of executions.filter((x) => x.status === 'success')) {
		for (const { json } of e.items) {
			const change = changeOf(String(json.type), json.data);
			runs.set(change, (runs.get(change) ?? 0) + 1);
			sources[json.source as keyof typeof sources]++;
		}
	}
	return { runs, sources, twice: [...runs].filter(([, n]) => n > 1).map(([c]) => c) };
}

/** The workflow's executions once none is unfinished and their number stood still for a few seconds. */
async function settled(workflowId: string, atLeast = 0) {
	let last = -1;
	let sameSince = Date.now();
	return await eventually(
		async () => {
			const all = await executionsOf(env.userFolder, workflowId);
			if (all.length !== last) [last, sameSince] = [all.length, Date.now()];
			const done = all.every((e) => !['new', 'running', 'waiting'].includes(e.status));
			return done && all.length >= atLeast && Date.now() - sameSince > 4_000 ? all : undefined;
		},
		`executions of ${workflowId} to settle`,
		240_000,
	);
}

async function catchUpWorkflow(options: Record<string, unknown> = {}, { typeVersion = 1.3, onError, events = KINDS }: { typeVersion?: number; onError?: string; events?: string[] } = {}) {
	const wf = await createWorkflow(env, {
		name: 'catch-up',
		nodes: [
			{
				id: 'catchup-trigger',
				name: TRIGGER,
				type: TYPES.trigger,
				typeVersion,
				...(onError ? { onError } : {}),
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { events, options },
				credentials: { storefrontApi: { id: '', name: CREDENTIAL_NAME } },
			},
			{ id: 'catchup-noop', name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [220, 0], parameters: {} },
		],
		connections: { [TRIGGER]: { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
	await registerWebhook(env, wf.url);
	return wf;
}

async function checkouts(count: number) {
	for (let i = 0; i < count; i++) {
		const res = await env.sandbox.admin('POST', '/simulate/checkout', {});
		if (res.status !== 201) throw new Error(`checkout: ${res.status} ${JSON.stringify(res.body)}`);
	}
}
async function changeStatuses(ids: string[]) {
	for (const id of ids) {
		const res = await api(env.sandbox, 'PUT', `/orders/${id}/status`, { status: NEXT[String(env.sandbox.state.orders.get(id)?.status)] });
		if (res.status !== 200) throw new Error(`status change of ${id}: ${res.status}`);
	}
}
/** Orders that can move on and have not changed since `since` (ISO time): one status change each. */
const unchangedOrders = (count: number, since = '') =>
	[...env.sandbox.state.orders.values()]
		.filter((o) => NEXT[String(o.status)] && String(o.updated_at) < since)
		.slice(0, count)
		.map((o) => String(o.id));
const listRequests = async () => {
	const requests = (await env.sandbox.admin('GET', '/requests')).body as any[];
	const count = (path: string) => requests.filter((r) => r.method === 'GET' && r.path === path).length;
	return { orders: count('/v1/orders'), products: count('/v1/products') };
};
const logText = () => fs.readFileSync(env.n8nLog, 'utf8');
const N8N_STARTING_UP = 'n8n is starting up';

/** Whether a delivery attempt was acknowledged by n8n's start-up page (200, before any node ran). */
const startupAnswer = (attempt: any) => attempt.ok && String(attempt.response ?? '').startsWith(N8N_STARTING_UP);
const answeredByStartup = (delivery: any) => delivery.attempts.some(startupAnswer);

/** Spec-literal: the status changes no delivery brought to the trigger (every attempt given up, or answered by n8n's
 * start-up page); a read cannot find them without updated_at. None in the contract cells. */
function unreadableChanges(events: Array<{ id: string; type: string; data: any }>, deliveries: any[]): string[] {
	if (!SPEC_LITERAL) return [];
	const delivered = (id: string) => deliveries.some((d) => d.event_id === id && d.attempts.some((a: any) => a.ok && !startupAnswer(a)));
	return events.filter((e) => e.type === 'order.updated' && !delivered(e.id)).map((e) => changeOf(e.type, e.data));
}

/**
 * A test of what n8n does whatever shape the service gives its events (a hung API, a wrong secret): registered in the
 * contract cells only. The spec-literal cell runs the tests that read or claim the service's records.
 */
function contractCellsOnly(name: string, fn: () => Promise<void>) {
	if (!SPEC_LITERAL) test(name, fn);
}

describe('Catch Up After Downtime (node version 1.3, on by default)', () => {
	let wf: Awaited<ReturnType<typeof catchUpWorkflow>>;
	let sinceStart = '';

	test('a first activation is a baseline; deliveries run as "source": "webhook"; a restart with nothing missed reads one page per list and runs nothing again', async () => {
		sinceStart = new Date().toISOString();
		wf = await catchUpWorkflow();
		await eventually(() => (/catch-up baseline for workflow/.test(logText()) ? true : undefined), 'the baseline in the log');
		const from = env.sandbox.events.length;
		await checkouts(10);
		await changeStatuses(unchangedOrders(5, sinceStart));
		await env.sandbox.admin('POST', '/simulate/payment', { order_id: [...env.sandbox.state.orders.values()].find((o) => !o.paid_at && o.status === 'pending')?.id });
		await env.sandbox.idle();
		const expected = sandboxChanges(from);
		const delivered = runsOf(await settled(wf.id, expected.length));
		expect(expected.length).toBe(16);
		expect([...delivered.runs.keys()].sort()).toEqual([...expected].sort());
		expect(delivered.twice).toEqual([]);
		expect(delivered.sources).toEqual({ webhook: 16, catchUp: 0 });

		// The restart: n8n reads from shortly before the newest change that ran (five minutes): the 16 changes, again.
		await env.sandbox.admin('DELETE', '/requests');
		const executionsBefore = (await executionsOf(env.userFolder, wf.id)).length;
		await env.restart();
		const after = await settled(wf.id, executionsBefore + 1);
		const catchUps = after.slice(executionsBefore);
		const cost = await listRequests();
		say(`restart with nothing missed: catch-up requests orders ${cost.orders}, products ${cost.products}; executions it started: ${catchUps.length} (items passed on: ${catchUps.reduce((n, e) => n + e.items.length, 0)})`);
		// Lists read whole where records carry no updated_at (spec-literal): a request per 100 records.
		const pages = (n: number) => (SPEC_LITERAL ? Math.ceil(n / 100) : 1);
		expect(cost).toEqual({ orders: pages(env.sandbox.state.orders.size), products: pages(env.sandbox.state.products.size) });
		expect(catchUps).toHaveLength(1);
		expect(catchUps[0].passedNothing).toBe(true);
		expect(runsOf(after).twice).toEqual([]);
	});

	test('downtime longer than the service retries: 200 orders created and 50 status changes while n8n is stopped, then a start: each of the 250 runs once; late retries run nothing more', async () => {
		const from = env.sandbox.events.length;
		const executionsBefore = (await executionsOf(env.userFolder, wf.id)).length;
		const movers = unchangedOrders(50, sinceStart);
		expect(movers).toHaveLength(50);
		const { downMs } = await env.restart(60_000, {}, async () => {
			await checkouts(200);
			await changeStatuses(movers.slice(0, 40));
			// Every delivery so far fails all its attempts: those events are the service's to lose.
			await env.sandbox.idle();
			// Ten more just before the start: their retries come after it, while the catch-up runs.
			await changeStatuses(movers.slice(40));
		});
		await env.sandbox.idle();
		const events = env.sandbox.events.slice(from).filter((e) => KINDS.includes(e.type));
		const expected = events.map((e) => changeOf(e.type, e.data));
		expect(expected.filter((c) => c.startsWith('order.created'))).toHaveLength(200);
		expect(expected.filter((c) => c.startsWith('order.updated'))).toHaveLength(50);
		const executions = (await settled(wf.id, executionsBefore + 1)).slice(executionsBefore);
		const { runs, sources, twice } = runsOf(executions);
		const deliveries = ((await env.sandbox.admin('GET', '/deliveries')).body as any[]).filter((d) => events.some((e) => e.id === d.event_id));
		const givenUp = deliveries.filter((d) => d.status === 'failed');
		const late = deliveries.filter((d) => d.status === 'delivered' && d.attempts.some((a: any) => !a.ok));
		const dropped = late.filter((d) => d.attempts.some((a: any) => a.ok && String(a.response ?? '').includes('duplicate_event')));
		const byStartup = late.filter(answeredByStartup);
		const lost = expected.filter((c) => !runs.has(c));
		say(
			`downtime ${(downMs / 1000).toFixed(1)} s: ${expected.length} changes, ${givenUp.length} of their deliveries given up by the service; ran once ${[...runs.values()].filter((n) => n === 1).length}, twice ${twice.length}, lost ${lost.length}; run by the catch-up ${sources.catchUp}, by deliveries ${sources.webhook}; late retries that got through after the start ${late.length} (answered as duplicates on arrival ${dropped.length}, by n8n's start-up page ${byStartup.length}); executions ${executions.length}`,
		);
		// Without updated_at (spec-literal) a read cannot tell when an order made before the cursor changed status
		// (docs/trigger.md, Other readings of the spec): such a change that no delivery brought is lost (every attempt
		// given up, or a late retry acknowledged by n8n's start-up answer, which ran nothing).
		const unreadable = unreadableChanges(events, deliveries);
		expect(givenUp.length).toBeGreaterThanOrEqual(240);
		expect([...lost].sort()).toEqual([...unreadable].sort());
		expect(twice).toEqual([]);
		expect(runs.size).toBe(250 - unreadable.length);
		expect(sources.catchUp + sources.webhook).toBe(250 - unreadable.length);
		expect(sources.catchUp).toBeGreaterThanOrEqual(240 - unreadable.length);
	});

	test('SIGKILL while deliveries flow, then a start: no change lost (also those n8n acknowledged while starting), none twice', async () => {
		const from = env.sandbox.events.length;
		const executionsBefore = (await executionsOf(env.userFolder, wf.id)).length;
		const flowing = (async () => {
			await checkouts(60);
			await changeStatuses(unchangedOrders(20, sinceStart));
		})();
		await eventually(() => (env.sandbox.events.length - from >= 30 ? true : undefined), 'changes flowing');
		const crashedAt = Date.now();
		await env.crashAndRestart(async () => {
			await flowing;
		});
		await env.sandbox.idle();
		const expected = sandboxChanges(from);
		const all = await settled(wf.id, executionsBefore + 1);
		const executions = all.slice(executionsBefore);
		const crashed = executions.filter((e) => e.status !== 'success');
		const { runs, sources, twice } = runsOf(executions);
		const deliveries = ((await env.sandbox.admin('GET', '/deliveries')).body as any[]).filter((d) => env.sandbox.events.slice(from).some((e) => e.id === d.event_id));
		const byStartup = deliveries.filter(answeredByStartup);
		const inCrashed = new Set(crashed.flatMap((e) => e.items.map(({ json }) => changeOf(String(json.type), json.data))));
		const lost = expected.filter((c) => !runs.has(c) && !inCrashed.has(c));
		say(
			`crash: ${expected.length} changes; ran once ${[...runs.values()].filter((n) => n === 1).length}, twice ${twice.length}, lost ${lost.length}; acknowledged by n8n's start-up answer ${byStartup.length}; left in crashed executions ${inCrashed.size} (${crashed.map((e) => `${e.id} ${e.status}`).join(', ') || 'none'}); brought by the catch-up ${sources.catchUp}, by deliveries ${sources.webhook}; crash ${new Date(crashedAt).toISOString()}`,
		);
		// Spec-literal: a status change of an order made before the cursor that no delivery brought cannot be read
		// (see the test above); nothing else may be lost.
		const unreadable = unreadableChanges(env.sandbox.events.slice(from), deliveries);
		expect(lost.filter((c) => !unreadable.includes(c))).toEqual([]);
		expect(twice).toEqual([]);
	});

	contractCellsOnly('a Storefront API that accepts connections and never answers while n8n starts: plain Webhook workflows answer while it hangs; once it answers again, the 10 orders created while n8n was down run once, without another restart', async () => {
		const hooks = [];
		for (let i = 0; i < 4; i++) {
			const path = randomUUID();
			hooks.push(
				await createWorkflow(env, {
					name: 'plain webhook',
					nodes: [{ id: `plain-${i}`, name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID(), parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} } }],
					connections: {},
				}),
			);
		}
		const from = env.sandbox.events.length;
		const executionsBefore = (await executionsOf(env.userFolder, wf.id)).length;
		const logFrom = logText().length;
		let startedAt = 0;
		await env.restart(60_000, {}, async () => {
			await checkouts(10);
			// Their deliveries fail every attempt while n8n is down.
			await env.sandbox.idle();
			// A hung load balancer: every API request is held ten minutes before it is answered.
			await env.sandbox.admin('POST', '/faults', { type: 'slow', delay_ms: 600_000, count: 100_000, path: '/v1/' });
			startedAt = Date.now();
		});
		const answered = await Promise.all(
			hooks.map(async (hook) =>
				await eventually(async () => {
					const res = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
					// n8n answers every request 200 "n8n is starting up" while it migrates: the Webhook node's own answer counts.
					return res.status === 200 && (await res.text()).includes('Workflow was started') ? Date.now() - startedAt : undefined;
				}, 'a plain Webhook workflow to answer', 60_000),
			),
		);
		// The trigger's reading is held by the hung API: it times out and says it will try again.
		await eventually(() => (logText().slice(logFrom).includes(`could not read the Storefront lists for workflow "${wf.name}"`) ? true : undefined), 'the reading to time out', 60_000);
		expect((await env.sandbox.admin('GET', '/faults')).body).toHaveLength(1);
		await env.sandbox.admin('DELETE', '/faults');
		const answersAgainAt = Date.now();
		const created = sandboxChanges(from).filter((c) => c.startsWith('order.created'));
		const executions = await eventually(async () => {
			const all = (await executionsOf(env.userFolder, wf.id)).slice(executionsBefore);
			return created.every((c) => runsOf(all).runs.has(c)) ? all : undefined;
		}, 'the orders made while n8n was down to run', 120_000);
		const { runs, twice } = runsOf(await settled(wf.id, executionsBefore + executions.length));
		say(
			`Storefront API hung while n8n started: 4 plain Webhook workflows answered ${answered.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} after the start began, while it hung; the ${created.length} orders made while n8n was down ran ${(((executions.at(-1)?.createdAt ?? Date.now()) - answersAgainAt) / 1000).toFixed(1)} s after it answered again, without a restart`,
		);
		expect(answered).toHaveLength(4);
		expect(created).toHaveLength(10);
		expect(created.filter((c) => runs.get(c) !== 1)).toEqual([]);
		expect(twice).toEqual([]);
	});
});

describe('refused deliveries are visible (node version 1.3)', () => {
	contractCellsOnly('a wrong Webhook Secret: the first refused delivery is one failed execution that says why, and a warning naming the workflow; 100 forgeries add none', async () => {
		const wf = await catchUpWorkflow();
		// The service signs with a secret the credentials do not hold (a rotation done in the dashboard only).
		const configured = env.sandbox.webhookSecret;
		const other = `whsec_not_what_n8n_has_${randomUUID().slice(0, 8)}`;
		await env.sandbox.admin('POST', '/webhook/rotate', { secret: other });
		const before = logText().length;
		await checkouts(1);
		await env.sandbox.idle();
		const failed = await eventually(async () => {
			const list = await executionsOf(env.userFolder, wf.id, TRIGGER);
			return list.length ? list : undefined;
		}, 'the failed execution');
		const execution = await env.client.getExecution(failed[0].id);
		const error = JSON.stringify(execution.data?.resultData?.error ?? execution);
		expect(failed[0].status).toBe('error');
		expect(error).toContain('X-Service-Signature digest does not match');
		expect(error).toContain('Webhook Secret');
		const warnings = logText().slice(before).split('\n').filter((l) => l.includes('refused a delivery'));
		expect(warnings.length).toBeGreaterThanOrEqual(1);
		expect(warnings[0]).toContain(`workflow "${wf.name}"`);
		expect(logText()).not.toContain(other);
		expect(logText()).not.toContain(configured);

		// A flood of forgeries, 20 at a time: still the one failed execution, and at most one more warning a minute.
		// 100 of them: test/trigger/catchUp.test.ts holds the bounds over 10,000 in a minute, and n8n 1.123.81 builds an
		// expression isolate for every webhook request (its credentials' resolution), about 0.2 CPU-seconds each here.
		const body = JSON.stringify({ id: 'evt_forged', type: 'order.created', created_at: new Date().toISOString(), data: {} });
		const forged = `sha256=${createHmac('sha256', 'whsec_forger').update(body).digest('hex')}`;
		let refused = 0;
		for (let i = 0; i < 100; i += 20) {
			const answers = await Promise.all(
				Array.from({ length: 20 }, () => fetch(wf.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': forged }, body })),
			);
			refused += answers.filter((a) => a.status === 401).length;
		}
		await new Promise((resolve) => setTimeout(resolve, 3_000));
		const after = await executionsOf(env.userFolder, wf.id, TRIGGER);
		const warningsAfter = logText().slice(before).split('\n').filter((l) => l.includes('refused a delivery'));
		say(`wrong secret: 1 refused delivery, then ${refused} forgeries answered 401: failed executions ${after.length}, warnings in n8n's log ${warningsAfter.length}`);
		expect(refused).toBe(100);
		expect(after).toHaveLength(1);
		expect(warningsAfter.length).toBeLessThanOrEqual(3);
		await env.sandbox.admin('POST', '/webhook/rotate', { secret: configured });
	});
});

describe('whatever the service sends', () => {
	test('30 status changes delivered as the order itself (no previous_status: the spec\'s plainest reading) run once each; n8n restarted: none runs again', async () => {
		// The spec-literal profile sends events so; a contract-profile cell is switched to it for this test.
		await env.sandbox.admin('PUT', '/compat', { event_data: 'record' });
		try {
			const wf = await catchUpWorkflow({}, { typeVersion: 1.4 });
			await eventually(() => (new RegExp(`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\)`).test(logText()) ? true : undefined), 'the baseline in the log');
			const from = env.sandbox.events.length;
			await checkouts(30);
			const orders = env.sandbox.events.slice(from).filter((e) => e.type === 'order.created').map((e) => String((e.data as any).order_id));
			await changeStatuses(orders);
			await env.sandbox.idle();
			const updates = env.sandbox.events.slice(from).filter((e) => e.type === 'order.updated');
			expect(updates).toHaveLength(30);
			expect(updates.filter((e) => 'previous_status' in (e.data as object))).toEqual([]);
			const expected = sandboxChanges(from);
			const before = await settled(wf.id, expected.length);
			const delivered = runsOf(before);
			expect(expected.filter((c) => delivered.runs.get(c) !== 1)).toEqual([]);
			await env.restart();
			const after = await settled(wf.id, before.length + 1);
			const again = runsOf(after.slice(before.length));
			say(`30 order.updated without previous_status, run once each; after a restart the catch-up passed on ${again.runs.size} (ran twice overall: ${runsOf(after).twice.length})`);
			expect([...again.runs.keys()]).toEqual([]);
			expect(runsOf(after).twice).toEqual([]);
		} finally {
			await env.sandbox.admin('PUT', '/profile', { profile: PROFILE });
		}
	});
});

describe('while n8n keeps running (node version 1.4: Reconcile Every)', () => {
	test('the public URL down for a while: 40 orders whose deliveries never arrived each run once at the next reading, without a restart; none twice among them and the orders delivered around them', async () => {
		// Every 15 s (the default is 5 minutes: the same reading, sooner); changes younger than 7.5 s wait for their delivery.
		const wf = await catchUpWorkflow({ reconcileEveryMinutes: 0.25 }, { typeVersion: 1.4 });
		await eventually(() => (new RegExp(`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\)`).test(logText()) ? true : undefined), 'the baseline in the log');
		const from = env.sandbox.events.length;
		const executionsBefore = (await executionsOf(env.userFolder, wf.id)).length;
		await checkouts(5);
		await env.sandbox.idle();
		// The tunnel or proxy in front of n8n goes down: every attempt fails until the service gives up.
		await registerWebhook(env, 'http://127.0.0.1:9/webhook/unreachable');
		const lostFrom = env.sandbox.events.length;
		await checkouts(40);
		await env.sandbox.idle();
		const lost = env.sandbox.events.slice(lostFrom).filter((e) => e.type === 'order.created').map((e) => changeOf(e.type, e.data));
		await registerWebhook(env, wf.url);
		await checkouts(5);
		const restoredAt = Date.now();
		const expected = sandboxChanges(from).filter((c) => c.startsWith('order.created'));
		const executions = await eventually(async () => {
			const all = (await settled(wf.id, executionsBefore + 11)).slice(executionsBefore);
			return expected.every((c) => runsOf(all).runs.has(c)) ? all : undefined;
		}, 'every order to run', 120_000).catch((error: Error) => {
			// What the trigger said it read: the readings of this workflow in n8n's log.
			const readings = logText().split('\n').filter((line) => line.includes(`(id ${wf.id})`));
			throw new Error(`${error.message}\n${readings.slice(-20).join('\n')}`);
		});
		const { runs, sources, twice } = runsOf(executions);
		const caughtUp = executions.flatMap((e) => e.items).filter(({ json }) => json.source === 'catchUp').map(({ json }) => changeOf(String(json.type), json.data));
		say(`public URL down while n8n runs: ${lost.length} orders whose deliveries never arrived; run by the reconciliation ${sources.catchUp} (all within ${((Date.now() - restoredAt) / 1000).toFixed(0)} s of the URL's return), by deliveries ${sources.webhook}; twice ${twice.length}`);
		expect(lost).toHaveLength(40);
		expect(expected).toHaveLength(50);
		expect(expected.filter((c) => !runs.has(c))).toEqual([]);
		expect(twice).toEqual([]);
		expect([...caughtUp].sort()).toEqual([...lost].sort());
	});

	test('forged deliveries to a trigger whose On Error continues (regular or error output): the next node runs 0 times; the refusal is in n8n\'s log', async () => {
		for (const onError of ['continueRegularOutput', 'continueErrorOutput']) {
			const wf = await catchUpWorkflow({}, { typeVersion: 1.4, onError });
			const before = logText().length;
			const body = JSON.stringify({ id: `evt_forged_${onError}`, type: 'order.created', created_at: new Date().toISOString(), data: { order_id: 'ord_forged' } });
			const forged = `sha256=${createHmac('sha256', 'whsec_forger').update(body).digest('hex')}`;
			for (let i = 0; i < 5; i++) {
				const answer = await fetch(wf.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': forged }, body });
				expect(answer.status).toBe(401);
			}
			const executions = await settled(wf.id, 1);
			const received = [];
			for (const e of executions) {
				const execution = await env.client.getExecution(e.id);
				received.push(...(execution.data?.resultData?.runData?.Received ?? []));
			}
			say(`forged deliveries with On Error ${onError}: 5 answered 401; executions ${executions.length}, runs of the next node ${received.length}`);
			expect(received).toEqual([]);
			expect(logText().slice(before)).toContain(`refused a delivery to workflow "${wf.name}"`);
		}
	});
});

describe('the user edits the workflow', () => {
	test('Events widened on an active trigger and published again (Product Created, then also Order Created; Inventory Low, then also Order Created): none of the shop\'s 20 newer orders runs; an order made afterwards runs once', async () => {
		for (const first of [['product.created'], ['inventory.low']]) {
			const wf = await catchUpWorkflow({}, { typeVersion: 1.4, events: first });
			const old = env.sandbox.events.length;
			await checkouts(20);
			await env.sandbox.idle();
			const olderOrders = sandboxChanges(old).filter((c) => c.startsWith('order.created'));
			const logFrom = logText().length;
			const nodes = wf.workflow.nodes.map((node: any) => (node.name === TRIGGER ? { ...node, parameters: { ...node.parameters, events: [...first, 'order.created'] } } : node));
			await env.client.updateWorkflow(wf.id, { nodes, connections: wf.workflow.connections });
			await eventually(() => (new RegExp(`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\) \\(order\\.created`).test(logText().slice(logFrom)) ? true : undefined), 'the new kind\'s baseline');
			const from = env.sandbox.events.length;
			await checkouts(1);
			const [fresh] = sandboxChanges(from).filter((c) => c.startsWith('order.created'));
			const executions = await eventually(async () => {
				const all = await executionsOf(env.userFolder, wf.id);
				return runsOf(all).runs.has(fresh) ? all : undefined;
			}, 'the new order to run', 60_000);
			const { runs } = runsOf(await settled(wf.id, executions.length));
			const ranOld = olderOrders.filter((c) => runs.has(c));
			say(`Events ${first.join(', ')} widened with order.created and published: of the shop's ${olderOrders.length} newer orders ${ranOld.length} ran; the order made afterwards ran ${runs.get(fresh)} time(s)`);
			expect(olderOrders).toHaveLength(20);
			expect(ranOld).toEqual([]);
			expect(runs.get(fresh)).toBe(1);
		}
	});
});

describe("n8n's nodes beside the trigger", () => {
	// Ten orders a scope: the lock's harm showed on most of them (25 of 30 updates got through), and each change waits
	// for the run before it to end.
	test("Remove Duplicates after the trigger (Remove Items Processed in Previous Executions, key the order id; scope Workflow, then Node), deliveries one at a time: the updates of the 10 orders it passed are all dropped by it; 0 failed executions", async () => {
		for (const scope of ['workflow', 'node']) {
			const wf = await createWorkflow(env, {
				name: `remove-duplicates-${scope}`,
				nodes: [
					{
						id: `rd-trigger-${scope}`,
						name: TRIGGER,
						type: TYPES.trigger,
						typeVersion: 1.4,
						position: [0, 0],
						webhookId: randomUUID(),
						parameters: { events: ['order.created', 'order.updated'] },
						credentials: { storefrontApi: { id: '', name: CREDENTIAL_NAME } },
					},
					{
						id: `rd-node-${scope}`,
						name: 'Remove Duplicates',
						type: 'n8n-nodes-base.removeDuplicates',
						typeVersion: 2,
						position: [220, 0],
						parameters: { operation: 'removeItemsSeenInPreviousExecutions', dedupeValue: '={{ $json.data.order_id }}', options: { scope } },
					},
					{ id: `rd-received-${scope}`, name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [440, 0], parameters: {} },
				],
				connections: {
					[TRIGGER]: { main: [[{ node: 'Remove Duplicates', type: 'main', index: 0 }]] },
					'Remove Duplicates': { main: [[{ node: 'Received', type: 'main', index: 0 }]] },
				},
				settings: { executionOrder: 'v1' },
			});
			await registerWebhook(env, wf.url);
			await eventually(() => (new RegExp(`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\)`).test(logText()) ? true : undefined), 'the baseline in the log');
			const from = env.sandbox.events.length;
			const logFrom = logText().length;
			// One at a time: each delivery's run has ended before the next change is made (n8n answers a delivery when it
			// arrives, so waiting for the answer alone lets runs overlap, and the node then loses entries by itself).
			let runs = 0;
			const oneAtATime = async (change: () => Promise<void>) => {
				await change();
				runs++;
				await eventually(async () => {
					const all = await executionsOf(env.userFolder, wf.id);
					return all.length >= runs && all.every((e) => !['new', 'running', 'waiting'].includes(e.status)) ? true : undefined;
				}, `run ${runs} to end`);
			};
			for (let i = 0; i < 10; i++) await oneAtATime(async () => await checkouts(1));
			const orders = env.sandbox.events.slice(from).filter((e) => e.type === 'order.created').map((e) => String((e.data as any).order_id));
			for (const order of orders) await oneAtATime(async () => await changeStatuses([order]));
			const executions = await settled(wf.id, 20);
			const received = (await executionsOf(env.userFolder, wf.id, 'Received')).flatMap((e) => e.items.map(({ json }) => changeOf(String(json.type), json.data)));
			const failed = executions.filter((e) => e.status !== 'success');
			say(`Remove Duplicates, scope ${scope}, after the trigger: ${orders.length} orders then their ${orders.length} status changes, one at a time; passed by it ${received.length} (updates ${received.filter((c) => c.startsWith('order.updated')).length}); failed executions ${failed.length}`);
			expect(orders).toHaveLength(10);
			expect(received.sort()).toEqual(orders.map((order) => changeOf('order.created', { order_id: order })).sort());
			expect(failed).toEqual([]);
			// The trigger saw the node's scope, and said once that it leaves that row to it.
			expect(logText().slice(logFrom).split('node "Remove Duplicates" (Remove Duplicates, Scope: Workflow)').length - 1).toBe(scope === 'workflow' ? 1 : 0);
		}
	});
});

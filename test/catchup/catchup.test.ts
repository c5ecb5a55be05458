/* eslint-disable @typescript-eslint/no-explicit-any -- test code, not node code: n8n's internal REST API answers untyped JSON; the measured counts are printed */
// The Storefront Trigger's Catch Up After Downtime in a real n8n process (the matrix runs this suite in one cell per
// n8n line, the copied install, and in the spec-literal cell; ./checks.test.ts beside it, in an n8n of its own),
// against the sandbox's real, signed, retried deliveries of real changes (checkouts, status changes, payments): a first
// activation is a baseline; a restart with nothing missed costs one request per list and runs nothing again; n8n
// stopped while 200 orders are created and 50 change status, then started: each of the 250 runs once, and the
// service's late retries run nothing more; SIGKILL while deliveries flow, then a start: nothing lost (not even what
// n8n's start-up answer acknowledged), nothing twice; a service that hangs while n8n starts; status changes delivered
// as the order itself; (spec-literal) status changes of older orders found by comparing; an order that returns to a
// status. An order's status changes as the workflow's last word: test/lastword. A change is counted by what it is
// (kind, order or product, new status), not by event id: a delivery and a catch-up report one change with different
// ids.
import { randomUUID } from 'crypto';

import { eventually, registerWebhook, createWorkflow } from '../e2e/environment';
import { executionsOf, type ExecutionRecord } from '../reliability/n8n-db';
import { PROFILE, SPEC_LITERAL } from '../helpers/profile';
import {
	KINDS,
	env,
	say,
	changeOf,
	sandboxChanges,
	runsOf,
	settled,
	ended,
	catchUpWorkflow,
	checkouts,
	changeStatuses,
	unchangedOrders,
	listRequests,
	logText,
	answeredByStartup,
	unreadableChanges,
	contractCellsOnly,
	specLiteralCellOnly,
	baselineOf,
	FLIP,
	newOrders,
	setStatus,
	wordsOf,
	UNREACHABLE,
	deliveriesOf,
	useEnvironment,
} from './kit';

jest.setTimeout(600_000);

useEnvironment('catchup', 'Catch-up summary');

// First in the file: on a service without updated_at every reading reads the whole order list, a page per 100
// orders, and a scheduled one sends 2 requests at once and each further one 6 s after the last (docs/trigger.md, Check
// for Missed Events). While the shop is small (the seed's 150 orders) a reading is quick; after the suite's 400 more
// it is not, and a change found by comparing needs two readings.
describe('while n8n keeps running, on a service without updated_at (Check for Missed Events Every)', () => {
	specLiteralCellOnly(
		'status changes of 12 orders made before the activation, on a service without updated_at: 10 of their deliveries never arrive (the public URL down), 2 do; each of the 12 runs once within the interval (Check for Missed Events Every 1), none twice',
		async () => {
			// Without updated_at a reading finds an older order's status change by comparing with what the previous reading
			// (the baseline at activation included) saw, dates it when it first saw it and reads again once it outgrew the
			// grace (30 s). Before that, such a change was dated by every reading anew, stayed too young for ever, and
			// none of the 10 lost ones ran.
			let wf: Awaited<ReturnType<typeof catchUpWorkflow>> | undefined;
			try {
				// 12 orders made before the activation, their creation delivered nowhere (no receiver registered).
				expect((await env.sandbox.admin('PUT', '/webhook', { url: null })).status).toBe(200);
				const made = env.sandbox.events.length;
				await checkouts(12);
				const orders = env.sandbox.events
					.slice(made)
					.filter((e) => e.type === 'order.created')
					.map((e) => String((e.data as any).order_id));
				wf = await catchUpWorkflow({ missedEventsCheckMinutes: 1 }, { events: ['order.updated'] });
				await baselineOf(wf);
				// Within the interval (60 s) and the grace (30 s), plus the time two paced readings of this shop take (a first
				// that sees a change, a second once it outgrew the grace), and 15 s for the runs on a loaded machine.
				const pagedS = Math.max(0, Math.ceil(env.sandbox.state.orders.size / 100) - 2) * 6;
				const boundS = 60 + 30 + 2 * pagedS + 15;
				await registerWebhook(env, UNREACHABLE);
				const from = env.sandbox.events.length;
				const changedAt = Date.now();
				await changeStatuses(orders.slice(0, 10));
				// Back at once: the 10 changes' deliveries keep the URL of their moment and fail every attempt.
				await registerWebhook(env, wf.url);
				await changeStatuses(orders.slice(10));
				const updates = env.sandbox.events.slice(from).filter((e) => e.type === 'order.updated');
				const expected = updates.map((e) => changeOf(e.type, e.data));
				const lost = expected.slice(0, 10);
				let seen: ExecutionRecord[] = [];
				const workflowId = wf.id;
				const executions = await eventually(
					async () => {
						seen = await executionsOf(env.userFolder, workflowId);
						return expected.every((c) => runsOf(seen).runs.has(c)) ? seen : undefined;
					},
					'the 12 status changes to run',
					(boundS + 30) * 1000,
				).catch((error: Error) => {
					// What ran, and what the trigger said it read: the readings of this workflow in n8n's log.
					const ran = runsOf(seen).runs;
					const readings = logText()
						.split('\n')
						.filter((line) => line.includes(`(id ${workflowId})`));
					throw new Error(
						`${error.message}: ran ${lost.filter((c) => ran.has(c)).length} of the 10 lost, ${expected.slice(10).filter((c) => ran.has(c)).length} of the 2 delivered\n${readings.slice(-20).join('\n')}`,
					);
				});
				const withinS = (Date.now() - changedAt) / 1000;
				const all = await settled(wf.id, executions.length);
				const { runs, sources, twice } = runsOf(all);
				const caughtUp = all
					.flatMap((e) => e.items)
					.filter(({ json }) => json.source === 'catchUp')
					.map(({ json }) => changeOf(String(json.type), json.data));
				await env.sandbox.idle();
				const deliveries = deliveriesOf(updates);
				say(
					`spec-literal, status changes of 12 orders made before the activation (${env.sandbox.state.orders.size} orders in the shop): 10 deliveries given up (${deliveries.filter((d) => d?.status === 'failed').length}), 2 delivered; run by the check for missed events ${sources.catchUp}, by deliveries ${sources.webhook}, all within ${withinS.toFixed(0)} s of the changes (bound ${boundS} s); twice ${twice.length}`,
				);
				expect(orders).toHaveLength(12);
				expect(updates).toHaveLength(12);
				// The order as it is: nothing says the status before.
				expect(updates.filter((e) => 'previous_status' in (e.data as object))).toEqual([]);
				expect(deliveries.map((d) => d?.status)).toEqual([
					...Array(10).fill('failed'),
					'delivered',
					'delivered',
				]);
				expect(expected.filter((c) => runs.get(c) !== 1)).toEqual([]);
				expect(twice).toEqual([]);
				expect([...caughtUp].sort()).toEqual([...lost].sort());
				expect(sources).toEqual({ webhook: 2, catchUp: 10 });
				expect(withinS).toBeLessThan(boundS);
			} finally {
				// Its readings every minute would add requests and runs to the tests after it (the first counts a restart's requests).
				if (wf) await env.client.deactivateWorkflow(wf.id);
			}
		},
	);
});

describe('Catch Up After Downtime (on by default; no scheduled check for missed events)', () => {
	let wf: Awaited<ReturnType<typeof catchUpWorkflow>>;
	let sinceStart = '';

	test('a first activation is a baseline; deliveries run as "source": "webhook"; a restart with nothing missed reads one page per list and runs nothing again', async () => {
		sinceStart = new Date().toISOString();
		// Catch-up at activation and start only: a scheduled check would add readings and runs to what each test counts.
		wf = await catchUpWorkflow({ missedEventsCheckMinutes: 0 });
		await eventually(
			() => (/catch-up baseline for workflow/.test(logText()) ? true : undefined),
			'the baseline in the log',
		);
		const from = env.sandbox.events.length;
		await checkouts(10);
		await changeStatuses(unchangedOrders(5, sinceStart));
		await env.sandbox.admin('POST', '/simulate/payment', {
			order_id: [...env.sandbox.state.orders.values()].find(
				(o) => !o.paid_at && o.status === 'pending',
			)?.id,
		});
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
		say(
			`restart with nothing missed: catch-up requests orders ${cost.orders}, products ${cost.products}; executions it started: ${catchUps.length} (items passed on: ${catchUps.reduce((n, e) => n + e.items.length, 0)})`,
		);
		// Lists read whole where records carry no updated_at (spec-literal): a request per 100 records.
		const pages = (n: number) => (SPEC_LITERAL ? Math.ceil(n / 100) : 1);
		expect(cost).toEqual({
			orders: pages(env.sandbox.state.orders.size),
			products: pages(env.sandbox.state.products.size),
		});
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
		const deliveries = ((await env.sandbox.admin('GET', '/deliveries')).body as any[]).filter((d) =>
			events.some((e) => e.id === d.event_id),
		);
		const givenUp = deliveries.filter((d) => d.status === 'failed');
		const late = deliveries.filter(
			(d) => d.status === 'delivered' && d.attempts.some((a: any) => !a.ok),
		);
		const dropped = late.filter((d) =>
			d.attempts.some((a: any) => a.ok && String(a.response ?? '').includes('duplicate_event')),
		);
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
		await eventually(
			() => (env.sandbox.events.length - from >= 30 ? true : undefined),
			'changes flowing',
		);
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
		const deliveries = ((await env.sandbox.admin('GET', '/deliveries')).body as any[]).filter((d) =>
			env.sandbox.events.slice(from).some((e) => e.id === d.event_id),
		);
		const byStartup = deliveries.filter(answeredByStartup);
		const inCrashed = new Set(
			crashed.flatMap((e) => e.items.map(({ json }) => changeOf(String(json.type), json.data))),
		);
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

	contractCellsOnly(
		'a Storefront API that accepts connections and never answers while n8n starts: plain Webhook workflows answer while it hangs; once it answers again, the 10 orders created while n8n was down run once, without another restart',
		async () => {
			const hooks = [];
			for (let i = 0; i < 4; i++) {
				const path = randomUUID();
				hooks.push(
					await createWorkflow(env, {
						name: 'plain webhook',
						nodes: [
							{
								id: `plain-${i}`,
								name: 'Webhook',
								type: 'n8n-nodes-base.webhook',
								typeVersion: 2,
								position: [0, 0],
								webhookId: randomUUID(),
								parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
							},
						],
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
				await env.sandbox.admin('POST', '/faults', {
					type: 'slow',
					delay_ms: 600_000,
					count: 100_000,
					path: '/v1/',
				});
				startedAt = Date.now();
			});
			const answered = await Promise.all(
				hooks.map(
					async (hook) =>
						await eventually(
							async () => {
								const res = await fetch(hook.url, {
									method: 'POST',
									headers: { 'content-type': 'application/json' },
									body: '{}',
								});
								// n8n answers every request 200 "n8n is starting up" while it migrates: the Webhook node's own answer counts.
								return res.status === 200 && (await res.text()).includes('Workflow was started')
									? Date.now() - startedAt
									: undefined;
							},
							'a plain Webhook workflow to answer',
							60_000,
						),
				),
			);
			// The trigger's reading is held by the hung API: it times out and says it will try again.
			await eventually(
				() =>
					logText()
						.slice(logFrom)
						.includes(`could not read the Storefront lists for workflow "${wf.name}"`)
						? true
						: undefined,
				'the reading to time out',
				60_000,
			);
			expect((await env.sandbox.admin('GET', '/faults')).body).toHaveLength(1);
			await env.sandbox.admin('DELETE', '/faults');
			const answersAgainAt = Date.now();
			const created = sandboxChanges(from).filter((c) => c.startsWith('order.created'));
			const executions = await eventually(
				async () => {
					const all = (await executionsOf(env.userFolder, wf.id)).slice(executionsBefore);
					return created.every((c) => runsOf(all).runs.has(c)) ? all : undefined;
				},
				'the orders made while n8n was down to run',
				120_000,
			);
			const { runs, twice } = runsOf(await settled(wf.id, executionsBefore + executions.length));
			say(
				`Storefront API hung while n8n started: 4 plain Webhook workflows answered ${answered.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} after the start began, while it hung; the ${created.length} orders made while n8n was down ran ${(((executions.at(-1)?.createdAt ?? Date.now()) - answersAgainAt) / 1000).toFixed(1)} s after it answered again, without a restart`,
			);
			expect(answered).toHaveLength(4);
			expect(created).toHaveLength(10);
			expect(created.filter((c) => runs.get(c) !== 1)).toEqual([]);
			expect(twice).toEqual([]);
		},
	);
});

describe('whatever the service sends', () => {
	test("30 status changes delivered as the order itself (no previous_status: the spec's plainest reading) run once each; n8n restarted: none runs again", async () => {
		// The spec-literal profile sends events so; a contract-profile cell is switched to it for this test.
		await env.sandbox.admin('PUT', '/compat', { event_data: 'record' });
		try {
			const wf = await catchUpWorkflow();
			await baselineOf(wf);
			const from = env.sandbox.events.length;
			await checkouts(30);
			const orders = env.sandbox.events
				.slice(from)
				.filter((e) => e.type === 'order.created')
				.map((e) => String((e.data as any).order_id));
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
			say(
				`30 order.updated without previous_status, run once each; after a restart the catch-up passed on ${again.runs.size} (ran twice overall: ${runsOf(after).twice.length})`,
			);
			expect([...again.runs.keys()]).toEqual([]);
			expect(runsOf(after).twice).toEqual([]);
		} finally {
			await env.sandbox.admin('PUT', '/profile', { profile: PROFILE });
		}
	});
});

describe('an order that returns to a status (compat order_transitions "any")', () => {
	test(`20 orders go pending → processing → on hold → processing while n8n runs, each change delivered and run one at a time: each of the 60 changes runs once, the return to processing too (this cell's event shape: ${PROFILE})`, async () => {
		let wf: Awaited<ReturnType<typeof catchUpWorkflow>> | undefined;
		try {
			expect((await env.sandbox.admin('PUT', '/compat', { order_transitions: 'any' })).status).toBe(
				200,
			);
			wf = await catchUpWorkflow({}, { events: ['order.updated'] });
			await baselineOf(wf);
			const orders = await newOrders(20);
			const from = env.sandbox.events.length;
			for (const [round, status] of FLIP.entries()) {
				await setStatus(orders, status);
				// One change at a time: each delivered and its run ended before the orders change again.
				await env.sandbox.idle();
				await ended(wf.id, orders.length * (round + 1));
			}
			const updates = env.sandbox.events.slice(from).filter((e) => e.type === 'order.updated');
			const executions = await settled(wf.id, 60);
			const words = wordsOf(executions, orders);
			const returned = [...words.values()].filter((w) => w.join() === FLIP.join()).length;
			say(
				`an order that returns to a status (${PROFILE} events): 20 orders, 60 changes delivered one at a time; orders whose three changes ran once each, in order: ${returned}; executions ${executions.length}`,
			);
			expect(updates).toHaveLength(60);
			// The contract's events say the status before; the spec-literal service's are the order as listed.
			expect(
				updates.filter((e) => typeof (e.data as any).previous_status === 'string'),
			).toHaveLength(SPEC_LITERAL ? 0 : 60);
			expect([...words.values()]).toEqual(orders.map(() => FLIP));
			expect(executions.filter((e) => e.status !== 'success')).toEqual([]);
		} finally {
			await env.sandbox.admin('PUT', '/profile', { profile: PROFILE });
			if (wf) await env.client.deactivateWorkflow(wf.id);
		}
	});
});

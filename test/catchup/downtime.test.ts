/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's internal REST API answers untyped JSON; the measured counts are printed */
// The catch-up after downtime (a baseline, a restart with nothing missed, downtime longer than the service retries, a
// crash, a service that hangs while n8n starts) and refused deliveries, in one real n8n: see ./world.
import { createHmac, randomUUID } from 'crypto';
import { eventually, createWorkflow } from '../e2e/environment';
import { executionsOf } from '../reliability/n8n-db';
import { SPEC_LITERAL } from '../helpers/profile';
import {
	TRIGGER,
	KINDS,
	env,
	say,
	changeOf,
	sandboxChanges,
	runsOf,
	settled,
	catchUpWorkflow,
	checkouts,
	changeStatuses,
	unchangedOrders,
	listRequests,
	logText,
	logLines,
	answeredByStartup,
	unreadableChanges,
	contractCellsOnly,
} from './world';

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

describe('refused deliveries are visible', () => {
	contractCellsOnly(
		'a wrong Webhook Secret: the first refused delivery is one failed execution that says why, and a warning naming the workflow; 100 forgeries add none',
		async () => {
			const wf = await catchUpWorkflow({ missedEventsCheckMinutes: 0 });
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
			const warnings = await logLines(before, 'refused a delivery');
			expect(warnings.length).toBeGreaterThanOrEqual(1);
			expect(warnings[0]).toContain(`workflow "${wf.name}"`);
			expect(logText()).not.toContain(other);
			expect(logText()).not.toContain(configured);

			// A flood of forgeries, 20 at a time: still the one failed execution, and at most one more warning a minute.
			// 100 of them: test/trigger/catchUp.test.ts holds the bounds over 10,000 in a minute, and n8n 1.123.81 builds an
			// expression isolate for every webhook request (its credentials' resolution), about 0.2 CPU-seconds each here.
			const body = JSON.stringify({
				id: 'evt_forged',
				type: 'order.created',
				created_at: new Date().toISOString(),
				data: {},
			});
			const forged = `sha256=${createHmac('sha256', 'whsec_forger').update(body).digest('hex')}`;
			let refused = 0;
			for (let i = 0; i < 100; i += 20) {
				const answers = await Promise.all(
					Array.from({ length: 20 }, () =>
						fetch(wf.url, {
							method: 'POST',
							headers: { 'content-type': 'application/json', 'x-service-signature': forged },
							body,
						}),
					),
				);
				refused += answers.filter((a) => a.status === 401).length;
			}
			await new Promise((resolve) => setTimeout(resolve, 3_000));
			const after = await executionsOf(env.userFolder, wf.id, TRIGGER);
			const warningsAfter = logText()
				.slice(before)
				.split('\n')
				.filter((l) => l.includes('refused a delivery'));
			say(
				`wrong secret: 1 refused delivery, then ${refused} forgeries answered 401: failed executions ${after.length}, warnings in n8n's log ${warningsAfter.length}`,
			);
			expect(refused).toBe(100);
			expect(after).toHaveLength(1);
			expect(warningsAfter.length).toBeLessThanOrEqual(3);
			await env.sandbox.admin('POST', '/webhook/rotate', { secret: configured });
		},
	);
});

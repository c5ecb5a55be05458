/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code, not node code (the last: n8n's SQLite written with the runtime's node:sqlite, as bench/dedupe.js does): n8n's internal REST API answers untyped JSON; the measured counts are printed */
// The Storefront Trigger's Catch Up After Downtime and its refused-delivery reports in a real n8n process (the matrix
// runs this suite in one cell per n8n line, the copied install, and in the spec-literal cell), against the sandbox's
// real, signed, retried deliveries of real changes (checkouts, status changes, payments): a first activation is a baseline; a restart with
// nothing missed costs one request per list and runs nothing again; n8n stopped while 200 orders are created and 50
// change status, then started: each of the 250 runs once, and the service's late retries run nothing more; SIGKILL
// while deliveries flow, then a start: nothing lost (not even what n8n's start-up answer acknowledged), nothing twice;
// a wrong Webhook Secret: one failed execution that says why, a warning in n8n's log, and a flood of forgeries adds
// no more. While n8n keeps running, a public URL down: the changes whose deliveries never arrived run at the next
// reading. What n8n remembers and what one change is: a claim kept however many newer ones follow (Remember Events
// For), a payment sent as the payment object, and (spec-literal) status changes of older orders found by comparing.
// An order's status changes as the workflow's last word: test/lastword. A change is counted by what it is (kind,
// order or product, new status), not by event id: a delivery and a catch-up report one change with different ids.
import { spawnSync } from 'child_process';
import { createHash, createHmac, randomUUID } from 'crypto';
import * as path from 'path';

import {
	CELL,
	CREDENTIAL_NAME,
	eventually,
	registerWebhook,
	runtime,
	createWorkflow,
	TYPES,
} from '../e2e/environment';
import { executionsOf, type ExecutionRecord } from '../reliability/n8n-db';
import { PROFILE, SPEC_LITERAL } from '../helpers/profile';
import {
	TRIGGER,
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
	logLines,
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
	resend,
	deliveriesOf,
	useEnvironment,
} from './kit';

jest.setTimeout(600_000);

useEnvironment('catchup', 'Catch-up summary');

/** n8n's deduplication value of a claim (DeduplicationHelper.createValueHash: MD5, base64). */
const claimHash = (value: string) => createHash('md5').update(value).digest('base64');

/**
 * The trigger node's row of n8n's processed_data table (primary key workflowId + context `n:<node id>`, value
 * {"mode":"entries","data":[hashes, oldest first]}), read and optionally appended to straight in n8n's SQLite
 * database, as bench/dedupe.js writes it: node:sqlite of the runtime's Node 24, in one transaction. Returns the
 * row's values after the call.
 */
function processedRow(workflowId: string, nodeId: string, append: string[] = []): string[] {
	const script = `
const { DatabaseSync } = require('node:sqlite');
const { file, workflowId, context, append } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const db = new DatabaseSync(file, { timeout: 30000 });
try {
	db.exec('BEGIN IMMEDIATE');
	const where = '"workflowId" = ? AND "context" = ?';
	const row = db.prepare('SELECT "value" FROM processed_data WHERE ' + where).get(workflowId, context);
	if (!row) throw new Error('no processed_data row for workflow ' + workflowId + ', context ' + context);
	const value = JSON.parse(row.value);
	if (value.mode !== 'entries' || !Array.isArray(value.data)) throw new Error('not an entries row: ' + String(row.value).slice(0, 200));
	if (append.length) {
		value.data.push(...append);
		db.prepare('UPDATE processed_data SET "value" = ?, "updatedAt" = ? WHERE ' + where).run(JSON.stringify(value), new Date().toISOString().replace('T', ' ').replace('Z', ''), workflowId, context);
	}
	db.exec('COMMIT');
	process.stdout.write(JSON.stringify(value.data));
} finally {
	db.close();
}`;
	const file = path.join(env.userFolder, '.n8n', 'database.sqlite');
	const r = spawnSync(
		runtime.assertInstalled(CELL.line).nodeBin,
		['--disable-warning=ExperimentalWarning', '-e', script],
		{
			input: JSON.stringify({ file, workflowId, context: `n:${nodeId}`, append }),
			encoding: 'utf8',
			maxBuffer: 64 * 1024 * 1024,
		},
	);
	if (r.status !== 0)
		throw new Error(
			`node:sqlite on ${file} failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr || '').slice(-2000)}`,
		);
	return JSON.parse(r.stdout) as string[];
}

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

describe('while n8n keeps running (Check for Missed Events Every)', () => {
	test('the public URL down for a while: 40 orders whose deliveries never arrived each run once at the next reading, without a restart; none twice among them and the orders delivered around them', async () => {
		// Every minute (the default is 5 minutes: the same reading, sooner); changes younger than 30 s wait for their
		// delivery.
		const wf = await catchUpWorkflow({ missedEventsCheckMinutes: 1 });
		await baselineOf(wf);
		const from = env.sandbox.events.length;
		const executionsBefore = (await executionsOf(env.userFolder, wf.id)).length;
		await checkouts(5);
		await env.sandbox.idle();
		// The tunnel or proxy in front of n8n goes down: every attempt fails until the service gives up.
		await registerWebhook(env, 'http://127.0.0.1:9/webhook/unreachable');
		const lostFrom = env.sandbox.events.length;
		await checkouts(40);
		await env.sandbox.idle();
		const lost = env.sandbox.events
			.slice(lostFrom)
			.filter((e) => e.type === 'order.created')
			.map((e) => changeOf(e.type, e.data));
		await registerWebhook(env, wf.url);
		await checkouts(5);
		const restoredAt = Date.now();
		const expected = sandboxChanges(from).filter((c) => c.startsWith('order.created'));
		// The first reading once they outgrew the grace: within the interval (60 s) and the grace (30 s), the time a reading
		// of a list read whole takes (spec-literal: a page per 100 orders, 6 s apart past the first 2), and 30 s for the runs.
		const pagedS = SPEC_LITERAL
			? Math.max(0, Math.ceil(env.sandbox.state.orders.size / 100) - 2) * 6
			: 0;
		const executions = await eventually(
			async () => {
				const all = (await settled(wf.id, executionsBefore + 11)).slice(executionsBefore);
				return expected.every((c) => runsOf(all).runs.has(c)) ? all : undefined;
			},
			'every order to run',
			(60 + 30 + pagedS + 30) * 1000,
		).catch((error: Error) => {
			// What the trigger said it read: the readings of this workflow in n8n's log.
			const readings = logText()
				.split('\n')
				.filter((line) => line.includes(`(id ${wf.id})`));
			throw new Error(`${error.message}\n${readings.slice(-20).join('\n')}`);
		});
		const { runs, sources, twice } = runsOf(executions);
		const caughtUp = executions
			.flatMap((e) => e.items)
			.filter(({ json }) => json.source === 'catchUp')
			.map(({ json }) => changeOf(String(json.type), json.data));
		say(
			`public URL down while n8n runs: ${lost.length} orders whose deliveries never arrived; run by the check for missed events ${sources.catchUp} (all within ${((Date.now() - restoredAt) / 1000).toFixed(0)} s of the URL's return), by deliveries ${sources.webhook}; twice ${twice.length}`,
		);
		expect(lost).toHaveLength(40);
		expect(expected).toHaveLength(50);
		expect(expected.filter((c) => !runs.has(c))).toEqual([]);
		expect(twice).toEqual([]);
		expect([...caughtUp].sort()).toEqual([...lost].sort());
	});

	test("forged deliveries to a trigger whose On Error continues (regular or error output): the next node runs 0 times; the refusal is in n8n's log", async () => {
		for (const onError of ['continueRegularOutput', 'continueErrorOutput']) {
			const wf = await catchUpWorkflow({}, { onError });
			const before = logText().length;
			const body = JSON.stringify({
				id: `evt_forged_${onError}`,
				type: 'order.created',
				created_at: new Date().toISOString(),
				data: { order_id: 'ord_forged' },
			});
			const forged = `sha256=${createHmac('sha256', 'whsec_forger').update(body).digest('hex')}`;
			for (let i = 0; i < 5; i++) {
				const answer = await fetch(wf.url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'x-service-signature': forged },
					body,
				});
				expect(answer.status).toBe(401);
			}
			const executions = await settled(wf.id, 1);
			const received = [];
			for (const e of executions) {
				const execution = await env.client.getExecution(e.id);
				received.push(...(execution.data?.resultData?.runData?.Received ?? []));
			}
			say(
				`forged deliveries with On Error ${onError}: 5 answered 401; executions ${executions.length}, runs of the next node ${received.length}`,
			);
			expect(received).toEqual([]);
			await logLines(before, `refused a delivery to workflow "${wf.name}"`);
			expect(logText().slice(before)).toContain(`refused a delivery to workflow "${wf.name}"`);
		}
	});
});

describe('the user edits the workflow', () => {
	test("Events widened on an active trigger and published again (Product Created, then also Order Created; Inventory Low, then also Order Created): none of the shop's 20 newer orders runs; an order made afterwards runs once", async () => {
		for (const first of [['product.created'], ['inventory.low']]) {
			const wf = await catchUpWorkflow({}, { events: first });
			const old = env.sandbox.events.length;
			await checkouts(20);
			await env.sandbox.idle();
			const olderOrders = sandboxChanges(old).filter((c) => c.startsWith('order.created'));
			const logFrom = logText().length;
			const nodes = wf.workflow.nodes.map((node: any) =>
				node.name === TRIGGER
					? { ...node, parameters: { ...node.parameters, events: [...first, 'order.created'] } }
					: node,
			);
			await env.client.updateWorkflow(wf.id, { nodes, connections: wf.workflow.connections });
			await eventually(
				() =>
					new RegExp(
						`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\) \\(order\\.created`,
					).test(logText().slice(logFrom))
						? true
						: undefined,
				"the new kind's baseline",
			);
			const from = env.sandbox.events.length;
			await checkouts(1);
			const [fresh] = sandboxChanges(from).filter((c) => c.startsWith('order.created'));
			const executions = await eventually(
				async () => {
					const all = await executionsOf(env.userFolder, wf.id);
					return runsOf(all).runs.has(fresh) ? all : undefined;
				},
				'the new order to run',
				60_000,
			);
			const { runs } = runsOf(await settled(wf.id, executions.length));
			const ranOld = olderOrders.filter((c) => runs.has(c));
			say(
				`Events ${first.join(', ')} widened with order.created and published: of the shop's ${olderOrders.length} newer orders ${ranOld.length} ran; the order made afterwards ran ${runs.get(fresh)} time(s)`,
			);
			expect(olderOrders).toHaveLength(20);
			expect(ranOld).toEqual([]);
			expect(runs.get(fresh)).toBe(1);
		}
	});
});

describe("n8n's nodes beside the trigger", () => {
	// Ten orders a scope: the lock's harm showed on most of them (25 of 30 updates got through), and each change waits
	// for the run before it to end.
	test('Remove Duplicates after the trigger (Remove Items Processed in Previous Executions, key the order id; scope Workflow, then Node), deliveries one at a time: the updates of the 10 orders it passed are all dropped by it; 0 failed executions', async () => {
		for (const scope of ['workflow', 'node']) {
			const wf = await createWorkflow(env, {
				name: `remove-duplicates-${scope}`,
				nodes: [
					{
						id: `rd-trigger-${scope}`,
						name: TRIGGER,
						type: TYPES.trigger,
						typeVersion: 2,
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
						parameters: {
							operation: 'removeItemsSeenInPreviousExecutions',
							dedupeValue: '={{ $json.data.order_id }}',
							options: { scope },
						},
					},
					{
						id: `rd-received-${scope}`,
						name: 'Received',
						type: 'n8n-nodes-base.noOp',
						typeVersion: 1,
						position: [440, 0],
						parameters: {},
					},
				],
				connections: {
					[TRIGGER]: { main: [[{ node: 'Remove Duplicates', type: 'main', index: 0 }]] },
					'Remove Duplicates': { main: [[{ node: 'Received', type: 'main', index: 0 }]] },
				},
				settings: { executionOrder: 'v1' },
			});
			await registerWebhook(env, wf.url);
			await baselineOf(wf);
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
					return all.length >= runs &&
						all.every((e) => !['new', 'running', 'waiting'].includes(e.status))
						? true
						: undefined;
				}, `run ${runs} to end`);
			};
			for (let i = 0; i < 10; i++) await oneAtATime(async () => await checkouts(1));
			const orders = env.sandbox.events
				.slice(from)
				.filter((e) => e.type === 'order.created')
				.map((e) => String((e.data as any).order_id));
			for (const order of orders) await oneAtATime(async () => await changeStatuses([order]));
			const executions = await settled(wf.id, 20);
			const received = (await executionsOf(env.userFolder, wf.id, 'Received')).flatMap((e) =>
				e.items.map(({ json }) => changeOf(String(json.type), json.data)),
			);
			const failed = executions.filter((e) => e.status !== 'success');
			say(
				`Remove Duplicates, scope ${scope}, after the trigger: ${orders.length} orders then their ${orders.length} status changes, one at a time; passed by it ${received.length} (updates ${received.filter((c) => c.startsWith('order.updated')).length}); failed executions ${failed.length}`,
			);
			expect(orders).toHaveLength(10);
			expect(received.sort()).toEqual(
				orders.map((order) => changeOf('order.created', { order_id: order })).sort(),
			);
			expect(failed).toEqual([]);
			// The trigger saw the node's scope, and said once that it leaves that row to it.
			const leaves = 'node "Remove Duplicates" (Remove Duplicates, Scope: Workflow)';
			if (scope === 'workflow') await logLines(logFrom, leaves);
			expect(logText().slice(logFrom).split(leaves).length - 1).toBe(scope === 'workflow' ? 1 : 0);
		}
	});
});

describe('what n8n remembers, and what one change is', () => {
	contractCellsOnly(
		"a claim outlives 1,500 newer ones in n8n's database: 5 orders run once; 3,000 other claims appended to the trigger's row, n8n restarted (its memory gone): the catch-up at the start finds the 5 claimed and runs nothing, their original deliveries resent byte for byte are answered at the door; the row keeps them all",
		async () => {
			// Remember Events For (72 hours by default) keeps a claim for that time, however many claims follow it. Before
			// it, n8n's database kept the trigger's last 1,500 values (maxEntries 1,500): the next claim after these 3,000
			// trimmed the row to its last 1,500, the 5 orders' claims went with it, and their redeliveries ran again.
			const wf = await catchUpWorkflow({}, { events: ['order.created'] });
			const nodeId = String(wf.workflow.nodes.find((n: any) => n.type === TYPES.trigger).id);
			await baselineOf(wf);
			const from = env.sandbox.events.length;
			await checkouts(5);
			await env.sandbox.idle();
			const created = env.sandbox.events.slice(from).filter((e) => e.type === 'order.created');
			const expected = created.map((e) => changeOf(e.type, e.data));
			const first = await ended(wf.id, 5);
			expect(created).toHaveLength(5);
			expect(expected.filter((c) => runsOf(first).runs.get(c) !== 1)).toEqual([]);
			const originals = deliveriesOf(created);
			expect(originals.map((d) => d?.status)).toEqual(Array(5).fill('delivered'));
			// Each order's claim, as n8n's row holds it: the MD5 of "event:<change key>".
			const claims = created.map((e) =>
				claimHash(`event:order.created/${String((e.data as any).order_id)}`),
			);
			expect(claims.filter((c) => !processedRow(wf.id, nodeId).includes(c))).toEqual([]);

			// 3,000 claims of other orders, newer than these 5, written straight into n8n's database while it is stopped; the
			// restart also empties n8n's memory of the event ids it accepted, so only the database can tell a redelivery.
			const prefill = Array.from({ length: 3_000 }, (_, n) =>
				claimHash(`event:order.created/ord_prefill_${n}`),
			);
			const logFrom = logText().length;
			let rowBefore = 0;
			await env.restart(60_000, {}, async () => {
				rowBefore = processedRow(wf.id, nodeId, prefill).length;
			});
			// The start's catch-up reads from five minutes before the newest change that ran: these 5 orders, in one run. Its
			// run finds each claimed in n8n's database and passes nothing on; the late retries are then answered at the door
			// (this n8n knows the changes ran), without an execution.
			const [caughtUp] = await logLines(
				logFrom,
				`catch-up for workflow "${wf.name}" (id ${wf.id}) read`,
			);
			const ranBefore = await settled(wf.id, first.length + 1);
			const answers = [];
			for (const delivery of originals) answers.push(await resend(delivery, wf.url));
			const all = await settled(wf.id, ranBefore.length);
			const { runs, twice } = runsOf(all);
			const since = all.slice(first.length);
			const row = processedRow(wf.id, nodeId);
			say(
				`a claim kept past 1,500 newer ones: 5 orders ran once; row ${rowBefore} values with 3,000 appended; after a restart the 5 original deliveries resent (answers ${answers.map((a) => a.status).join(', ')}): executions since ${since.length}, items passed on ${since.reduce((n, e) => n + e.items.length, 0)}; row now ${row.length} values, the 5 claims in it ${claims.filter((c) => row.includes(c)).length}`,
			);
			// The catch-up brought all 5 (its memory of what ran here is new), and their claims in n8n's database stopped them.
			expect(caughtUp).toContain('5 changes this n8n has not run, one run started for them');
			expect(since).toHaveLength(1);
			expect(since.filter((e) => e.status !== 'success' || !e.passedNothing)).toEqual([]);
			expect(answers.map((a) => `${a.status} ${a.text}`)).toEqual(
				Array(5).fill('200 {"received":true,"skipped":"duplicate_change"}'),
			);
			expect(expected.filter((c) => runs.get(c) !== 1)).toEqual([]);
			expect(twice).toEqual([]);
			expect(rowBefore).toBeGreaterThanOrEqual(3_000 + claims.length);
			expect(row.length).toBeGreaterThan(1_500);
			expect(row.length).toBeGreaterThanOrEqual(rowBefore);
			expect(claims.filter((c) => !row.includes(c))).toEqual([]);
			expect(prefill.filter((c) => !row.includes(c))).toEqual([]);
		},
	);

	contractCellsOnly(
		'a payment sent as the payment object ({id: "pay_…", order_id}: compat event_data "object"): 5 orders paid while the public URL is down run once each at the next reading (Check for Missed Events Every 1); the service\'s late retries of those deliveries, byte for byte, are answered at the door and start nothing',
		async () => {
			let wf: Awaited<ReturnType<typeof catchUpWorkflow>> | undefined;
			try {
				expect((await env.sandbox.admin('PUT', '/compat', { event_data: 'object' })).status).toBe(
					200,
				);
				wf = await catchUpWorkflow(
					{ missedEventsCheckMinutes: 1 },
					{ events: ['payment.completed'] },
				);
				const workflowId = wf.id;
				await baselineOf(wf);
				const made = env.sandbox.events.length;
				await checkouts(5);
				await env.sandbox.idle();
				const orders = env.sandbox.events
					.slice(made)
					.filter((e) => e.type === 'order.created')
					.map((e) => String((e.data as any).id));
				// The tunnel or proxy in front of n8n goes down while the orders are paid; the URL in force when an event happens
				// takes all its attempts, so the URL is back at once and these deliveries still fail every attempt.
				await registerWebhook(env, UNREACHABLE);
				const from = env.sandbox.events.length;
				for (const id of orders) {
					const res = await env.sandbox.admin('POST', '/simulate/payment', { order_id: id });
					if (res.status !== 200)
						throw new Error(`payment of ${id}: ${res.status} ${JSON.stringify(res.body)}`);
				}
				await registerWebhook(env, wf.url);
				const back = Date.now();
				const payments = env.sandbox.events
					.slice(from)
					.filter((e) => e.type === 'payment.completed');
				const expected = payments.map((e) => changeOf(e.type, e.data));
				const caughtUp = await eventually(
					async () => {
						const all = await executionsOf(env.userFolder, workflowId);
						return expected.every((c) => runsOf(all).runs.has(c)) ? all : undefined;
					},
					'the payments to run at a reading',
					// The next reading once they outgrew the grace: within the interval (60 s) and the grace (30 s), and 30 s for
					// the runs.
					120_000,
				);
				const ranAfterS = (Date.now() - back) / 1000;
				await env.sandbox.idle();
				const lost = deliveriesOf(payments);
				const answers = [];
				for (const delivery of lost) answers.push(await resend(delivery, wf.url));
				const all = await settled(wf.id, caughtUp.length);
				const { runs, sources, twice } = runsOf(all);
				const late = all.slice(caughtUp.length);
				say(
					`a payment sent as the payment object: 5 paid while the URL was down, run by the check for missed events ${sources.catchUp} (all within ${ranAfterS.toFixed(0)} s of the URL's return), by deliveries ${sources.webhook}; the 5 late retries (answers ${answers.map((a) => a.status).join(', ')}) passed on ${late.reduce((n, e) => n + e.items.length, 0)}; twice ${twice.length}`,
				);
				expect(orders).toHaveLength(5);
				expect(payments).toHaveLength(5);
				// The payment's own id under `id`, its order's under order_id.
				expect(
					payments.filter(
						(e) =>
							!String((e.data as any).id).startsWith('pay_') ||
							!orders.includes(String((e.data as any).order_id)),
					),
				).toEqual([]);
				expect(lost.map((d) => d?.status)).toEqual(Array(5).fill('failed'));
				// This n8n never accepted these event ids, but knows the changes ran (its check's run): answered at the door.
				expect(answers.map((a) => `${a.status} ${a.text}`)).toEqual(
					Array(5).fill('200 {"received":true,"skipped":"duplicate_change"}'),
				);
				expect(expected.filter((c) => runs.get(c) !== 1)).toEqual([]);
				expect([...runs.keys()].sort()).toEqual([...expected].sort());
				expect(twice).toEqual([]);
				expect(sources).toEqual({ webhook: 0, catchUp: 5 });
				expect(late).toEqual([]);
			} finally {
				await env.sandbox.admin('PUT', '/profile', { profile: PROFILE });
				// Its readings every minute would go on adding requests and runs to whatever follows.
				if (wf) await env.client.deactivateWorkflow(wf.id);
			}
		},
	);
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

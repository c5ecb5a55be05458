/* eslint-disable @typescript-eslint/no-explicit-any -- test code, not node code: n8n's internal REST API answers untyped JSON */
// What the trigger does while n8n keeps running (Check for Missed Events Every, the spec's event shapes), beside the
// user's edits and n8n's own nodes, and what n8n remembers, in one real n8n: see ./world.
import { createHmac, randomUUID } from 'crypto';
import { api } from '../helpers/sandbox';
import {
	CREDENTIAL_NAME,
	eventually,
	registerWebhook,
	createWorkflow,
	TYPES,
} from '../e2e/environment';
import { executionsOf, type ExecutionRecord } from '../reliability/n8n-db';
import { PROFILE, SPEC_LITERAL } from '../helpers/profile';
import {
	TRIGGER,
	env,
	say,
	changeOf,
	sandboxChanges,
	runsOf,
	settled,
	catchUpWorkflow,
	checkouts,
	changeStatuses,
	logText,
	logLines,
	contractCellsOnly,
	specLiteralCellOnly,
	transitionOf,
	baselineOf,
	UNREACHABLE,
	resend,
	deliveriesOf,
	claimHash,
	processedRow,
} from './world';

// First in the file: on a service without updated_at every reading reads the whole order list, a page per 100 orders,
// and a scheduled one sends 2 requests at once and each further one 6 s after the last (docs/trigger.md, Check for Missed
// Events). While the shop is small (the seed's 150 orders) a reading takes a second; after the suite's 400 more it takes
// 24 s, and a change found by comparing needs two readings.
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

describe('whatever the service sends', () => {
	test("30 status changes delivered as the order itself (no previous_status: the spec's plainest reading) run once each; n8n restarted: none runs again", async () => {
		// The spec-literal profile sends events so; a contract-profile cell is switched to it for this test.
		await env.sandbox.admin('PUT', '/compat', { event_data: 'record' });
		try {
			const wf = await catchUpWorkflow();
			await eventually(
				() =>
					new RegExp(`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\)`).test(
						logText(),
					)
						? true
						: undefined,
				'the baseline in the log',
			);
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
		await eventually(
			() =>
				new RegExp(`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\)`).test(logText())
					? true
					: undefined,
			'the baseline in the log',
		);
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
			await eventually(
				() =>
					new RegExp(`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\)`).test(
						logText(),
					)
						? true
						: undefined,
				'the baseline in the log',
			);
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
	/** Waits until the workflow has at least `count` executions and none is unfinished (no settling time). */
	const ended = async (workflowId: string, count: number) =>
		await eventually(async () => {
			const all = await executionsOf(env.userFolder, workflowId);
			return all.length >= count &&
				all.every((e) => !['new', 'running', 'waiting'].includes(e.status))
				? all
				: undefined;
		}, `${count} executions of ${workflowId} to end`);

	contractCellsOnly(
		"a claim outlives 1,500 newer ones in n8n's database: 5 orders run once; 3,000 other claims appended to the trigger's row, n8n restarted (its memory of event ids gone), the 5 original deliveries resent byte for byte: the catch-up at the start and the 5 run nothing; the row keeps them all",
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
			// The start's catch-up reads from five minutes before the newest change that ran: these 5 orders, in one run.
			await eventually(
				() =>
					logText()
						.slice(logFrom)
						.includes(`catch-up for workflow "${wf.name}" (id ${wf.id}) read the lists`)
						? true
						: undefined,
				'the catch-up at the start',
			);
			const answers = [];
			for (const delivery of originals) answers.push(await resend(delivery, wf.url));
			const all = await settled(wf.id, first.length + 5);
			const { runs, twice } = runsOf(all);
			const since = all.slice(first.length);
			const row = processedRow(wf.id, nodeId);
			say(
				`a claim kept past 1,500 newer ones: 5 orders ran once; row ${rowBefore} values with 3,000 appended; after a restart the 5 original deliveries resent (answers ${answers.map((a) => a.status).join(', ')}): executions since ${since.length}, items passed on ${since.reduce((n, e) => n + e.items.length, 0)}; row now ${row.length} values, the 5 claims in it ${claims.filter((c) => row.includes(c)).length}`,
			);
			// Answered by the run's claim in n8n's database, not by this process's memory of event ids (it is new).
			expect(answers.filter((a) => a.status !== 200 || a.text.includes('duplicate_event'))).toEqual(
				[],
			);
			expect(expected.filter((c) => runs.get(c) !== 1)).toEqual([]);
			expect(twice).toEqual([]);
			expect(since.length).toBeGreaterThanOrEqual(5);
			expect(since.filter((e) => e.status !== 'success' || !e.passedNothing)).toEqual([]);
			expect(rowBefore).toBeGreaterThanOrEqual(3_000 + claims.length);
			expect(row.length).toBeGreaterThan(1_500);
			expect(row.length).toBeGreaterThanOrEqual(rowBefore);
			expect(claims.filter((c) => !row.includes(c))).toEqual([]);
			expect(prefill.filter((c) => !row.includes(c))).toEqual([]);
		},
	);

	contractCellsOnly(
		'an order that returns to a status (compat order_transitions "any"): 5 orders go pending → processing → shipped → processing, each change delivered with previous_status: each of the 15 changes runs once, the return to processing too; none twice',
		async () => {
			try {
				expect(
					(await env.sandbox.admin('PUT', '/compat', { order_transitions: 'any' })).status,
				).toBe(200);
				const wf = await catchUpWorkflow({}, { events: ['order.updated'] });
				await baselineOf(wf);
				const made = env.sandbox.events.length;
				await checkouts(5);
				const orders = env.sandbox.events
					.slice(made)
					.filter((e) => e.type === 'order.created')
					.map((e) => String((e.data as any).order_id));
				const from = env.sandbox.events.length;
				let changes = 0;
				for (const status of ['processing', 'shipped', 'processing']) {
					for (const id of orders) {
						const res = await api(env.sandbox, 'PUT', `/orders/${id}/status`, { status });
						if (res.status !== 200)
							throw new Error(
								`status change of ${id} to ${status}: ${res.status} ${JSON.stringify(res.json)}`,
							);
					}
					// One change at a time: each delivered and its run ended before the orders change again.
					changes += orders.length;
					await env.sandbox.idle();
					await ended(wf.id, changes);
				}
				const updates = env.sandbox.events.slice(from).filter((e) => e.type === 'order.updated');
				const expected = updates.map((e) => transitionOf(e.type, e.data));
				const executions = await settled(wf.id, 15);
				const { runs, sources, twice } = runsOf(executions, transitionOf);
				const returns = expected.filter((c) => c.endsWith('→ processing from shipped'));
				say(
					`an order that returns to a status: 5 orders, 15 changes delivered with previous_status; ran once ${[...runs.values()].filter((n) => n === 1).length}, twice ${twice.length}; returns to processing run ${returns.filter((c) => runs.get(c) === 1).length} of ${returns.length}`,
				);
				expect(orders).toHaveLength(5);
				expect(updates).toHaveLength(15);
				expect(updates.filter((e) => typeof (e.data as any).previous_status !== 'string')).toEqual(
					[],
				);
				expect(new Set(expected).size).toBe(15);
				expect(returns).toHaveLength(5);
				expect(expected.filter((c) => runs.get(c) !== 1)).toEqual([]);
				expect([...runs.keys()].sort()).toEqual([...expected].sort());
				expect(twice).toEqual([]);
				expect(sources).toEqual({ webhook: 15, catchUp: 0 });
			} finally {
				await env.sandbox.admin('PUT', '/profile', { profile: PROFILE });
			}
		},
	);

	contractCellsOnly(
		'a payment sent as the payment object ({id: "pay_…", order_id}: compat event_data "object"): 5 orders paid while the public URL is down run once each at the next reading (Check for Missed Events Every 1); the service\'s late retries of those deliveries, byte for byte, run nothing',
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
				const all = await settled(wf.id, caughtUp.length + 5);
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
				// Answered by the run's claim in n8n's database: this n8n never accepted these event ids.
				expect(
					answers.filter((a) => a.status !== 200 || a.text.includes('duplicate_event')),
				).toEqual([]);
				expect(expected.filter((c) => runs.get(c) !== 1)).toEqual([]);
				expect([...runs.keys()].sort()).toEqual([...expected].sort());
				expect(twice).toEqual([]);
				expect(sources).toEqual({ webhook: 0, catchUp: 5 });
				expect(late.filter((e) => e.passedNothing).length).toBeGreaterThanOrEqual(5);
			} finally {
				await env.sandbox.admin('PUT', '/profile', { profile: PROFILE });
				// Its readings every minute would go on adding requests and runs to whatever follows.
				if (wf) await env.client.deactivateWorkflow(wf.id);
			}
		},
	);
});

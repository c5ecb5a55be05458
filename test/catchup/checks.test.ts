/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code, not node code (the last: n8n's SQLite written with the runtime's node:sqlite, as bench/dedupe.js does): n8n's internal REST API answers untyped JSON; the measured counts are printed */
// The Storefront Trigger while n8n keeps running, and what n8n remembers, in a real n8n process of its own (the
// matrix runs this file beside ./catchup.test.ts, in its own jest worker, in the same cells): refused deliveries are
// visible (a wrong Webhook Secret: one failed execution that says why, a warning naming the workflow; forgeries add no
// more); a public URL down: the changes whose deliveries never arrived run at the next check for missed events;
// forged deliveries to a trigger whose On Error continues; the Events widened on an active trigger; n8n's Remove
// Duplicates beside the trigger; a claim kept however many newer ones follow (Remember Events For), and a payment
// sent as the payment object. A change is counted by what it is (kind, order or product, new status), not by event id.
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
import { executionsOf } from '../reliability/n8n-db';
import { PROFILE, SPEC_LITERAL } from '../helpers/profile';
import {
	TRIGGER,
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
	logText,
	logLines,
	contractCellsOnly,
	baselineOf,
	UNREACHABLE,
	resend,
	deliveriesOf,
	useEnvironment,
} from './kit';

jest.setTimeout(600_000);

useEnvironment('catchup-checks', 'Checks summary');

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

/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-imports -- test code, not node code: the sandbox's event log answers untyped JSON; timers/promises waits out the service's retry window */
// The workflow's last word on an order is its status, in a real n8n process (the matrix runs this suite in the 2.x
// cells, against the sandbox's contract and its spec-literal profile: events with previous_status, and the order as
// listed), beside the catch-up suite in a jest process and n8n of its own: an order that returns to a status runs
// each change; after a restart the late retries of changes the catch-up covered are answered at the door, those it
// superseded run marked (or left out), and none costs a request; 3,000 orders' late retries start no execution.
// Queue mode: test/queue.
import { setTimeout as sleep } from 'timers/promises';

import { api } from '../helpers/sandbox';
import { CELL, registerWebhook } from '../e2e/environment';
import { type ExecutionRecord } from '../reliability/n8n-db';
import { PROFILE, SPEC_LITERAL } from '../helpers/profile';
import {
	baselineOf,
	catchUpWorkflow,
	changeOf,
	deliveriesOf,
	ended,
	env,
	logLines,
	logText,
	resend,
	runsOf,
	say,
	settled,
	UNREACHABLE,
	useEnvironment,
} from '../catchup/kit';

jest.setTimeout(600_000);

useEnvironment('lastword', 'Last-word summary');

describe('the workflow\'s last word on an order: its status (compat order_transitions "any")', () => {
	const FLIP = ['processing', 'on-hold', 'processing'];
	async function setStatus(ids: string[], status: string) {
		for (const id of ids) {
			const res = await api(env.sandbox, 'PUT', `/orders/${id}/status`, { status });
			if (res.status !== 200)
				throw new Error(
					`status change of ${id} to ${status}: ${res.status} ${JSON.stringify(res.json)}`,
				);
		}
	}
	/** `count` checkouts of one product kept in stock: the new orders' ids. */
	async function newOrders(count: number) {
		await env.sandbox.admin('POST', '/simulate/stock', {
			product_id: 'prod_00001',
			stock: 1_000_000,
		});
		const made = env.sandbox.events.length;
		await Promise.all(
			Array.from({ length: count }, async () => {
				const res = await env.sandbox.admin('POST', '/simulate/checkout', {
					items: [{ product_id: 'prod_00001', quantity: 1 }],
				});
				if (res.status !== 201)
					throw new Error(`checkout: ${res.status} ${JSON.stringify(res.body)}`);
			}),
		);
		return env.sandbox.events
			.slice(made)
			.filter((e) => e.type === 'order.created')
			.map((e) => String((e.data as any).order_id ?? (e.data as any).id));
	}
	/** Per order, the status changes the trigger passed on, in the order their executions were made. */
	function wordsOf(executions: ExecutionRecord[], orders: string[]) {
		const words = new Map(orders.map((id): [string, string[]] => [id, []]));
		const made = [...executions].sort(
			(a, b) => a.createdAt - b.createdAt || Number(a.id) - Number(b.id),
		);
		for (const { items } of made)
			for (const { json } of items) {
				if (json.type !== 'order.updated') continue;
				const data = json.data as any;
				const marked =
					json.superseded === true ? ` (superseded: ${String(json.current_status)})` : '';
				words.get(String(data.order_id ?? data.id))?.push(`${String(data.status)}${marked}`);
			}
		return words;
	}
	const orderReads = async (ids: string[]) =>
		((await env.sandbox.admin('GET', '/requests')).body as any[]).filter(
			(r) => r.method === 'GET' && ids.some((id) => r.path === `/v1/orders/${id}`),
		).length;

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

	/** The tests that restart n8n with many orders: once per event shape, in the 2.x cells (contract, spec-literal). */
	function line2Only(name: string, fn: () => Promise<void>) {
		if (CELL.line === '2') test(name, fn);
	}
	/** Every active workflow deactivated: each would catch up at the next start (3,000 orders in one run each). */
	async function deactivateAll() {
		const listed = await env.client.request('GET', '/workflows');
		const workflows = (Array.isArray(listed) ? listed : []) as Array<{
			id: string;
			active: boolean;
		}>;
		for (const { id, active } of workflows) if (active) await env.client.deactivateWorkflow(id);
	}
	const updatesOf = (from: number) =>
		env.sandbox.events.slice(from).filter((e) => e.type === 'order.updated');
	const answer = (a: { status: number; text: string }) => {
		const body = JSON.parse(a.text) as { skipped?: string };
		return `${a.status} ${body.skipped ?? 'ran'}`;
	};

	line2Only(
		`10 orders go processing → on hold → processing while n8n restarts (${PROFILE} events), then the service's late retries in their original order, right after the start and again 90 s later: each change runs at most once, each order's final status runs, each order's last item has its current status or says superseded; with Leave Out Superseded Changes no superseded item passes; no retry costs a request but one of a change nothing later superseded, which runs unmarked`,
		async () => {
			const workflows: Array<Awaited<ReturnType<typeof catchUpWorkflow>>> = [];
			try {
				await deactivateAll();
				expect(
					(await env.sandbox.admin('PUT', '/compat', { order_transitions: 'any' })).status,
				).toBe(200);
				// Catch-up at the start only: no check on a schedule runs the one late change before its retry.
				for (const leaveOutSuperseded of [false, true])
					workflows.push(
						await catchUpWorkflow(
							{ missedEventsCheckMinutes: 0, leaveOutSuperseded },
							{ events: ['order.updated'] },
						),
					);
				const [keep, leave] = workflows;
				for (const wf of workflows) await baselineOf(wf);
				const [late, ...flipping] = await newOrders(11);
				await env.sandbox.idle();
				const from = env.sandbox.events.length;
				const logFrom = logText().length;
				const { downMs } = await env.restart(60_000, {}, async () => {
					for (const status of FLIP) await setStatus(flipping, status);
					await env.sandbox.idle();
				});
				const retries = deliveriesOf(updatesOf(from));
				for (const wf of workflows) {
					await logLines(
						logFrom,
						`catch-up for workflow "${wf.name}" (id ${wf.id}) read the lists`,
					);
					await ended(wf.id, 1);
				}
				await env.sandbox.admin('DELETE', '/requests');
				const resendAll = async () => {
					const answers: Record<string, string[]> = { keep: [], leave: [] };
					for (const delivery of retries) {
						answers.keep.push(answer(await resend(delivery, keep.url)));
						answers.leave.push(answer(await resend(delivery, leave.url)));
					}
					return answers;
				};
				const first = await resendAll();
				const firstAt = Date.now();
				// One more change, while the public URL is down: its delivery never arrives, and nothing reads it.
				await registerWebhook(env, UNREACHABLE);
				const fromLate = env.sandbox.events.length;
				await setStatus([late], 'processing');
				await env.sandbox.idle();
				const [lost] = deliveriesOf(updatesOf(fromLate));
				await sleep(Math.max(0, firstAt + 90_000 - Date.now()));
				const second = await resendAll();
				const lateAnswers = [
					answer(await resend(lost, keep.url)),
					answer(await resend(lost, leave.url)),
				];
				const [kept, left] = [await settled(keep.id, 12), await settled(leave.id, 12)];
				const words = {
					keep: wordsOf(kept, [late, ...flipping]),
					leave: wordsOf(left, [late, ...flipping]),
				};
				const flipReads = await orderReads(flipping);
				const lateReads = await orderReads([late]);
				const lastWords = (w: Map<string, string[]>) =>
					flipping.map((id) => w.get(id)?.slice(-1)[0] ?? 'none');
				say(
					`the last word after a restart (${PROFILE} events): 10 orders flipped while n8n was down ${(downMs / 1000).toFixed(1)} s; their 30 late retries right after the start answered ${[...new Set(first.keep)].join(' / ')}, again 90 s later ${[...new Set(second.keep)].join(' / ')}; last items: ${[...new Set(lastWords(words.keep))].join(', ')} (Leave Out Superseded: ${[...new Set(lastWords(words.leave))].join(', ')}); order reads for them ${flipReads}; the late retry of a change nothing superseded: ${words.keep.get(late)?.join()} after ${lateReads} reads (one per workflow); executions ${kept.length} and ${left.length}`,
				);
				expect(retries.map((d) => d?.status)).toEqual(Array(30).fill('failed'));
				// Per order, as its events came: to processing (its catch-up ran that status), on hold (superseded: it runs,
				// marked), back to processing (the catch-up's).
				const perOrder = (answers: string[]) =>
					flipping.map((_, i) => FLIP.map((__, n) => answers[n * flipping.length + i]));
				const flipAnswers = ['200 duplicate_change', '200 ran', '200 duplicate_change'];
				expect(perOrder(first.keep)).toEqual(flipping.map(() => flipAnswers));
				expect(perOrder(first.leave)).toEqual(flipping.map(() => flipAnswers));
				expect([...second.keep, ...second.leave]).toEqual(Array(60).fill('200 duplicate_event'));
				expect(flipping.map((id) => words.keep.get(id))).toEqual(
					flipping.map(() => ['processing', 'on-hold (superseded: processing)']),
				);
				expect(flipping.map((id) => words.leave.get(id))).toEqual(
					flipping.map(() => ['processing']),
				);
				expect(lateAnswers).toEqual(['200 ran', '200 ran']);
				expect([words.keep.get(late), words.leave.get(late)]).toEqual([
					['processing'],
					['processing'],
				]);
				expect(flipReads).toBe(0);
				expect(lateReads).toBe(2);
				// The catch-up, the on-hold retries (passing nothing on with Leave Out Superseded), the late change.
				expect([kept.length, left.length]).toEqual([12, 12]);
				expect([...kept, ...left].filter((e) => e.status !== 'success')).toEqual([]);
				expect(left.filter((e) => e.passedNothing)).toHaveLength(10);
			} finally {
				await env.sandbox.admin('PUT', '/profile', { profile: PROFILE });
				for (const wf of workflows) await env.client.deactivateWorkflow(wf.id);
			}
		},
	);

	line2Only(
		"3,000 orders made while n8n is down: the catch-up runs each once, in one execution; then the service's late retries of all 3,000 are answered at the door and start no execution",
		async () => {
			let wf: Awaited<ReturnType<typeof catchUpWorkflow>> | undefined;
			try {
				await deactivateAll();
				wf = await catchUpWorkflow({ missedEventsCheckMinutes: 0 }, { events: ['order.created'] });
				await baselineOf(wf);
				const from = env.sandbox.events.length;
				const { downMs } = await env.restart(120_000, {}, async () => {
					await newOrders(3_000);
					await env.sandbox.idle();
				});
				const created = env.sandbox.events.slice(from).filter((e) => e.type === 'order.created');
				const caughtUp = await settled(wf.id, 1);
				const url = wf.url;
				const pending = deliveriesOf(created);
				const answers: string[] = [];
				await Promise.all(
					Array.from({ length: 10 }, async () => {
						for (let d = pending.shift(); d; d = pending.shift())
							answers.push(answer(await resend(d, url)));
					}),
				);
				const all = await settled(wf.id, caughtUp.length);
				const { runs, sources, twice } = runsOf(all);
				const expected = created.map((e) => changeOf(e.type, e.data));
				say(
					`3,000 orders made while n8n was down ${(downMs / 1000).toFixed(1)} s: run by the catch-up ${sources.catchUp} in ${caughtUp.length} execution(s), twice ${twice.length}; their 3,000 late retries answered ${[...new Set(answers)].join(' / ')}; executions after them ${all.length}`,
				);
				expect(created).toHaveLength(3_000);
				expect(expected.filter((c) => runs.get(c) !== 1)).toEqual([]);
				expect(twice).toEqual([]);
				expect(caughtUp).toHaveLength(1);
				expect(answers).toEqual(Array(3_000).fill('200 duplicate_change'));
				expect(all).toHaveLength(1);
			} finally {
				if (wf) await env.client.deactivateWorkflow(wf.id);
			}
		},
	);
});

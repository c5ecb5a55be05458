/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-imports -- test code, not node code: the sandbox's event log answers untyped JSON; timers/promises waits out the service's retry window */
// The workflow's last word on an order is its status after a restart, in a real n8n process (the matrix runs this
// suite in the 2.x cells, against the sandbox's contract and its spec-literal profile: events with previous_status, and
// the order as listed), beside the catch-up suite in a jest process and n8n of its own: the late retries of changes
// the catch-up covered are answered at the door, those it superseded run marked (or left out), and none costs a
// request; 3,000 orders' late retries start no execution. While n8n runs: the catch-up suite; queue mode: test/queue.
import { setTimeout as sleep } from 'timers/promises';

import { registerWebhook } from '../e2e/environment';
import { PROFILE } from '../helpers/profile';
import {
	baselineOf,
	catchUpWorkflow,
	changeOf,
	contractCellsOnly,
	deliveriesOf,
	ended,
	env,
	FLIP,
	logLines,
	logText,
	newOrders,
	resend,
	runsOf,
	say,
	setStatus,
	settled,
	UNREACHABLE,
	useEnvironment,
	wordsOf,
} from '../catchup/kit';

jest.setTimeout(600_000);

useEnvironment('lastword', 'Last-word summary');

describe('the workflow\'s last word on an order: its status (compat order_transitions "any")', () => {
	const orderReads = async (ids: string[]) =>
		((await env.sandbox.admin('GET', '/requests')).body as any[]).filter(
			(r) => r.method === 'GET' && ids.some((id) => r.path === `/v1/orders/${id}`),
		).length;

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

	test(`10 orders go processing → on hold → processing while n8n restarts (${PROFILE} events), then the service's late retries in their original order, right after the start and again 90 s later: each change runs at most once, each order's final status runs, each order's last item has its current status or says superseded; with Leave Out Superseded Changes no superseded item passes; no retry costs a request but one of a change nothing later superseded, which runs unmarked`, async () => {
		const workflows: Array<Awaited<ReturnType<typeof catchUpWorkflow>>> = [];
		try {
			await deactivateAll();
			expect((await env.sandbox.admin('PUT', '/compat', { order_transitions: 'any' })).status).toBe(
				200,
			);
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
				await logLines(logFrom, `catch-up for workflow "${wf.name}" (id ${wf.id}) read the lists`);
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
			expect(flipping.map((id) => words.leave.get(id))).toEqual(flipping.map(() => ['processing']));
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
			// Best effort: after a failure n8n may be down, and the test's own error is the one to see.
			for (const wf of workflows) await env.client.deactivateWorkflow(wf.id).catch(() => undefined);
		}
	});

	// The same in both cells (order.created is the spec's own event): run where the lists are read by updated_at.
	contractCellsOnly(
		"3,000 orders made while n8n is down: the catch-up runs each once, in one execution; then the service's late retries of all 3,000 are answered at the door and start no execution",
		async () => {
			let wf: Awaited<ReturnType<typeof catchUpWorkflow>> | undefined;
			try {
				await deactivateAll();
				wf = await catchUpWorkflow({ missedEventsCheckMinutes: 0 }, { events: ['order.created'] });
				await baselineOf(wf);
				const from = env.sandbox.events.length;
				// While n8n is down every attempt is refused; the sandbox makes none (15,000 refused connections cost the
				// machine, not the test), and the service's late retries come after the start, each event's bytes as sent.
				const { downMs } = await env.restart(120_000, {}, async () => {
					await env.sandbox.admin('PUT', '/webhook', { url: null });
					await newOrders(3_000);
				});
				const created = env.sandbox.events.slice(from).filter((e) => e.type === 'order.created');
				const caughtUp = await settled(wf.id, 1);
				const url = wf.url;
				const pending = created.map((event) => ({
					id: `dlv_late_${event.id}`,
					type: event.type,
					attempts: [],
					body: Buffer.from(JSON.stringify(event), 'utf8'),
					secret: env.sandbox.webhookSecret,
				}));
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
				// Best effort: after a failure n8n may be down, and the test's own error is the one to see.
				if (wf) await env.client.deactivateWorkflow(wf.id).catch(() => undefined);
			}
		},
	);

	/** The service's late retry of `event`: its bytes as first sent, signed with the secret of now. */
	const lateRetryOf = (event: { id: string; type: string }) => ({
		id: `dlv_late_${event.id}`,
		type: event.type,
		attempts: [],
		body: Buffer.from(JSON.stringify(event), 'utf8'),
		secret: env.sandbox.webhookSecret,
	});

	test(`issue 69, found by the soak (${PROFILE} events): changes the catch-up ran, then n8n restarts again and the service's late retries come: none runs again; an order's return whose delivery failed while n8n was down runs (the catch-up), once; a late order.created after the order's change ran is marked superseded`, async () => {
		let wf: Awaited<ReturnType<typeof catchUpWorkflow>> | undefined;
		try {
			await deactivateAll();
			expect((await env.sandbox.admin('PUT', '/compat', { order_transitions: 'any' })).status).toBe(
				200,
			);
			wf = await catchUpWorkflow(
				{ missedEventsCheckMinutes: 0 },
				{ events: ['order.created', 'order.updated'] },
			);
			await baselineOf(wf);
			const from = env.sandbox.events.length;
			// A return: processing, on hold (both delivered and run), then processing again while n8n is down.
			const [returning] = await newOrders(1);
			// Each change's run ends before the next change, so none is marked superseded.
			for (const [i, status] of ['processing', 'on-hold'].entries()) {
				await setStatus([returning], status);
				await ended(wf.id, i + 2);
			}
			// Orders made and changed while n8n is down (no delivery reaches it), twice: a deploy, then a crash.
			let caughtUp: string[] = [];
			const { downMs: first } = await env.restart(60_000, {}, async () => {
				await env.sandbox.admin('PUT', '/webhook', { url: null });
				await setStatus([returning], 'processing');
				caughtUp = await newOrders(5);
				await setStatus(caughtUp, 'processing');
			});
			await ended(wf.id, 4);
			const { downMs: second } = await env.crashAndRestart(async () => {
				await setStatus(caughtUp, 'shipped');
			});
			await ended(wf.id, 5);
			// A third start, then the service's late retries of every change made while n8n was down.
			const logFrom = logText().length;
			const { downMs: third } = await env.restart();
			await logLines(
				logFrom,
				`catch-up for workflow "${wf.name}" (id ${wf.id}) read the lists`,
				1,
				60_000,
			).catch(() => undefined);
			const late = env.sandbox.events
				.slice(from)
				.filter((e) => ['order.created', 'order.updated'].includes(e.type))
				.filter((e) =>
					[...caughtUp, returning].includes(String((e.data as any).order_id ?? (e.data as any).id)),
				);
			const answers: string[] = [];
			for (const event of late) answers.push(answer(await resend(lateRetryOf(event), wf.url)));
			// A late order.created after its order's change ran: one more order, its processing delivered first.
			const fromCreated = env.sandbox.events.length;
			const [overtaken] = await newOrders(1);
			await setStatus([overtaken], 'processing');
			const [created, processing] = env.sandbox.events.slice(fromCreated);
			answers.push(answer(await resend(lateRetryOf(processing), wf.url)));
			await settled(wf.id);
			answers.push(answer(await resend(lateRetryOf(created), wf.url)));
			const all = await settled(wf.id);
			const { runs, twice } = runsOf(all);
			const words = wordsOf(all, [returning, ...caughtUp, overtaken]);
			const createdItem = all
				.flatMap((e) => e.items)
				.find(
					(i) =>
						i.json.type === 'order.created' &&
						changeOf('order.created', i.json.data).endsWith(overtaken),
				);
			say(
				`issue 69's cases in real n8n (${PROFILE} events): down ${(first / 1000).toFixed(1)}, ${(second / 1000).toFixed(1)} (SIGKILL) and ${(third / 1000).toFixed(1)} s; ${late.length} late retries answered ${[...new Set(answers)].join(' / ')}; changes run twice ${twice.length}; the return: ${words.get(returning)?.join(', ')}; a caught-up order: ${words.get(caughtUp[0])?.join(', ')}; the late order.created: ${JSON.stringify({ superseded: createdItem?.json.superseded, current_status: createdItem?.json.current_status })}; executions ${all.length}`,
			);
			// The one change made twice: the return.
			expect(twice).toEqual([
				changeOf('order.updated', { order_id: returning, status: 'processing' }),
			]);
			expect(words.get(returning)).toEqual(['processing', 'on-hold', 'processing']);
			for (const id of caughtUp) {
				expect(words.get(id)).toEqual(['processing', 'shipped']);
				expect(runs.get(changeOf('order.created', { order_id: id }))).toBe(1);
			}
			expect(words.get(overtaken)).toEqual(['processing']);
			expect(createdItem?.json).toMatchObject({ superseded: true, current_status: 'processing' });
			expect(all.filter((e) => e.status !== 'success')).toEqual([]);
		} finally {
			await env.sandbox.admin('PUT', '/profile', { profile: PROFILE });
			if (wf) await env.client.deactivateWorkflow(wf.id).catch(() => undefined);
		}
	});
});

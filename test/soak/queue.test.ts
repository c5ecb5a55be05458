/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, not node code: the service's shape may come from the environment */
// The soak in n8n's queue mode (project soak-queue): main, two webhook processors and two workers on Postgres and
// Redis, a stop stopping every n8n process and a worker killed mid-stream (./run). The service's shape is drawn from
// the seed (SOAK_PROFILE names one), so CI's runs try both. First, in the same topology, issue 69's first case: a
// change main's catch-up ran (on a worker) is not run again by its late retry after another restart.
import {
	baselineOf,
	catchUpWorkflow,
	changeOf,
	ended,
	env,
	logLines,
	logText,
	newOrders,
	resend,
	runsOf,
	say,
	setStatus,
	settled,
	useEnvironment,
	wordsOf,
} from '../catchup/kit';
import { ORDERS, SEED, soak, SOAK_TIMEOUT_MS, STOPS } from './run';

const profile = process.env.SOAK_PROFILE ?? (SEED % 2 === 0 ? 'contract' : 'spec-literal');

jest.setTimeout(SOAK_TIMEOUT_MS);

useEnvironment('soak-queue', `Soak summary (queue mode, ${profile} events)`, {
	mode: 'queue',
	webhooks: 2,
	workers: 2,
});

test(`issue 69's first case in queue mode (${profile} events): 5 orders made and changed while every n8n process is down, run by main's catch-up on a worker; changed again during a crash (SIGKILL), run by the next catch-up; after a third start the service's late retries of all of them, to both webhook processors: none runs again, each order's changes once`, async () => {
	const topology = env.queue!;
	expect((await env.sandbox.admin('PUT', '/profile', { profile })).status).toBe(200);
	expect((await env.sandbox.admin('PUT', '/compat', { order_transitions: 'any' })).status).toBe(
		200,
	);
	const wf = await catchUpWorkflow(
		{ missedEventsCheckMinutes: 0 },
		{ events: ['order.created', 'order.updated'] },
	);
	try {
		await baselineOf(wf);
		const from = env.sandbox.events.length;
		let orders: string[] = [];
		await env.restart(60_000, {}, async () => {
			await env.sandbox.admin('PUT', '/webhook', { url: null });
			orders = await newOrders(5);
			await setStatus(orders, 'processing');
		});
		await ended(wf.id, 1);
		await env.crashAndRestart(async () => await setStatus(orders, 'shipped'));
		await ended(wf.id, 2);
		const logFrom = logText().length;
		await env.restart();
		await logLines(logFrom, `catch-up for workflow "${wf.name}" (id ${wf.id}) read the lists`);
		// The service's late retries of every change, in their order, taking turns at the webhook processors.
		const late = env.sandbox.events
			.slice(from)
			.filter((e) => ['order.created', 'order.updated'].includes(e.type));
		const answers: string[] = [];
		for (const [i, event] of late.entries()) {
			const url = wf.url.replace(env.webhookUrl, topology.webhooks[i % 2].url);
			const { status, text } = await resend(
				{
					id: `dlv_late_${event.id}`,
					type: event.type,
					attempts: [],
					body: Buffer.from(JSON.stringify(event), 'utf8'),
					secret: env.sandbox.webhookSecret,
				},
				url,
			);
			answers.push(`${status} ${(JSON.parse(text) as { skipped?: string }).skipped ?? 'ran'}`);
		}
		const all = await settled(wf.id, 2);
		const { runs, twice } = runsOf(all);
		const words = wordsOf(all, orders);
		say(
			`issue 69's first case in queue mode (${profile} events): ${late.length} late retries answered ${[...new Set(answers)].join(' / ')}; changes run twice ${twice.length}; an order: ${words.get(orders[0])?.join(', ')}; executions ${all.length} (${all.filter((e) => e.status !== 'success').length} not successful)`,
		);
		expect(late).toHaveLength(15);
		expect(twice).toEqual([]);
		for (const id of orders) {
			expect(words.get(id)).toEqual(['processing', 'shipped']);
			expect(runs.get(changeOf('order.created', { order_id: id }))).toBe(1);
		}
		expect(all.filter((e) => e.status !== 'success')).toEqual([]);
	} finally {
		// Best effort: after a failure n8n may be down, and the test's own error is the one to see.
		await env.client.deactivateWorkflow(wf.id).catch(() => undefined);
	}
});

test(`soak in queue mode (${profile} events): ${ORDERS} orders, ${STOPS} stops of every n8n process (SIGTERM, SIGKILL) and a worker killed mid-stream, deliveries lost, doubled (one copy to each webhook processor), held back and retried late, API fault spells: no event twice, no record more often than it changed, nothing lost, the last status item the order's or superseded, each payment once`, async () => {
	await soak(profile);
});

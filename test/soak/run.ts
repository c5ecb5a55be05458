/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: the sandbox's logs answer untyped JSON; the seed and sizes come from the environment; a failure prints n8n's log files */
// The soak (issue 69): the Storefront Trigger's promises with the faults together, in one real n8n process, against the
// sandbox in either profile (the contract's events, or the spec-literal ones: `order_id`, oldest first, the order as
// `order.updated`'s data). From a printed seed: orders made one by one and changed along random status paths (returns
// and cancellations), half paid, products made and lowered; each delivery arrives once, twice at once, never, or only
// after its record's next event; n8n stopped mid-stream by SIGTERM and by SIGKILL while the shop goes on, with API
// fault spells (429 with Retry-After, 503, slow answers) for the reading at its start; then the service's late retries
// of every failed delivery, a fifth of the delivered events again, and the checks for missed events. Then, per order
// and product (./plan, judgeRuns): no event ran twice, no record ran more often than it changed, nothing was lost, the
// last status item is the order's status or says superseded, each payment ran once. In CI: ./soak.test.ts in the
// matrix (projects soak and soak-spec-literal, .ci/run); `npm run soak`: 500 orders and 5 stops, both profiles.
import { createHmac, randomInt } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { api } from '../helpers/sandbox';
import { eventually } from '../e2e/environment';
import {
	baselineOf,
	catchUpWorkflow,
	env,
	executionsNow,
	KINDS,
	logLines,
	logText,
	N8N_STARTING_UP,
	say,
	settled,
} from '../catchup/kit';
import {
	fateOf,
	judgeRuns,
	randomFrom,
	recordOf,
	returnTakenForReading,
	shopActions,
	type DeliveryFate,
	type RunItem,
	type ShopAction,
	type SoakEvent,
} from './plan';

/** The soak's size (`npm run soak`: more), and its seed: a new one each run unless SOAK_SEED draws one again. */
export const ORDERS = Number(process.env.SOAK_ORDERS ?? 60);
export const STOPS = Number(process.env.SOAK_STOPS ?? 2);
export const SEED = process.env.SOAK_SEED ? Number(process.env.SOAK_SEED) : randomInt(2 ** 31);
export const SOAK_TIMEOUT_MS = Math.max(900_000, ORDERS * 12_000);

const STOCKED = 'prod_00001';

interface Sent {
	event: SoakEvent;
	fate: DeliveryFate;
	/** Answered by the trigger (2xx, not n8n's start-up page). */
	delivered: boolean;
	/** Failed (n8n down, or not 2xx): the service retries it late. */
	failed: boolean;
	/** What the trigger answered to each attempt that reached it (`skipped` of its body, or "ran"). */
	answers: string[];
}

/**
 * One soak against the sandbox in `profile` (the environment's n8n and sandbox: ../catchup/kit). In queue mode the
 * deliveries take turns at the webhook processors (a doubled one reaches both), a stop stops every n8n process, and
 * a worker is killed (SIGKILL) once mid-stream, with runs on it.
 */
export async function soak(profile: string) {
	const specLiteral = profile === 'spec-literal';
	const topology = env.queue;
	const where = topology
		? `queue mode: ${topology.webhooks.length} webhook processors, ${topology.workers.length} workers`
		: 'one n8n';

	say(
		`soak seed ${SEED} (${profile} events, ${where}, ${ORDERS} orders, ${STOPS} stops): SOAK_SEED=${SEED} draws it again`,
	);
	const random = randomFrom(SEED);
	expect((await env.sandbox.admin('PUT', '/profile', { profile })).status).toBe(200);
	expect((await env.sandbox.admin('PUT', '/compat', { order_transitions: 'any' })).status).toBe(
		200,
	);
	await env.sandbox.admin('POST', '/simulate/stock', { product_id: STOCKED, stock: 1_000_000 });
	const wf = await catchUpWorkflow(
		{ missedEventsCheckMinutes: 1 },
		{ events: [...KINDS, 'inventory.low'] },
	);
	await baselineOf(wf);
	// The service's deliveries are the soak's own, with its faults: the sandbox only records the events.
	await env.sandbox.admin('PUT', '/webhook', { url: null });
	const from = env.sandbox.events.length;

	// 1. Deliveries: the service's, with the soak's faults. Held ones go out after their record's next event.
	const sent = new Map<string, Sent>();
	const held = new Map<string, SoakEvent[]>();
	let up = true;
	// The same production path on every webhook processor (queue mode), which keep their ports across restarts.
	const urls = topology
		? topology.webhooks.map((p) => wf.url.replace(env.webhookUrl, p.url))
		: [wf.url];
	let turn = 0;
	const post = async (event: SoakEvent) => {
		const body = Buffer.from(JSON.stringify(event), 'utf8');
		const signature = createHmac('sha256', Buffer.from(env.sandbox.webhookSecret, 'utf8'))
			.update(body)
			.digest('hex');
		try {
			const answer = await fetch(urls[turn++ % urls.length], {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'x-service-signature': `sha256=${signature}`,
					'x-service-event': event.type,
				},
				body,
			});
			const text = await answer.text();
			if (answer.ok && !text.startsWith(N8N_STARTING_UP)) {
				const { skipped } = JSON.parse(text) as { skipped?: string };
				sent.get(event.id)?.answers.push(skipped ?? 'ran');
			}
			return answer.ok ? (text.startsWith(N8N_STARTING_UP) ? 'startup' : 'ok') : 'failed';
		} catch {
			return 'failed';
		}
	};
	const deliver = async (event: SoakEvent, copies = 1) => {
		const record = sent.get(event.id)!;
		const answers = await Promise.all(
			Array.from({ length: copies }, async () => await post(event)),
		);
		if (answers.includes('ok')) record.delivered = true;
		// n8n's start-up page answers 200: the service takes it as delivered and never retries.
		else if (answers.includes('failed') && !answers.includes('startup')) record.failed = true;
	};
	const release = async (record: string) => {
		const waiting = held.get(record) ?? [];
		held.delete(record);
		for (const event of waiting) await deliver(event);
	};
	let seenEvents = from;
	const deliverNew = async () => {
		for (const event of env.sandbox.events.slice(seenEvents) as SoakEvent[]) {
			seenEvents++;
			const fate = fateOf(random);
			sent.set(event.id, { event, fate, delivered: false, failed: false, answers: [] });
			const record = recordOf(event);
			const before = held.get(record);
			if (fate === 'held') {
				held.set(record, [...(before ?? []), event]);
				continue;
			}
			if (fate !== 'lost') await deliver(event, fate === 'twice' ? 2 : 1);
			if (before) await release(record);
		}
	};

	// 2. The shop.
	const orderIds: string[] = [];
	const productIds: string[] = [];
	const newRecord = (type: string, from: number) => {
		const made = (env.sandbox.events.slice(from) as SoakEvent[]).find((e) => e.type === type);
		if (!made) throw new Error(`no ${type} event after the shop's call`);
		return recordOf(made);
	};
	const act = async (action: ShopAction) => {
		const ok = (res: { status: number; body?: unknown; json?: unknown }, what: string) => {
			if (res.status >= 300)
				throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body ?? res.json)}`);
		};
		const before = env.sandbox.events.length;
		switch (action.kind) {
			case 'checkout': {
				const res = await env.sandbox.admin('POST', '/simulate/checkout', {
					items: [{ product_id: STOCKED, quantity: 1 }],
				});
				ok(res, 'checkout');
				orderIds[action.order] = newRecord('order.created', before);
				break;
			}
			case 'status': {
				const id = orderIds[action.order];
				ok(
					await api(env.sandbox, 'PUT', `/orders/${id}/status`, { status: action.status }),
					`status of ${id}`,
				);
				break;
			}
			case 'pay': {
				// A cancelled or refunded order cannot be paid (409): the shop does not try.
				const id = orderIds[action.order];
				if (['cancelled', 'refunded'].includes(String(env.sandbox.state.orders.get(id)?.status)))
					break;
				ok(await env.sandbox.admin('POST', '/simulate/payment', { order_id: id }), 'payment');
				break;
			}
			case 'product': {
				const res = await api(env.sandbox, 'POST', '/products', {
					name: `Soak product ${action.product}`,
					sku: `SOAK-${SEED}-${action.product}`,
					price: 10 + action.product,
					stock: 50,
				});
				ok(res, 'product');
				productIds[action.product] = newRecord('product.created', before);
				break;
			}
			case 'lower':
				ok(
					await env.sandbox.admin('POST', '/simulate/stock', {
						product_id: productIds[action.product],
						stock: random.int(0, 5),
					}),
					'stock',
				);
				break;
		}
		if (up) await deliverNew();
	};

	// 3. The stream, with n8n stopped at spread points; while it is down the shop goes on and every delivery fails.
	const actions = shopActions(random, ORDERS);
	const stopAt = Array.from({ length: STOPS }, (_, i) =>
		Math.floor(((i + 1) * actions.length) / (STOPS + 1)),
	);
	const stops: string[] = [];
	let n8nStops = 0;
	let resumedAt = 0;
	/** When n8n was last stopped: an execution of before that still unfinished never finishes (a crash cut it). */
	let lastStopAt = 0;
	const faults = [
		{ status: 429, retry_after: random.int(1, 3), count: random.int(1, 3) },
		{ status: 503, count: random.int(1, 2) },
		{ type: 'slow', delay_ms: 1_500, count: random.int(1, 3) },
	];
	// Queue mode: one worker killed mid-stream, right after a delivery (its run may be on that worker), and started
	// again; the other worker goes on. Drawn after the rest, so a seed draws the same shop in one n8n.
	const workerKill = topology
		? {
				at: random.int(1, actions.length - 1),
				worker: random.int(0, topology.workers.length - 1),
				done: false,
				/**
				 * The executions unfinished when it was killed, with their items then: n8n gives up the jobs it held 60-90 s
				 * later (Bull) and fails their executions, their data gone.
				 */
				held: new Map<string, RunItem['json'][]>(),
				killedAt: 0,
			}
		: undefined;
	for (let i = 0; i < actions.length; ) {
		if (topology && workerKill && i >= workerKill.at && !workerKill.done) {
			workerKill.done = true;
			const { name } = topology.workers[workerKill.worker];
			for (const e of await executionsNow(wf.id))
				if (['new', 'running', 'waiting'].includes(e.status))
					workerKill.held.set(
						e.id,
						e.items.map((item) => item.json),
					);
			lastStopAt = workerKill.killedAt = Date.now();
			const { downMs } = await topology.restart([name], { signal: 'SIGKILL' });
			const down = `${(downMs / 1000).toFixed(1)} s down`;
			stops.push(
				`SIGKILL of ${name} at call ${i} (${down}; ${workerKill.held.size} runs unfinished then)`,
			);
		}
		if (!stopAt.includes(i)) {
			await act(actions[i++]);
			continue;
		}
		// Every second stop of n8n is a crash, the others a crash one time in four (a worker's kill is not counted).
		const kill = n8nStops++ % 2 === 1 || random.chance(0.25);
		// The reading at the start meets a fault spell.
		for (const fault of faults.filter(() => random.chance(0.6)))
			await env.sandbox.admin('POST', '/faults', { method: 'GET', path: '/v1/orders', ...fault });
		const downFor = random.int(4, 10);
		let madeWhileDown = false;
		const whileDown = async () => {
			up = false;
			// At least one new order: the reading at the start then finds a change, and says so in n8n's log.
			for (let n = 0; n < downFor && i < actions.length; n++) {
				madeWhileDown ||= actions[i].kind === 'checkout';
				await act(actions[i++]);
			}
			if (!madeWhileDown) await act({ kind: 'checkout', order: ORDERS + stops.length });
			await deliverNew();
		};
		const logFrom = logText().length;
		lastStopAt = Date.now();
		const { downMs } = kill
			? await env.crashAndRestart(whileDown)
			: await env.restart(60_000, {}, whileDown);
		up = true;
		await logLines(
			logFrom,
			`catch-up for workflow "${wf.name}" (id ${wf.id}) read the lists`,
			1,
			120_000,
		);
		resumedAt = Date.now();
		stops.push(
			`${kill ? 'SIGKILL' : 'SIGTERM'} at call ${i - downFor} (${(downMs / 1000).toFixed(1)} s down)`,
		);
		// Within the service's retry window: some of the failed deliveries are retried now, in their order.
		for (const record of [...sent.values()].filter(
			(s) => s.failed && !s.delivered && random.chance(0.5),
		))
			await deliver(record.event);
	}
	await deliverNew();
	for (const record of [...held.keys()]) await release(record);
	const lastChangeAt = Date.now();

	// 4. The service's late retries of every failed delivery, then a fifth of the delivered events again.
	const retried = [...sent.values()].filter((s) => s.failed && !s.delivered);
	for (const record of retried) await deliver(record.event);
	const again = [...sent.values()].filter((s) => s.delivered && random.chance(0.2));
	for (const record of again) await deliver(record.event);

	// 5. Queue mode: n8n gives up the jobs the killed worker held (Bull's stalled check, 60-90 s with n8n's defaults
	// QUEUE_WORKER_LOCK_DURATION and QUEUE_WORKER_STALLED_INTERVAL) and fails their executions; main's reading finds
	// again the changes its own such run had not claimed once it has.
	const givenUpBy = workerKill?.done ? workerKill.killedAt + 95_000 : 0;
	const readFrom = Math.max(lastChangeAt + 31_000, givenUpBy);
	// Then two readings of the checks for missed events that start after every change outgrew its delivery's grace
	// (30 s), the second running what a service without updated_at shows only by comparison with the first: done once
	// a third starts (a reading starts only after the one before it started its run).
	const readingsStarted = async () =>
		((await env.sandbox.admin('GET', '/requests')).body as any[]).filter(
			(r) =>
				r.method === 'GET' &&
				r.path === '/v1/orders' &&
				[undefined, '1'].includes(r.query?.page) &&
				Date.parse(r.at) - r.ms > readFrom,
		).length;
	await eventually(
		async () => ((await readingsStarted()) >= 3 ? true : undefined),
		'two readings of the checks for missed events',
		300_000,
	);
	const executions = await settled(wf.id, 0, lastStopAt);

	// 6. Per order and product.
	const events = (env.sandbox.events.slice(from) as SoakEvent[]).filter((e) =>
		[...KINDS, 'inventory.low'].includes(e.type),
	);
	const items: RunItem[] = [];
	const made = [...executions].sort(
		(a, b) => a.createdAt - b.createdAt || Number(a.id) - Number(b.id),
	);
	for (const e of made) {
		if (e.nodeMs === null && e.startedAt === null) continue; // never started: nothing was claimed
		// A run a SIGKILL cut after its trigger's claim and before n8n logged the step's end has no run data for it
		// (CI, seed 81128847: an order's creation claimed there, so it ran nowhere else): the crash window too.
		const crashed = e.status !== 'success' || e.nodeMs === null;
		// A crashed run's data is what n8n's recovery rebuilt from its event log, its times not the run's (seed 813971196: a
		// run on a killed worker "passed" 20 s before its event was made): when it started, instead.
		const passedAt = (crashed ? (e.startedAt ?? e.createdAt) : e.nodeEndedAt) ?? undefined;
		for (const { json } of e.items) items.push({ json, execution: e.id, crashed, passedAt });
	}
	// A run the killed worker held and n8n gave up keeps no items: n8n rewrote its data. Its items are what it held when
	// the worker was killed, and it is a run a crash cut (left to a person: the execution failed in n8n's list).
	const givenUp: string[] = [];
	for (const e of made) {
		const held = workerKill?.held.get(e.id);
		if (!held?.length || e.items.length || e.status === 'success') continue;
		const passedAt = e.startedAt ?? e.createdAt;
		for (const json of held) items.push({ json, execution: e.id, crashed: true, passedAt });
		givenUp.push(e.id);
	}
	const verdict = judgeRuns(
		events,
		items,
		// What no reading can date, its delivery lost (docs/trigger.md, When faults come together): on a service without
		// updated_at, a change made before n8n's last start, and in queue mode a return (main, which reads, receives no
		// deliveries, so only its own readings narrow its window); on either service, a return made before n8n's last
		// start and followed by a payment (the order's last change then is its payment). Delivered or not: a return made
		// within a second after a reading ran the stay it returns to (an event may be stamped up to a second after its
		// update, contract row 23, so its delivery is that stay's to the claims: What a second cannot tell apart).
		(order, final) => {
			const made = events.filter((e) => recordOf(e) === order);
			const at = made.indexOf(final);
			const isReturn = made
				.slice(0, at)
				.some((e) => e.type === 'order.updated' && e.data.status === final.data.status);
			if (returnTakenForReading(made, final, items)) return true;
			if (sent.get(final.id)?.delivered) return false;
			const paidAfter = made.slice(at + 1).some((e) => e.type === 'payment.completed');
			const beforeStart = Date.parse(final.created_at) < resumedAt;
			return (
				(beforeStart && (specLiteral || (isReturn && paidAfter))) ||
				(topology !== undefined && specLiteral && isReturn)
			);
		},
		(event) => {
			const record = sent.get(event.id);
			return record
				? `[${record.fate}${record.delivered ? '' : record.failed ? ',failed' : ',never'}${record.answers.length ? `:${record.answers.join('/')}` : ''}]`
				: '';
		},
	);
	const fates = [...sent.values()].reduce<Record<string, number>>(
		(n, s) => ({ ...n, [s.fate]: (n[s.fate] ?? 0) + 1 }),
		{},
	);
	const show = (lines: string[]) =>
		lines.length ? `\n    ${lines.slice(0, 12).join('\n    ')}` : '';
	say(
		`soak seed ${SEED} (${profile}): ${verdict.orders} orders and ${verdict.products} products, ${events.length} events ` +
			`(deliveries ${Object.entries(fates)
				.map(([k, v]) => `${k} ${v}`)
				.join(', ')}; ${retried.length} retried late, ` +
			`${again.length} sent again); stops: ${stops.join(', ')}; ${executions.length} executions, ` +
			`${executions.filter((e) => e.passedNothing).length} passed nothing on, ${executions.filter((e) => e.status !== 'success').length} not successful` +
			`${givenUp.length ? ` (${givenUp.length} given up by n8n, their data gone: ${givenUp.join(', ')})` : ''}. ` +
			`Events twice ${verdict.eventsTwice.length}, records more often than changed ${verdict.moreThanChanged.length}, ` +
			`lost ${verdict.lost.length}, stale last items ${verdict.staleLast.length}, payments not once ` +
			`${verdict.paymentsNotOnce.length}; crash window ${verdict.crashWindow.length}, unreadable (documented limit) ` +
			`${verdict.unreadable.length}` +
			show(verdict.eventsTwice.map((l) => `twice: ${l}`)) +
			show(verdict.moreThanChanged.map((l) => `more than changed: ${l}`)) +
			show(verdict.lost.map((l) => `lost: ${l}`)) +
			show(verdict.staleLast.map((l) => `stale last: ${l}`)) +
			show(verdict.paymentsNotOnce.map((l) => `payment: ${l}`)) +
			show(verdict.crashWindow.map((l) => `crash window: ${l}`)) +
			show(verdict.unreadable.map((l) => `unreadable: ${l}`)),
	);
	// On a failure, what the trigger told n8n's logs (every process's in queue mode): a claim that went without the lock
	// or got no answer from the database, a reading that failed.
	if (
		[verdict.eventsTwice, verdict.moreThanChanged, verdict.lost, verdict.staleLast].flat().length
	) {
		const logs = fs.readdirSync(env.dir).filter((name) => name.endsWith('.log'));
		const warnings = logs.flatMap((name) =>
			fs
				.readFileSync(path.join(env.dir, name), 'utf8')
				.split('\n')
				.filter((line) => line.includes('Storefront Trigger:') && !line.includes('catch-up for'))
				.map((line) => `${name}: ${line}`),
		);
		say(
			`soak seed ${SEED}: the trigger's warnings in n8n's logs (${warnings.length})\n    ${warnings.slice(-40).join('\n    ')}`,
		);
	}
	expect(verdict.orders).toBeGreaterThanOrEqual(ORDERS);
	expect({
		eventsTwice: verdict.eventsTwice,
		moreThanChanged: verdict.moreThanChanged,
		lost: verdict.lost,
		staleLast: verdict.staleLast,
		paymentsNotOnce: verdict.paymentsNotOnce.filter(
			(l) => !verdict.crashWindow.some((c) => c.split(':')[0] === l.split(':')[0]),
		),
	}).toEqual({
		eventsTwice: [],
		moreThanChanged: [],
		lost: [],
		staleLast: [],
		paymentsNotOnce: [],
	});
}

/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's internal REST API answers untyped JSON; the measured counts are printed */
// What the catch-up suite (test/catchup) and the last-word suite (test/lastword) share, each in its own real n8n
// process: the n8n and sandbox of the test file (useEnvironment), a workflow of the trigger and a No Operation node,
// the changes the sandbox made and what the trigger ran of them (by change, not by event id: a delivery and a catch-up
// report one change with different ids), and the service's late retries, byte for byte.
import { createHmac, randomUUID } from 'crypto';
import * as fs from 'fs';

import { api } from '../helpers/sandbox';
import {
	CREDENTIAL_NAME,
	eventually,
	registerWebhook,
	startEnvironment,
	createWorkflow,
	receivedBy,
	TYPES,
	type Environment,
	type EnvironmentOptions,
} from '../e2e/environment';
import {
	executionsOf,
	queueExecutionsOf,
	stopDatabaseReader,
	type ExecutionRecord,
} from '../reliability/n8n-db';
import { SPEC_LITERAL } from '../helpers/profile';

export const TRIGGER = 'Storefront Trigger';
/** The kinds a catch-up reports (inventory.low is not one: docs/trigger.md). */
export const KINDS = ['order.created', 'order.updated', 'payment.completed', 'product.created'];
export const NEXT: Record<string, string> = {
	pending: 'processing',
	processing: 'shipped',
	shipped: 'delivered',
	delivered: 'refunded',
};

/** The suite's real n8n: set by useEnvironment() before the first test. */
export let env: Environment;
const report: string[] = [];
/** Prints a measured line now, and again in the suite's summary at the end. */
export const say = (line: string) => {
	report.push(line);
	process.stdout.write(`${line}\n`);
};

/**
 * One real n8n for the test file (`name`: its folder and report), with the sandbox this kit's helpers use. `topology`:
 * n8n's queue mode instead (`mode: 'queue'`, with its webhook processors and workers).
 */
export function useEnvironment(
	name: string,
	summary: string,
	topology: Pick<EnvironmentOptions, 'mode' | 'webhooks' | 'workers'> = {},
) {
	beforeAll(async () => {
		env = await startEnvironment(name, {
			...topology,
			editor: false,
			// The info level: the catch-up says in n8n's log what it read.
			n8nEnv: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true', N8N_LOG_LEVEL: 'info' },
			// The contract's delivery policy (5 attempts, ten in flight) at half its spacing: 0.5, 1, 2 and 4 s apart (7.5 s
			// instead of 15). The suites wait out the service's retries about ten times a cell.
			sandbox: {
				sizes: { products: 100, orders: 150, customers: 20 },
				delivery: { attempts: 5, baseDelayMs: 500, timeoutMs: 10_000, concurrency: 10 },
			},
		});
	}, 300_000);

	afterAll(async () => {
		if (report.length)
			process.stdout.write(`\n${summary}\n${report.map((l) => `  ${l}`).join('\n')}\n`);
		await env?.stop();
		await stopDatabaseReader();
	}, 60_000);
}

/** What a change is, from an event's type and data: the test's own reading of "the same change", not the node's. */
export const changeOf = (type: string, data: any) =>
	type === 'order.updated'
		? `${type} ${data.order_id ?? data.id} → ${data.status}`
		: `${type} ${data.order_id ?? data.product_id ?? data.id}`;

/** The sandbox's events of the caught-up kinds since index `from` of its event log, as changes. */
export const sandboxChanges = (from: number) =>
	env.sandbox.events
		.slice(from)
		.filter((e) => KINDS.includes(e.type))
		.map((e) => changeOf(e.type, e.data));

/** Every item the trigger passed on, in every execution of the workflow, by change: how often each ran, and from where.
 * `by`: what a change is (default changeOf). */
export function runsOf(
	executions: ExecutionRecord[],
	by: (type: string, data: any) => string = changeOf,
) {
	const runs = new Map<string, number>();
	const sources = { webhook: 0, catchUp: 0 };
	for (const e of executions.filter((x) => x.status === 'success')) {
		for (const { json } of e.items) {
			const change = by(String(json.type), json.data);
			runs.set(change, (runs.get(change) ?? 0) + 1);
			sources[json.source as keyof typeof sources]++;
		}
	}
	return { runs, sources, twice: [...runs].filter(([, n]) => n > 1).map(([c]) => c) };
}

/** Every execution of the workflow, from n8n's database: SQLite, or the queue-mode topology's Postgres. */
export const executionsNow = async (workflowId: string) =>
	env.queue
		? await queueExecutionsOf(env.queue, workflowId)
		: await executionsOf(env.userFolder, workflowId);

/**
 * The workflow's executions once none is unfinished and their number stood still for a few seconds. `orphansBefore`:
 * an execution created before then (an n8n process killed since) that shows unfinished never finishes.
 */
export async function settled(workflowId: string, atLeast = 0, orphansBefore = 0) {
	let last = -1;
	let sameSince = Date.now();
	return await eventually(
		async () => {
			const all = await executionsNow(workflowId);
			if (all.length !== last) [last, sameSince] = [all.length, Date.now()];
			const done = all.every(
				(e) => e.createdAt < orphansBefore || !['new', 'running', 'waiting'].includes(e.status),
			);
			return done && all.length >= atLeast && Date.now() - sameSince > 4_000 ? all : undefined;
		},
		`executions of ${workflowId} to settle`,
		240_000,
	);
}

/** Waits until the workflow has at least `count` executions and none is unfinished (no settling time). */
export const ended = async (workflowId: string, count: number) =>
	await eventually(async () => {
		const all = await executionsNow(workflowId);
		return all.length >= count &&
			all.every((e) => !['new', 'running', 'waiting'].includes(e.status))
			? all
			: undefined;
	}, `${count} executions of ${workflowId} to end`);

export async function catchUpWorkflow(
	options: Record<string, unknown> = {},
	{ onError, events = KINDS }: { onError?: string; events?: string[] } = {},
) {
	const wf = await createWorkflow(
		env,
		receivedBy('catch-up', {
			id: 'catchup-trigger',
			name: TRIGGER,
			type: TYPES.trigger,
			typeVersion: 2,
			...(onError ? { onError } : {}),
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: { events, options },
			credentials: { storefrontApi: { id: '', name: CREDENTIAL_NAME } },
		}),
	);
	await registerWebhook(env, wf.url);
	return wf;
}

export async function checkouts(count: number) {
	for (let i = 0; i < count; i++) {
		const res = await env.sandbox.admin('POST', '/simulate/checkout', {});
		if (res.status !== 201) throw new Error(`checkout: ${res.status} ${JSON.stringify(res.body)}`);
	}
}
export async function changeStatuses(ids: string[]) {
	for (const id of ids) {
		const res = await api(env.sandbox, 'PUT', `/orders/${id}/status`, {
			status: NEXT[String(env.sandbox.state.orders.get(id)?.status)],
		});
		if (res.status !== 200) throw new Error(`status change of ${id}: ${res.status}`);
	}
}
/** Orders that can move on and have not changed since `since` (ISO time): one status change each. */
export const unchangedOrders = (count: number, since = '') =>
	[...env.sandbox.state.orders.values()]
		.filter((o) => NEXT[String(o.status)] && String(o.updated_at) < since)
		.slice(0, count)
		.map((o) => String(o.id));
export const listRequests = async () => {
	const requests = (await env.sandbox.admin('GET', '/requests')).body as any[];
	const count = (path: string) =>
		requests.filter((r) => r.method === 'GET' && r.path === path).length;
	return { orders: count('/v1/orders'), products: count('/v1/products') };
};
export const logText = () => fs.readFileSync(env.n8nLog, 'utf8');
/**
 * Waits until n8n's log, from offset `from` on, has `count` lines containing `text`; resolves to those lines. n8n's
 * output reaches the file through this process's pipe, a moment after n8n wrote it: never read it once after an action.
 */
export const logLines = async (from: number, text: string, count = 1, timeoutMs = 30_000) => {
	const lines = () =>
		logText()
			.slice(from)
			.split('\n')
			.filter((line) => line.includes(text));
	return await eventually(
		() => (lines().length >= count ? lines() : undefined),
		`${count} line(s) "${text}" in n8n's log (${env.n8nLog})`,
		timeoutMs,
	).catch((error: Error) => {
		throw new Error(`${error.message}; found ${lines().length}`);
	});
};
export const N8N_STARTING_UP = 'n8n is starting up';

/** Whether a delivery attempt was acknowledged by n8n's start-up page (200, before any node ran). */
export const startupAnswer = (attempt: any) =>
	attempt.ok && String(attempt.response ?? '').startsWith(N8N_STARTING_UP);
export const answeredByStartup = (delivery: any) => delivery.attempts.some(startupAnswer);

/** Spec-literal: the status changes no delivery brought to the trigger (every attempt given up, or answered by n8n's
 * start-up page); a read cannot find them without updated_at. None in the contract cells. */
export function unreadableChanges(
	events: Array<{ id: string; type: string; data: any }>,
	deliveries: any[],
): string[] {
	if (!SPEC_LITERAL) return [];
	const delivered = (id: string) =>
		deliveries.some(
			(d) => d.event_id === id && d.attempts.some((a: any) => a.ok && !startupAnswer(a)),
		);
	return events
		.filter((e) => e.type === 'order.updated' && !delivered(e.id))
		.map((e) => changeOf(e.type, e.data));
}

/**
 * A test of what n8n does whatever shape the service gives its events (a hung API, a wrong secret): registered in the
 * contract cells only. The spec-literal cell runs the tests that read or claim the service's records.
 */
export function contractCellsOnly(name: string, fn: () => Promise<void>) {
	if (!SPEC_LITERAL) test(name, fn);
}

/**
 * A test of what only a service without updated_at shows (status changes found by comparing what readings saw):
 * registered in the spec-literal cell only.
 */
export function specLiteralCellOnly(name: string, fn: () => Promise<void>) {
	if (SPEC_LITERAL) test(name, fn);
}

/** Waits for the first reading of a newly activated workflow (its baseline) in n8n's log. */
export const baselineOf = async (wf: { id: string; name: string }) =>
	await eventually(
		() =>
			new RegExp(`catch-up baseline for workflow "${wf.name}" \\(id ${wf.id}\\)`).test(logText())
				? true
				: undefined,
		'the baseline in the log',
	);

/** An address no n8n answers at: the tunnel or proxy in front of n8n is down. */
export const UNREACHABLE = 'http://127.0.0.1:9/webhook/unreachable';

/**
 * The service's own retry of a delivery, late: the signed bytes it first sent (the sandbox keeps each delivery's body
 * and the secret of its moment), with its headers and one attempt more. The answer, as n8n gave it.
 */
export async function resend(delivery: any, url: string) {
	const { body, secret } = delivery as { body: Buffer; secret: string };
	if (!Buffer.isBuffer(body) || typeof secret !== 'string')
		throw new Error(`the sandbox kept no body for delivery ${delivery.id}`);
	const answer = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'x-service-signature': `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`,
			'x-service-event': delivery.type,
			'x-service-delivery': delivery.id,
			'x-service-attempt': String(delivery.attempts.length + 1),
		},
		body,
	});
	return { status: answer.status, text: await answer.text() };
}

/** The sandbox's deliveries of these events (one each). */
export const deliveriesOf = (events: Array<{ id: string }>) =>
	events.map((e) => env.sandbox.deliveries.find((d) => d.event_id === e.id));

/** An order put on hold and released: a return to a status (compat order_transitions "any"). */
export const FLIP = ['processing', 'on-hold', 'processing'];
/** Each order of `ids` to `status`, one request at a time. */
export async function setStatus(ids: string[], status: string) {
	for (const id of ids) {
		const res = await api(env.sandbox, 'PUT', `/orders/${id}/status`, { status });
		if (res.status !== 200)
			throw new Error(
				`status change of ${id} to ${status}: ${res.status} ${JSON.stringify(res.json)}`,
			);
	}
}
/** `count` checkouts of one product kept in stock, ten at a time: the new orders' ids. */
export async function newOrders(count: number) {
	await env.sandbox.admin('POST', '/simulate/stock', {
		product_id: 'prod_00001',
		stock: 1_000_000,
	});
	const made = env.sandbox.events.length;
	let left = count;
	await Promise.all(
		Array.from({ length: Math.min(10, count) }, async () => {
			while (left > 0) {
				left--;
				const res = await env.sandbox.admin('POST', '/simulate/checkout', {
					items: [{ product_id: 'prod_00001', quantity: 1 }],
				});
				if (res.status !== 201)
					throw new Error(`checkout: ${res.status} ${JSON.stringify(res.body)}`);
			}
		}),
	);
	return env.sandbox.events
		.slice(made)
		.filter((e) => e.type === 'order.created')
		.map((e) => String((e.data as any).order_id ?? (e.data as any).id));
}
/** Per order, the status changes the trigger passed on, in the order their executions were made. */
export function wordsOf(executions: ExecutionRecord[], orders: string[]) {
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

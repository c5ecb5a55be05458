/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code, not node code (the last: n8n's SQLite written with the runtime's node:sqlite, as bench/dedupe.js does): n8n's internal REST API answers untyped JSON; the measured counts are printed */
// The Storefront Trigger's Catch Up After Downtime and its refused-delivery reports in a real n8n process (the matrix
// runs this suite in one cell per n8n line, the copied install, and in the spec-literal cell), against the sandbox's real, signed, retried
// deliveries of real changes (checkouts, status changes, payments): a first activation is a baseline; a restart with
// nothing missed costs one request per list and runs nothing again; n8n stopped while 200 orders are created and 50
// change status, then started: each of the 250 runs once, and the service's late retries run nothing more; SIGKILL
// while deliveries flow, then a start: nothing lost (not even what n8n's start-up answer acknowledged), nothing twice;
// a wrong Webhook Secret: one failed execution that says why, a warning in n8n's log, and a flood of forgeries adds
// no more. While n8n keeps running, a public URL down: the changes whose deliveries never arrived run at the next
// reading. What n8n remembers and what one change is: a claim kept however many newer ones follow (Remember Events
// For), an order that returns to a status, a payment sent as the payment object, and (spec-literal) status changes
// of older orders found by comparing. A change is counted by what it is (kind, order or product, new status), not by
// This module is the suite's world: one real n8n and sandbox per test file (beforeAll/afterAll below), and what the
// tests share. The tests are in two files that the matrix runs as two jest processes beside each other, since both
// mostly wait (n8n stopped and started, the service's retries, readings a minute apart): downtime.test.ts (restarts,
// crashes, refused deliveries) and running.test.ts (while n8n keeps running, the user's edits, what n8n remembers).
import { spawnSync } from 'child_process';
import { createHash, createHmac, randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { api } from '../helpers/sandbox';
import {
	CELL,
	CREDENTIAL_NAME,
	eventually,
	registerWebhook,
	runtime,
	startEnvironment,
	createWorkflow,
	TYPES,
	type Environment,
} from '../e2e/environment';
import { executionsOf, stopDatabaseReader, type ExecutionRecord } from '../reliability/n8n-db';
import { SPEC_LITERAL } from '../helpers/profile';

jest.setTimeout(600_000);

export const TRIGGER = 'Storefront Trigger';
/** The kinds a catch-up reports (inventory.low is not one: docs/trigger.md). */
export const KINDS = ['order.created', 'order.updated', 'payment.completed', 'product.created'];
export const NEXT: Record<string, string> = {
	pending: 'processing',
	processing: 'shipped',
	shipped: 'delivered',
	delivered: 'refunded',
};

export let env: Environment;
export const report: string[] = [];
export const say = (line: string) => {
	report.push(line);
	process.stdout.write(`${line}\n`);
};

beforeAll(async () => {
	env = await startEnvironment('catchup', {
		editor: false,
		// The info level: the catch-up says in n8n's log what it read.
		n8nEnv: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true', N8N_LOG_LEVEL: 'info' },
		// The contract's delivery policy (5 attempts, ten in flight) at half its spacing: 0.5, 1, 2 and 4 s apart (7.5 s
		// instead of 15). The suite waits out the service's retries about ten times a cell.
		sandbox: {
			sizes: { products: 100, orders: 150, customers: 20 },
			delivery: { attempts: 5, baseDelayMs: 500, timeoutMs: 10_000, concurrency: 10 },
		},
	});
}, 300_000);

afterAll(async () => {
	if (report.length)
		process.stdout.write(`\nCatch-up summary\n${report.map((l) => `  ${l}`).join('\n')}\n`);
	await env?.stop();
	await stopDatabaseReader();
}, 60_000);

/** What a change is, from an event's type and data: the test's own reading of "the same change", apart from the node's. */
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
 * `by`: what a change is (default changeOf; transitionOf where an order returns to a status). */
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

/** The workflow's executions once none is unfinished and their number stood still for a few seconds. */
export async function settled(workflowId: string, atLeast = 0) {
	let last = -1;
	let sameSince = Date.now();
	return await eventually(
		async () => {
			const all = await executionsOf(env.userFolder, workflowId);
			if (all.length !== last) [last, sameSince] = [all.length, Date.now()];
			const done = all.every((e) => !['new', 'running', 'waiting'].includes(e.status));
			return done && all.length >= atLeast && Date.now() - sameSince > 4_000 ? all : undefined;
		},
		`executions of ${workflowId} to settle`,
		240_000,
	);
}

export async function catchUpWorkflow(
	options: Record<string, unknown> = {},
	{ onError, events = KINDS }: { onError?: string; events?: string[] } = {},
) {
	const wf = await createWorkflow(env, {
		name: 'catch-up',
		nodes: [
			{
				id: 'catchup-trigger',
				name: TRIGGER,
				type: TYPES.trigger,
				typeVersion: 2,
				...(onError ? { onError } : {}),
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { events, options },
				credentials: { storefrontApi: { id: '', name: CREDENTIAL_NAME } },
			},
			{
				id: 'catchup-noop',
				name: 'Received',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		connections: { [TRIGGER]: { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
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

/** An order.updated by the transition it reports (`… → processing from shipped`): an order may reach a status twice. */
export const transitionOf = (type: string, data: any) =>
	`${changeOf(type, data)}${type === 'order.updated' ? ` from ${data?.previous_status}` : ''}`;

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

/** n8n's deduplication value of a claim (DeduplicationHelper.createValueHash: MD5, base64). */
export const claimHash = (value: string) => createHash('md5').update(value).digest('base64');

/**
 * The trigger node's row of n8n's processed_data table (primary key workflowId + context `n:<node id>`, value
 * {"mode":"entries","data":[hashes, oldest first]}), read and optionally appended to straight in n8n's SQLite
 * database, as bench/dedupe.js writes it: node:sqlite of the runtime's Node 24, in one transaction. Returns the
 * row's values after the call.
 */
export function processedRow(workflowId: string, nodeId: string, append: string[] = []): string[] {
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

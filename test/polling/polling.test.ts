/* eslint-disable @typescript-eslint/no-explicit-any, no-console, @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's internal REST API answers untyped JSON; the measured counts are printed; waits between polls */
// The Storefront Polling Trigger in a real n8n process (the matrix runs this suite in one cell per n8n line: it waits
// on n8n's poll schedule, here three polls a minute): activation is a baseline; a scheduled poll reports
// each kind once in the webhook shape; Fetch Test Event; n8n stopped while 200 orders and 50 status changes are made,
// then started: all of them once, in order; SIGKILL while a poll is reading: everything once after the restart; the
// poll after that reports nothing. Queue mode (only main polls) is in the queue suite. On E2E_PROFILE=spec-literal the
// records carry no updated_at: every poll reads each list whole, and a change found by comparing with the last poll
// (a status, a stock fall) is dated with the poll's time; each test states that profile's own expectation there.
import { api, type SandboxEvent } from '../helpers/sandbox';
import {
	CELL,
	CREATE_STATUS,
	createWorkflow,
	receivedBy,
	CREDENTIAL_NAME,
	eventually,
	idOf,
	POLL_EVERY_20_S,
	POLL_WAIT_MS,
	quietPollRequests,
	recordOf,
	rest,
	startEnvironment,
	TYPES,
	type Environment,
} from '../e2e/environment';

jest.setTimeout(300_000);

const TRIGGER = 'Storefront Polling Trigger';
const ALL = [
	'order.created',
	'order.updated',
	'payment.completed',
	'product.created',
	'inventory.low',
];

let env: Environment;

beforeAll(async () => {
	env = await startEnvironment('polling', {
		editor: false,
		sandbox: { sizes: { products: 300, orders: 150, customers: 40 } },
	});
	// The oracle is the sandbox's webhook events with contract row 16's data, which the polling trigger's items mirror on
	// every profile: the spec-literal profile's webhooks send the record instead (no previous_status, no payment_id).
	await env.sandbox.admin('PUT', '/compat', { event_data: 'contract' });
}, 300_000);

afterAll(async () => {
	await env?.stop();
}, 60_000);

/** The workflow's executions started by its polls (a manual Fetch Test Event is not one of them). */
const executionsOf = async (workflowId: string) =>
	(await env.client.allExecutions({ workflowId })).filter((e: any) => e.mode !== 'manual');
const outputOf = async (execution: any) =>
	rest.nodeOutput(await env.client.getExecution(execution.id), TRIGGER) ?? [];
const listRequests = async (path: string) =>
	((await env.sandbox.admin('GET', '/requests')).body as any[]).filter(
		(r) => r.method === 'GET' && r.path === path,
	);
const ordersRequests = async () => await listRequests('/v1/orders');
const productsRequests = async () => await listRequests('/v1/products');

const summary = (e: any) =>
	`${e.type} ${String(e.data.order_id ?? e.data.product_id)}${e.type === 'order.updated' ? ` ${e.data.previous_status}→${e.data.status}` : ''}`;

async function pollingWorkflow(events = ALL) {
	return await createWorkflow(
		env,
		receivedBy('polling e2e', {
			id: 'poll-trigger',
			name: TRIGGER,
			type: TYPES.poll,
			typeVersion: 1,
			position: [0, 0],
			parameters: { pollTimes: POLL_EVERY_20_S, events, options: {} },
			credentials: { storefrontApi: { id: '', name: CREDENTIAL_NAME } },
		}),
	);
}

/**
 * "Fetch Test Event": the editor runs the workflow manually up to the trigger (`destinationNode`; n8n 1.x also sends
 * the workflow in the body, 2.x runs the saved one). Resolves with the finished manual execution.
 */
async function fetchTestEvent(workflowId: string) {
	const destinationNode = { nodeName: TRIGGER, mode: 'inclusive' };
	const body =
		(await env.client.major()) >= 2
			? { destinationNode }
			: { workflowData: await env.client.getWorkflow(workflowId), destinationNode };
	const started = await env.client.request('POST', `/workflows/${workflowId}/run`, body);
	const executionId = String(started.executionId);
	return await eventually(async () => {
		const execution = await env.client.getExecution(executionId).catch(() => undefined);
		return execution &&
			execution.finished !== undefined &&
			execution.status !== 'running' &&
			execution.status !== 'new'
			? execution
			: undefined;
	}, 'the manual execution');
}

/** Every item the trigger emitted in the workflow's executions, oldest execution first (`batches`: one per execution). */
async function emitted(workflowId: string) {
	const executions = (await executionsOf(workflowId)).sort(
		(a: any, b: any) => Number(a.id) - Number(b.id),
	);
	const batches: any[][] = [];
	for (const execution of executions) batches.push(await outputOf(execution));
	return { executions, batches, items: batches.flat() };
}

const orderIds = (statusIn: string[]) =>
	[...env.sandbox.state.orders.values()]
		.filter((o) => statusIn.includes(String(o.status)))
		.map((o) => String(o.id));
const NEXT: Record<string, string> = {
	pending: 'processing',
	processing: 'shipped',
	shipped: 'delivered',
	delivered: 'refunded',
};

async function changeStatuses(ids: string[]) {
	for (const id of ids) {
		const next = NEXT[String(env.sandbox.state.orders.get(id)?.status)];
		const res = await api(env.sandbox, 'PUT', `/orders/${id}/status`, { status: next });
		if (res.status !== 200) throw new Error(`status change of ${id}: ${res.status}`);
	}
}
async function checkouts(count: number) {
	for (let i = 0; i < count; i++) {
		const res = await env.sandbox.admin('POST', '/simulate/checkout', {});
		if (res.status !== 201) throw new Error(`checkout: ${res.status} ${JSON.stringify(res.body)}`);
	}
}

/**
 * The items must be the sandbox's own webhook events since `from` (as a set; `unseen`: events this profile's polls
 * cannot see), each once, oldest first, the orders created in creation order. `batches`: the items per execution
 * (per poll). On spec-literal a change found by comparison (order.updated, inventory.low) has no updated_at to be
 * dated by: it carries its poll's time, one time for all such items of a poll.
 */
function expectSameChanges(
	batches: any[][],
	from: number,
	unseen: (event: SandboxEvent) => boolean = () => false,
) {
	const items = batches.flat();
	const expected = env.sandbox.events.slice(from).filter((event) => !unseen(event));
	expect(items.map(summary).sort()).toEqual(expected.map(summary).sort());
	expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
	// Each poll's items oldest first. Across polls too on contract, where updated_at dates every change; on
	// spec-literal a change found by comparison carries its poll's time, so a poll that ran while the changes were
	// being made can date one later than changes the next poll finds (seen in CI; none lost, none twice).
	const sortedTimes = (list: any[]) => {
		const times = list.map((i) => String(i.created_at));
		expect([...times].sort()).toEqual(times);
	};
	for (const batch of batches) sortedTimes(batch);
	if (CELL.profile !== 'spec-literal') sortedTimes(items);
	const createdOrders = (list: any[]) =>
		list.filter((e) => e.type === 'order.created').map((e) => String(e.data.order_id));
	expect(createdOrders(items)).toEqual(createdOrders(expected));
	for (const item of items)
		expect(Object.keys(item).sort()).toEqual(['created_at', 'data', 'id', 'type']);
	if (CELL.profile === 'spec-literal') {
		for (const batch of batches) {
			const compared = batch.filter(
				(i) => i.type === 'order.updated' || i.type === 'inventory.low',
			);
			if (compared.length === 0) continue;
			expect(new Set(compared.map((i) => String(i.created_at))).size).toBe(1);
		}
	}
	return expected;
}

/** The batches' items after the first `count` items (whole batches: a poll's items are never split by the counts). */
function batchesAfter(batches: any[][], count: number) {
	const after: any[][] = [];
	let seen = 0;
	for (const batch of batches) {
		if (seen >= count) after.push(batch);
		else if (seen + batch.length > count) throw new Error(`an execution straddles item ${count}`);
		seen += batch.length;
	}
	return after;
}

// Single process only: it stops and kills n8n. In queue mode the queue suite asserts that only main polls.
if (CELL.mode !== 'single')
	throw new Error('the polling suite runs on one n8n process (E2E_N8N_MODE=single)');

describe('one n8n process', () => {
	let wf: Awaited<ReturnType<typeof pollingWorkflow>>;

	test('activation is a baseline; a scheduled poll reports each kind once, in the webhook shape', async () => {
		await env.sandbox.admin('DELETE', '/requests');
		wf = await pollingWorkflow();
		// Activation polls at once (n8n; 2.x after its activation call has returned), reading the shop's newest
		// orders, then products: the baseline, which reports nothing. Changes start once it has read both.
		await eventually(
			async () =>
				(await ordersRequests()).length > 0 && (await productsRequests()).length > 0
					? true
					: undefined,
			'the activation poll',
		);
		await new Promise((resolve) => setTimeout(resolve, 1000));
		expect(await executionsOf(wf.id)).toHaveLength(0);

		const from = env.sandbox.events.length;
		const [pending, toPay] = orderIds(['pending']);
		await checkouts(1);
		await changeStatuses([pending]);
		expect((await env.sandbox.admin('POST', '/simulate/payment', { order_id: toPay })).status).toBe(
			200,
		);
		const product = await api(env.sandbox, 'POST', '/products', {
			name: 'Polled lamp',
			price: 20,
			stock: 30,
		});
		expect(product.status).toBe(CREATE_STATUS);
		const lampId = idOf(recordOf(product.json), 'product');
		await env.sandbox.admin('POST', '/simulate/stock', { product_id: lampId, stock: 2 });
		// A product the baseline saw above the threshold falls low: an inventory.low every profile's poll reports.
		const { products, threshold } = env.sandbox.state;
		const falling = [...products.values()].find((p) => p.id !== lampId && p.stock > threshold + 2);
		expect(
			(await env.sandbox.admin('POST', '/simulate/stock', { product_id: falling?.id, stock: 1 }))
				.status,
		).toBe(200);
		// The lamp, created and fallen low between two polls: on contract its updated_at after its created_at shows the
		// fall; on spec-literal nothing dates it, so the poll cannot tell it from a product created low (no inventory.low,
		// as with webhooks) and reports its creation only.
		const unseen = (event: SandboxEvent) =>
			CELL.profile === 'spec-literal' &&
			event.type === 'inventory.low' &&
			event.data.product_id === lampId;
		const expectedCount = env.sandbox.events.filter(
			(event, index) => index >= from && !unseen(event),
		).length;
		expect(expectedCount).toBeGreaterThanOrEqual(5);

		const { items, batches } = await eventually(
			async () => {
				const found = await emitted(wf.id);
				return found.items.length >= expectedCount ? found : undefined;
			},
			'the scheduled poll',
			POLL_WAIT_MS,
		);
		const expected = expectSameChanges(batches, from, unseen);
		expect(new Set(expected.map((e) => e.type))).toEqual(new Set(ALL));
		const payment = items.find((i) => i.type === 'payment.completed');
		expect(payment.data).toMatchObject({ order_id: toPay, payment_id: null, method: null });
		expect(items.find((i) => i.type === 'order.updated').data).toMatchObject({
			order_id: pending,
			previous_status: 'pending',
			status: 'processing',
		});
		console.log(
			`[polling ${CELL.line}] a scheduled poll: ${items.length} items (${[...new Set(items.map((i) => i.type))].join(', ')})`,
		);
	});

	test('Fetch Test Event (a manual run of the trigger, as the editor starts it) returns one realistic item and leaves the state alone', async () => {
		const before = (await env.client.getWorkflow(wf.id)).staticData;
		const execution = await fetchTestEvent(wf.id);
		const items = rest.nodeOutput(execution, TRIGGER) ?? [];
		expect(items).toHaveLength(1);
		const [item] = items;
		// The first chosen kind (order.created): the newest order, as that event.
		const newest = [...env.sandbox.state.orders.values()].sort((a, b) =>
			String(b.created_at).localeCompare(String(a.created_at)),
		)[0];
		expect(item).toMatchObject({
			type: 'order.created',
			id: `poll_order.created_${newest.id}_sample`,
			data: { order_id: newest.id, store_id: newest.store_id, total: newest.total },
		});
		expect(Object.keys(item).sort()).toEqual(['created_at', 'data', 'id', 'type']);
		expect(execution.mode).toBe('manual');
		expect((await env.client.getWorkflow(wf.id)).staticData).toEqual(before);
	});

	test('downtime, then SIGKILL during a poll: every change once, in order; the poll after that reports nothing', async () => {
		// 1. n8n stopped; 200 orders and 50 status changes on orders it knew before the stop; n8n started.
		const before = (await emitted(wf.id)).items.length;
		const from = env.sandbox.events.length;
		const known = orderIds(Object.keys(NEXT)).slice(0, 50);
		expect(known).toHaveLength(50);
		const { downMs } = await env.restart(60_000, {}, async () => {
			await checkouts(200);
			await changeStatuses(known);
		});
		const ordersExpected = env.sandbox.events
			.slice(from)
			.filter((e) => e.type.startsWith('order.'));
		expect(ordersExpected).toHaveLength(250);
		const afterDowntime = await eventually(
			async () => {
				const found = await emitted(wf.id);
				return found.items.length - before >= env.sandbox.events.length - from ? found : undefined;
			},
			'the first poll after the start',
			POLL_WAIT_MS,
		);
		const downtimeItems = afterDowntime.items.slice(before);
		expectSameChanges(batchesAfter(afterDowntime.batches, before), from);
		expect(downtimeItems.filter((i) => i.type.startsWith('order.'))).toHaveLength(250);

		// 2. Changes, then a poll killed while it reads (the sandbox answers GET /orders slowly), then a start.
		const fromCrash = env.sandbox.events.length;
		const beforeCrash = afterDowntime.items.length;
		await env.sandbox.admin('POST', '/faults', {
			type: 'slow',
			delay_ms: 10_000,
			path: '/v1/orders',
			method: 'GET',
			count: 3,
		});
		await checkouts(30);
		await changeStatuses(orderIds(['pending', 'processing']).slice(0, 10));
		await eventually(
			async () => {
				const [fault] = (await env.sandbox.admin('GET', '/faults')).body as any[];
				return fault && fault.remaining < 3 ? true : undefined;
			},
			'a scheduled poll reading orders',
			POLL_WAIT_MS,
		);
		await env.crashAndRestart(async () => {
			await env.sandbox.admin('DELETE', '/faults');
		});
		const afterCrash = await eventually(
			async () => {
				const found = await emitted(wf.id);
				return found.items.length - beforeCrash >= env.sandbox.events.length - fromCrash
					? found
					: undefined;
			},
			'the poll after the crash',
			POLL_WAIT_MS,
		);
		expectSameChanges(batchesAfter(afterCrash.batches, beforeCrash), fromCrash);

		// 3. The next scheduled poll finds nothing new: no execution. What it costs: one request per list (contract: page 1
		// already ends before the cursor), or every page of each list (spec-literal: without updated_at every record is
		// compared with what the last poll saw).
		await env.sandbox.admin('DELETE', '/requests');
		const quiet = {
			orders: quietPollRequests(env.sandbox.state.orders.size),
			products: quietPollRequests(env.sandbox.state.products.size),
		};
		await eventually(
			async () =>
				(await ordersRequests()).length >= quiet.orders &&
				(await productsRequests()).length >= quiet.products
					? true
					: undefined,
			'the next scheduled poll',
			POLL_WAIT_MS,
		);
		await new Promise((resolve) => setTimeout(resolve, 3000));
		expect({
			orders: (await ordersRequests()).length,
			products: (await productsRequests()).length,
		}).toEqual(quiet);
		const final = await emitted(wf.id);
		expect(final.items).toHaveLength(afterCrash.items.length);
		expect(final.executions).toHaveLength(afterCrash.executions.length);
		const ids = final.items.map((i) => i.id);
		expect(new Set(ids).size).toBe(ids.length);
		console.log(
			`[polling ${CELL.line}] downtime ${Math.round(downMs / 1000)} s: ${downtimeItems.length} items (250 order changes) once, in order; ` +
				`after SIGKILL during a poll: ${afterCrash.items.length - beforeCrash} items once; then a poll with nothing: 0 executions, ` +
				`${quiet.orders} + ${quiet.products} requests (${CELL.profile})`,
		);
	});
});

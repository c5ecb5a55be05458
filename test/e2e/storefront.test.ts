/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/require-node-api-error, @n8n/community-nodes/no-restricted-globals -- n8n's internal REST API answers untyped JSON; test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// End to end in a real n8n process against the sandbox over real HTTP. One n8n for the whole file (starting one
// takes ~10 s). Which n8n line and install path is the matrix cell (environment.ts CELL; scripts/matrix.js runs
// them all). Needs `npm run build` and `npm run n8n:prepare` first (.ci/run does both).
import { createHmac, randomUUID } from 'crypto';

import { EVENT_KINDS } from '../../nodes/shared/constants';
import { api, request } from '../helpers/sandbox';
import {
	CELL,
	CREATE_STATUS,
	createWorkflow,
	receivedBy,
	CREDENTIAL_NAME,
	eventually,
	idOf,
	instance,
	listedIds,
	recordOf,
	registerWebhook,
	rest,
	startEnvironment,
	triggerNode,
	TYPES,
	type Environment,
} from './environment';

jest.setTimeout(120_000);

/**
 * The install project (the matrix's custom-folder and registry cells) runs what depends on how n8n got the package:
 * its nodes, tool variant, credential type and icons as n8n lists them, and a real workflow of them. The rest of the
 * suite does not, and runs in the community-package cells, once per n8n line.
 */
const INSTALL_CHECKS_ONLY = process.env.E2E_SCOPE === 'install';
const beyondInstall = (name: string, tests: () => void) =>
	INSTALL_CHECKS_ONLY ? undefined : describe(name, tests);

let env: Environment;

beforeAll(async () => {
	env = await startEnvironment('e2e');
}, 300_000);

afterAll(async () => {
	await env?.stop();
}, 60_000);

const sign = (body: string, secret = env.sandbox.webhookSecret) =>
	`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const executionsOf = async (workflowId: string) =>
	(await env.client.listExecutions({ workflowId, limit: 100 })).results;

/** An active "Storefront Trigger → No Op" workflow registered as the sandbox's webhook: deliveries only (no catch-up). */
async function triggerWorkflow(events: string[]) {
	const wf = await createWorkflow(
		env,
		receivedBy('e2e trigger', triggerNode(events, { catchUp: false })),
	);
	await registerWebhook(env, wf.url);
	return wf;
}

/** A product that can be bought `quantity` times without crossing the low-stock threshold. */
function productFor({ minPrice = 0, maxPrice = Infinity, quantity = 1 } = {}) {
	const { products, threshold } = env.sandbox.state;
	const product = [...products.values()].find(
		(p) =>
			p.status === 'active' &&
			p.price >= minPrice &&
			p.price <= maxPrice &&
			p.stock - quantity > threshold + 2,
	);
	if (!product) throw new Error('no suitable product in the sandbox');
	return product;
}

/**
 * A GET as a browser makes it: tried once more when the kept-alive connection it reused was closed under it by n8n
 * ("other side closed", seen once on 1.123.81 while fetching the icons).
 */
async function get(url: string) {
	try {
		return await fetch(url);
	} catch (error) {
		if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
		return await fetch(url);
	}
}

describe('the package in n8n', () => {
	it('lists the three nodes, the AI tool variant of the action node and the credential type, with their icons', async () => {
		const types = await env.client.nodeTypes();
		const ours = new Map(
			types
				.filter((t) => t.name.startsWith(`${TYPES.action.split('.')[0]}.`))
				.map((t) => [t.name, t]),
		);
		expect([...ours.keys()].sort()).toEqual(
			[TYPES.action, TYPES.poll, TYPES.tool, TYPES.trigger].sort(),
		);
		expect(ours.get(TYPES.action).displayName).toBe('Storefront');
		expect(ours.get(TYPES.trigger).group).toContain('trigger');
		// n8n adds its Poll Times parameter to a polling node: the schedule the user picks.
		expect(ours.get(TYPES.poll)).toMatchObject({
			displayName: 'Storefront Polling Trigger',
			polling: true,
			group: ['trigger'],
		});
		expect(ours.get(TYPES.tool).outputs).toEqual(['ai_tool']);

		for (const type of ours.values()) {
			for (const iconPath of [type.iconUrl.light, type.iconUrl.dark]) {
				const icon = await get(`${env.n8nUrl}/${iconPath}`);
				expect(icon.status).toBe(200);
				expect(icon.headers.get('content-type')).toMatch(/image\/svg\+xml/);
				expect(await icon.text()).toMatch(/<svg/);
			}
		}

		const credentials = await env.client.credentialTypes();
		const credential = credentials.find((c) => c.name === TYPES.credential);
		// n8n appends its own properties (allowed domains) to every credential type.
		expect(credential.properties.map((p: any) => p.name).slice(0, 3)).toEqual([
			'baseUrl',
			'apiKey',
			'webhookSecret',
		]);
	});

	it("answers n8n's credential test with success for the sandbox key and failure for a wrong one", async () => {
		const good = await env.client.testCredential({
			id: env.credential.id,
			name: CREDENTIAL_NAME,
			type: TYPES.credential,
			data: env.credentialData,
		});
		expect(good.status).toBe('OK');

		const wrongKey = 'sf_test_not_a_key';
		const bad = await env.client.testCredential({
			id: env.credential.id,
			name: CREDENTIAL_NAME,
			type: TYPES.credential,
			data: { ...env.credentialData, apiKey: wrongKey },
		});
		expect(bad.status).toBe('Error');
		// n8n 2.x applies the credential's rule for a 401 (it would say only "Unauthorized"); n8n 1.x answers a 401
		// with its own words before any rule is looked at.
		expect(bad.message).toContain(
			CELL.line === '1'
				? 'Authorization failed - please check your credentials'
				: 'Storefront refused the API key (401 Unauthorized)',
		);
		expect(bad.message).not.toContain(wrongKey);
		// A base URL without the API version: the 404 rule says what the URL must look like.
		const noVersion = await env.client.testCredential({
			id: env.credential.id,
			name: CREDENTIAL_NAME,
			type: TYPES.credential,
			data: { ...env.credentialData, baseUrl: env.credentialData.baseUrl.replace(/\/v1$/, '') },
		});
		const notFound =
			CELL.line === '1'
				? 'The resource you are requesting could not be found'
				: 'No Storefront API at this Base URL (404 Not Found)';
		expect(noVersion).toMatchObject({
			status: 'Error',
			message: expect.stringContaining(notFound),
		});
		// The sandbox saw the wrong key and refused it (the failure came from the service, not from n8n).
		const { body: log } = await env.sandbox.admin('GET', '/requests');
		expect(log.some((r: any) => r.status === 401)).toBe(true);
	});

	it("searches the order and product pickers (resource locator 'From list') through n8n's own endpoint", async () => {
		const credentials = { storefrontApi: { id: env.credential.id, name: env.credential.name } };
		const search = (
			methodName: string,
			parameter: string,
			resource: string,
			filter?: string,
			paginationToken?: string,
		) =>
			env.client.resourceLocatorResults({
				nodeType: TYPES.action,
				version: 1,
				methodName,
				parameter,
				parameters: { resource, operation: 'get' },
				credentials,
				filter,
				paginationToken,
			});

		const { orders, products } = env.sandbox.state;
		const firstPage = await search('searchOrders', 'orderId', 'order');
		expect(firstPage.results.length).toBeGreaterThan(0);
		// The first page (100) in the API's list order (most recently changed first, docs/api-contract.md row 21; oldest
		// first on spec-literal), each value the order's id (`id`, or `order_id` on spec-literal).
		expect(firstPage.results.map((r) => r.value)).toEqual(listedIds(orders.values()).slice(0, 100));
		const pending = await search('searchOrders', 'orderId', 'order', 'pending');
		expect(pending.results.length).toBe(
			[...orders.values()].filter((o) => o.status === 'pending').length,
		);

		// Products: 250 in the sandbox, 100 a page: the editor follows the pagination token to the end.
		const seen: string[] = [];
		let token: string | undefined;
		do {
			const page = await search('searchProducts', 'productId', 'product', undefined, token);
			seen.push(...page.results.map((r) => r.value));
			token = page.paginationToken;
		} while (token);
		expect(new Set(seen).size).toBe(products.size);
	});
});

describe('order intake (examples/order-intake.json) in an active workflow', () => {
	let intake: Awaited<ReturnType<typeof createWorkflow>>;

	beforeAll(async () => {
		intake = await createWorkflow(env, instance.loadExample('order-intake.json'));
		await registerWebhook(env, intake.url);
	});

	it('receives the signed order.created and the sandbox then shows the order as processing', async () => {
		const product = productFor({ maxPrice: 200 });
		const { body: order } = await env.sandbox.admin('POST', '/simulate/checkout', {
			items: [{ product_id: product.id, quantity: 1 }],
		});
		expect(order.status).toBe('pending');

		// The whole loop, checked on the service's side: n8n read the order and changed its status.
		const updated = await eventually(async () => {
			const res = await api(env.sandbox, 'GET', `/orders/${order.id}`);
			return recordOf(res.json).status === 'processing' ? recordOf(res.json) : undefined;
		}, `order ${order.id} to become processing`);
		expect(idOf(updated, 'order')).toBe(order.id);

		const [execution] = await instance.waitForExecutions(
			env.client,
			intake.id,
			(list) => list.length >= 1,
		);
		expect(execution.status).toBe('success');
		const details = await env.client.getExecution(execution.id);
		expect(rest.nodeOutput(details, 'On Order Created')).toHaveLength(1);
		expect(rest.nodeOutput(details, 'On Order Created')?.[0].data.order_id).toBe(order.id);
		// The node passes the record on as the API shows it (its id under `id`, or `order_id` on spec-literal).
		const marked = rest.nodeOutput(details, 'Mark Processing')?.[0];
		expect({ id: idOf(marked, 'order'), status: marked.status }).toEqual({
			id: order.id,
			status: 'processing',
		});
	});

	it('leaves an order over the review limit pending and flags it', async () => {
		const product = productFor({ minPrice: 100 });
		const quantity = Math.ceil(1000 / product.price) + 1;
		const before = (await executionsOf(intake.id)).length;
		const { body: order } = await env.sandbox.admin('POST', '/simulate/checkout', {
			items: [{ product_id: product.id, quantity }],
		});
		expect(order.total).toBeGreaterThanOrEqual(1000);
		const list = await instance.waitForExecutions(
			env.client,
			intake.id,
			(l) => l.length === before + 1,
		);
		const details = await env.client.getExecution(list[0].id);
		const flagged = rest.nodeOutput(details, 'Flag For Review')?.[0];
		expect({ id: idOf(flagged, 'order'), status: flagged.status }).toEqual({
			id: order.id,
			status: 'pending',
		});
		expect(rest.nodeOutput(details, 'Mark Processing')).toBeUndefined();
		expect(env.sandbox.state.orders.get(order.id)?.status).toBe('pending');
	});

	it('acknowledges each delivery at once with 200 {"received": true}', async () => {
		await env.sandbox.idle();
		const delivered = env.sandbox.deliveries.filter((d) => d.url === intake.url);
		expect(delivered.filter((d) => d.type === 'order.created').length).toBeGreaterThanOrEqual(2);
		for (const delivery of delivered) {
			expect(delivery.status).toBe('delivered');
			const last = delivery.attempts[delivery.attempts.length - 1];
			expect(last.status).toBe(200);
			// The workflow's own status change makes the sandbox send order.updated too: acknowledged, not run.
			const ack =
				delivery.type === 'order.created'
					? { received: true }
					: { received: true, skipped: 'event_type_not_selected' };
			expect(JSON.parse(last.response ?? '')).toEqual(ack);
		}
	});

	it('stops running the workflow once it is deactivated: deliveries fail, no execution, order stays pending', async () => {
		await instance.deactivate(env.client, intake.id, intake.url);
		const before = (await executionsOf(intake.id)).length;
		const product = productFor({ maxPrice: 200 });
		const { body: order } = await env.sandbox.admin('POST', '/simulate/checkout', {
			items: [{ product_id: product.id, quantity: 1 }],
		});
		const event = env.sandbox.events.find(
			(e) => e.type === 'order.created' && e.data.order_id === order.id,
		);
		expect(event).toBeDefined();
		// Every attempt (2 in this suite) reached n8n and was refused as an unknown webhook.
		const delivery = await eventually(
			() => env.sandbox.deliveries.find((d) => d.event_id === event?.id && d.status === 'failed'),
			'the delivery to give up',
		);
		expect(delivery.attempts.map((a) => a.status)).toEqual([404, 404]);
		expect((await executionsOf(intake.id)).length).toBe(before);
		expect(env.sandbox.state.orders.get(order.id)?.status).toBe('pending');
	});
});

beyondInstall('the other examples', () => {
	it('low-stock alert: a product that runs out is hidden from the shop, one running low raises a restock alert', async () => {
		const lowStock = await createWorkflow(env, instance.loadExample('low-stock-alert.json'));
		await registerWebhook(env, lowStock.url);
		const [soldOut, runningLow] = [...env.sandbox.state.products.values()].filter(
			(p) => p.status === 'active' && p.stock > env.sandbox.state.threshold + 2,
		);
		await env.sandbox.admin('POST', '/simulate/stock', { product_id: soldOut.id, stock: 0 });
		await env.sandbox.admin('POST', '/simulate/stock', { product_id: runningLow.id, stock: 2 });

		await eventually(
			() => (env.sandbox.state.products.get(soldOut.id)?.status === 'draft' ? true : undefined),
			'the sold-out product to become draft',
		);
		const executions = await instance.waitForExecutions(
			env.client,
			lowStock.id,
			(l) => l.length === 2,
		);
		const alerts = [];
		for (const execution of executions) {
			expect(execution.status).toBe('success');
			alerts.push(
				...(rest.nodeOutput(await env.client.getExecution(execution.id), 'Restock Alert') ?? []),
			);
		}
		expect(alerts).toHaveLength(1);
		expect({ id: idOf(alerts[0], 'product'), stock: alerts[0].stock }).toEqual({
			id: runningLow.id,
			stock: 2,
		});
		expect(alerts[0].alert).toContain(runningLow.sku);
		expect(env.sandbox.state.products.get(runningLow.id)?.status).toBe('active');
	});

	it('analytics summary: imports and activates (its schedule trigger is accepted by n8n)', async () => {
		const summary = await createWorkflow(env, instance.loadExample('analytics-summary.json'));
		const stored = await env.client.getWorkflow(summary.id);
		expect(stored.active).toBe(true);
		expect(stored.nodes.map((n: any) => n.type)).toEqual([
			'n8n-nodes-base.scheduleTrigger',
			TYPES.action,
			'n8n-nodes-base.set',
		]);
		await instance.deactivate(env.client, summary.id);
	});
});

beyondInstall('Storefront Trigger deliveries', () => {
	let wf: Awaited<ReturnType<typeof triggerWorkflow>>;

	beforeAll(async () => {
		wf = await triggerWorkflow(['*']);
	});

	it('turns every event kind the sandbox emits into exactly one item of one execution', async () => {
		const firstEvent = env.sandbox.events.length;
		const product = productFor({ maxPrice: 200 });
		const { body: order } = await env.sandbox.admin('POST', '/simulate/checkout', {
			items: [{ product_id: product.id, quantity: 1 }],
		}); // order.created
		expect(
			(await api(env.sandbox, 'PUT', `/orders/${order.id}/status`, { status: 'processing' }))
				.status,
		).toBe(200); // order.updated
		expect(
			(await env.sandbox.admin('POST', '/simulate/payment', { order_id: order.id })).status,
		).toBe(200); // payment.completed
		expect(
			(await api(env.sandbox, 'POST', '/products', { name: 'E2E Mug', price: 9.5, stock: 40 }))
				.status,
		).toBe(CREATE_STATUS); // product.created
		const other = productFor({ quantity: 1 });
		expect(
			(await env.sandbox.admin('POST', '/simulate/stock', { product_id: other.id, stock: 1 }))
				.status,
		).toBe(200); // inventory.low
		await env.sandbox.idle();

		const emitted = env.sandbox.events.slice(firstEvent);
		expect(emitted.map((e) => e.type).sort()).toEqual(EVENT_KINDS.map((k) => k.value).sort());
		for (const event of emitted) {
			const delivery = env.sandbox.deliveries.find((d) => d.event_id === event.id);
			expect(delivery?.status).toBe('delivered');
		}

		const executions = await instance.waitForExecutions(
			env.client,
			wf.id,
			(l) => l.length === emitted.length,
		);
		const items: any[] = [];
		for (const execution of executions) {
			expect(execution.status).toBe('success');
			const output =
				rest.nodeOutput(await env.client.getExecution(execution.id), 'Storefront Trigger') ?? [];
			expect(output).toHaveLength(1);
			items.push(output[0]);
		}
		const byId = new Map(items.map((item) => [item.id, item]));
		for (const event of emitted) {
			expect(byId.get(event.id)).toMatchObject({
				id: event.id,
				type: event.type,
				created_at: event.created_at,
				data: event.data,
			});
		}
	});

	it('answers forged and unsigned deliveries with 401 and runs nothing: the first is one failed execution that passes nothing on, the others none', async () => {
		const before = (await executionsOf(wf.id)).length;
		const event = {
			id: `evt_e2e_${randomUUID()}`,
			type: 'order.created',
			created_at: new Date().toISOString(),
			data: { order_id: 'ord_00001' },
		};
		const body = JSON.stringify(event);
		const attempts: Array<[string, Record<string, string>, string]> = [
			['no signature', {}, body],
			[
				'signed with another secret',
				{ 'X-Service-Signature': sign(body, 'whsec_someone_else') },
				body,
			],
			[
				'body changed after signing',
				{ 'X-Service-Signature': sign(body) },
				body.replace('ord_00001', 'ord_00002'),
			],
			[
				're-serialised JSON signed',
				{ 'X-Service-Signature': sign(JSON.stringify(event, null, 1)) },
				body,
			],
			['no sha256= prefix', { 'X-Service-Signature': sign(body).slice('sha256='.length) }, body],
			['empty digest', { 'X-Service-Signature': 'sha256=' }, body],
		];
		for (const [label, headers, payload] of attempts) {
			const res = await request('POST', wf.url, {
				headers: { 'Content-Type': 'application/json', ...headers },
				body: payload,
			});
			expect({ label, status: res.status }).toEqual({ label, status: 401 });
			expect(res.text).not.toContain(env.sandbox.webhookSecret);
		}

		// A genuine delivery afterwards: once its execution is listed, any execution the forged ones had
		// started would be listed too.
		const genuine = { ...event, id: `evt_e2e_${randomUUID()}` };
		const genuineBody = JSON.stringify(genuine);
		const ok = await request('POST', wf.url, {
			headers: { 'Content-Type': 'application/json', 'X-Service-Signature': sign(genuineBody) },
			body: genuineBody,
		});
		expect(ok.status).toBe(200);
		const after = await instance.waitForExecutions(
			env.client,
			wf.id,
			(l) => l.length >= before + 2,
		);
		// Newest first: the genuine delivery's run, then the report of the first refusal (a trigger node reports its
		// first refusal as a failed execution, then at most one per 20 minutes; the others are in n8n's log only).
		expect(after).toHaveLength(before + 2);
		const newest = await env.client.getExecution(after[0].id);
		expect(rest.nodeOutput(newest, 'Storefront Trigger')?.map((i) => i.id)).toEqual([genuine.id]);
		expect(after[1].status).toBe('error');
		const refusal = await env.client.getExecution(after[1].id);
		expect(rest.nodeOutput(refusal, 'Received')).toBeUndefined();
		expect(JSON.stringify(refusal)).not.toContain(env.sandbox.webhookSecret);
	});
});

beyondInstall('the action node run by n8n', () => {
	/** "Webhook (answers with the last node's items) → …nodes" */
	async function webhookWorkflow(name: string, nodes: any[]) {
		const path = `e2e-${randomUUID()}`;
		const chain = [
			{
				id: 'e2e-webhook',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path,
					responseMode: 'lastNode',
					responseData: 'allEntries',
					options: {},
				},
			},
			...nodes.map((node, i) => ({ position: [220 * (i + 1), 0], ...node })),
		];
		const connections: Record<string, any> = {};
		for (let i = 0; i < chain.length - 1; i++) {
			connections[chain[i].name] = {
				main: [[{ node: chain[i + 1].name, type: 'main', index: 0 }]],
			};
		}
		return createWorkflow(env, {
			name,
			nodes: chain,
			connections,
			settings: { executionOrder: 'v1' },
		});
	}

	const storefrontNode = (
		name: string,
		parameters: Record<string, unknown>,
		extra: Record<string, unknown> = {},
	) => ({
		id: `e2e-${name}`,
		name,
		type: TYPES.action,
		typeVersion: 1,
		parameters,
		credentials: { storefrontApi: { id: env.credential.id, name: env.credential.name } },
		...extra,
	});

	it('Get Many with Return All walks every page at the largest page size', async () => {
		const wf = await webhookWorkflow('e2e get many', [
			storefrontNode('Get Products', {
				resource: 'product',
				operation: 'getAll',
				returnAll: true,
				filters: {},
			}),
		]);
		await env.sandbox.admin('DELETE', '/requests');
		const res = await request('POST', wf.url, { body: {} });
		expect(res.status).toBe(200);

		// Every product exactly once; the order (row 21) is checked by the unit suites (test/node/pagination.test.ts).
		const expected = [...env.sandbox.state.products.keys()].sort();
		const ids = (res.json as any[]).map((p) => idOf(p, 'product'));
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids.sort()).toEqual(expected);

		const { body: log } = await env.sandbox.admin('GET', '/requests');
		const pages = log.filter((r: any) => r.method === 'GET' && r.path.endsWith('/products'));
		expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(expected.length / 100));
		expect(pages.length).toBeLessThanOrEqual(Math.ceil(expected.length / 100) + 1);
		expect(pages.every((r: any) => String(r.query.limit) === '100')).toBe(true);

		const [execution] = await instance.waitForExecutions(env.client, wf.id, (l) => l.length === 1);
		expect(execution.status).toBe('success');
	});

	it('with continue-on-fail turns a failing item into an error item and goes on with the others', async () => {
		const wf = await webhookWorkflow('e2e continue on fail', [
			{
				id: 'e2e-split',
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				parameters: { fieldToSplitOut: 'body.orders', options: {} },
			},
			storefrontNode(
				'Get Order',
				{
					resource: 'order',
					operation: 'get',
					orderId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				},
				{ onError: 'continueRegularOutput' },
			),
		]);
		const [first, second] = [...env.sandbox.state.orders.keys()];
		const res = await request('POST', wf.url, {
			body: { orders: [{ id: first }, { id: 'ord_99999' }, { id: second }] },
		});
		expect(res.status).toBe(200);
		const items = res.json as any[];
		expect(items).toHaveLength(3);
		expect(idOf(items[0], 'order')).toBe(first);
		expect(idOf(items[2], 'order')).toBe(second);
		expect(items[1].error).toEqual(expect.any(String));
		expect(JSON.stringify(items[1])).toMatch(/404|not found/i);
		expect(JSON.stringify(items)).not.toContain(env.sandbox.apiKey);

		const [execution] = await instance.waitForExecutions(env.client, wf.id, (l) => l.length === 1);
		expect(execution.status).toBe('success');
		const runs = rest.runData(await env.client.getExecution(execution.id))['Get Order'];
		const output = runs[0].data?.main[0] ?? [];
		expect(output.map((item: any) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});

	it('without continue-on-fail fails the execution with the API error', async () => {
		const wf = await webhookWorkflow('e2e stop on fail', [
			storefrontNode('Get Order', {
				resource: 'order',
				operation: 'get',
				orderId: { __rl: true, mode: 'id', value: 'ord_99999' },
			}),
		]);
		const res = await request('POST', wf.url, { body: {} });
		expect(res.status).toBeGreaterThanOrEqual(500);
		const [execution] = await instance.waitForExecutions(env.client, wf.id, (l) => l.length === 1);
		expect(execution.status).toBe('error');
		const runs = rest.runData(await env.client.getExecution(execution.id))['Get Order'];
		expect(runs[0].error?.httpCode ?? runs[0].error?.context?.httpCode).toBe('404');
		expect(JSON.stringify(runs[0].error)).not.toContain(env.sandbox.apiKey);
	});
});

// Last in the file: it restarts n8n (same port, user folder and database).
beyondInstall("Drop Duplicate Events across a restart (n8n's database)", () => {
	it('a redelivery of an event that ran is acknowledged after n8n restarts, and its run passes nothing on', async () => {
		const wf = await triggerWorkflow(['*']);
		const event = {
			id: `evt_e2e_${randomUUID()}`,
			type: 'order.created',
			created_at: new Date().toISOString(),
			data: { order_id: 'ord_00001' },
		};
		const body = JSON.stringify(event);
		const deliver = () =>
			request('POST', wf.url, {
				headers: { 'Content-Type': 'application/json', 'X-Service-Signature': sign(body) },
				body,
			});
		expect((await deliver()).json).toEqual({ received: true });
		const [first] = await instance.waitForExecutions(
			env.client,
			wf.id,
			(l) => l.length === 1 && l[0].status === 'success',
		);
		expect(
			rest
				.nodeOutput(await env.client.getExecution(first.id), 'Storefront Trigger')
				?.map((i) => i.id),
		).toEqual([event.id]);

		if (env.queue) {
			// The queue-mode cell runs its processes as a topology (no single-process restart): there a redelivery to
			// the same webhook processor is answered from its memory; other processors are the queue suite's part.
			expect((await deliver()).json).toEqual({ received: true, skipped: 'duplicate_event' });
			return;
		}
		await env.restart();
		// The restarted process's memory is empty: it accepts the delivery, and the run finds the event in the database.
		expect((await deliver()).json).toEqual({ received: true });
		const executions = await instance.waitForExecutions(
			env.client,
			wf.id,
			(l) => l.length === 2 && l.every((e) => e.status === 'success'),
		);
		const second = executions.find((e) => e.id !== first.id);
		expect(rest.nodeOutput(await env.client.getExecution(second.id), 'Storefront Trigger')).toEqual(
			[],
		);
		expect(rest.nodeOutput(await env.client.getExecution(second.id), 'Received')).toBeUndefined();
	});
});

/* eslint-disable @typescript-eslint/no-explicit-any, no-console -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; n8n's REST API and the model's requests are untyped JSON; the test prints its measurement */
// The Storefront node as an AI Agent's tool, end to end in a real n8n (the matrix cell: environment.ts CELL): a
// Webhook → AI Agent workflow whose chat model is n8n's own OpenAI Chat Model node pointed at a scripted,
// OpenAI-compatible model on loopback (test/helpers/scriptedModel.ts), with Storefront tool nodes whose inputs come
// from `$fromAI()`. The scripted model decides each turn from what n8n sent it (the tool results so far), as a real
// model would, and records every request: so the tests assert exactly which tools, descriptions and input schemas a
// model is shown, what each tool call returned to it, and what happened at the service. Both of the model node's
// API formats run: Chat Completions and the Responses API (the default of OpenAI Chat Model 1.3).
import { randomUUID } from 'crypto';

import { api } from '../helpers/sandbox';
import {
	startScriptedModel,
	type ModelTurn,
	type RecordedRequest,
	type ScriptedModel,
} from '../helpers/scriptedModel';
import {
	CELL,
	createWorkflow,
	CREDENTIAL_NAME,
	errorMessageOf,
	eventually,
	ID_KEY,
	idOf,
	instance,
	listOf,
	report,
	rest,
	startEnvironment,
	type Environment,
} from '../e2e/environment';

jest.setTimeout(180_000);

let env: Environment;
let model: ScriptedModel;
let modelCredential: { id: string; name: string };

beforeAll(async () => {
	model = await startScriptedModel();
	// 600 orders: more than 50 pending, so a list tool's default page is full.
	env = await startEnvironment('ai', { editor: false, sandbox: { sizes: { orders: 600 } } });
	const created = await env.client.createCredential({
		name: 'Scripted model',
		type: 'openAiApi',
		data: { apiKey: 'sk-scripted-model-key', url: model.baseUrl },
	});
	modelCredential = { id: String(created.id), name: 'Scripted model' };
}, 300_000);

afterAll(async () => {
	await env?.stop();
	await model?.stop();
}, 60_000);

/** `$fromAI()` as the editor writes it for a parameter the model fills. */
const fromAI = (
	key: string,
	description: string,
	type: 'string' | 'number' | 'boolean' | 'json' = 'string',
) => `={{ $fromAI('${key}', '${description}', '${type}') }}`;
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** The Storefront tool nodes the agent gets, by node name (the model sees the name with `_` for spaces). */
const TOOLS: Record<string, Record<string, unknown>> = {
	'Get Order': {
		resource: 'order',
		operation: 'get',
		orderId: byId(fromAI('order_id', 'The order id, like ord_00001')),
	},
	'Set Order Status': {
		resource: 'order',
		operation: 'updateStatus',
		orderId: byId(fromAI('order_id', 'The order id, like ord_00001')),
		status: fromAI('status', 'The new status'),
	},
	// Default settings apart from the status filter: what a list returns to a model unless the user changes it.
	'List Orders': {
		resource: 'order',
		operation: 'getAll',
		filters: { status: fromAI('status', 'Only orders in this status') },
	},
	'Find Products': {
		resource: 'product',
		operation: 'getAll',
		limit: fromAI('limit', 'How many products at most', 'number'),
		filters: { search: fromAI('search', 'Text to look for in name, SKU or description') },
	},
	'Set Product Price': {
		resource: 'product',
		operation: 'update',
		productId: byId(fromAI('product_id', 'The product id, like prod_00001')),
		updateFields: { price: fromAI('price', 'The new price', 'number') },
	},
};

const toolName = (nodeName: string) => nodeName.replace(/ /g, '_');

/**
 * Webhook "ask" → AI Agent (OpenAI Chat Model + the Storefront tools), created and activated by the e2e suite's
 * createWorkflow (the cell's node types, the Storefront credential); the webhook answers with the agent's output.
 */
async function agentWorkflow(api: 'chat' | 'responses') {
	const tools = Object.entries(TOOLS).map(([name, parameters], index) => ({
		id: `ai-tool-${index}`,
		name,
		type: 'n8n-nodes-storefront.storefrontTool',
		typeVersion: 1,
		position: [200 + index * 140, 260],
		parameters,
		credentials: { storefrontApi: { id: '', name: CREDENTIAL_NAME } },
	}));
	return await createWorkflow(env, {
		name: `ai agent ${api}`,
		nodes: [
			{
				id: 'ai-ask',
				name: 'Ask',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path: `ask-${randomUUID()}`,
					responseMode: 'lastNode',
					options: {},
				},
			},
			{
				id: 'ai-agent',
				name: 'Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				// The default version of each line: 3.1 on n8n 2.x, 3 on 1.123.
				typeVersion: CELL.line === '1' ? 3 : 3.1,
				position: [220, 0],
				parameters: {
					promptType: 'define',
					text: '={{ $json.body.question }}',
					options: { systemMessage: 'You help run a Storefront shop. Use the tools.' },
				},
			},
			{
				id: 'ai-model',
				name: 'OpenAI Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.3,
				position: [60, 260],
				parameters: {
					model: byId('gpt-4o-mini'),
					responsesApiEnabled: api === 'responses',
					options: {},
				},
				credentials: { openAiApi: modelCredential },
			},
			...tools,
		],
		connections: {
			Ask: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': {
				ai_languageModel: [[{ node: 'Agent', type: 'ai_languageModel', index: 0 }]],
			},
			...Object.fromEntries(
				tools.map((tool) => [
					tool.name,
					{ ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
				]),
			),
		},
		settings: { executionOrder: 'v1' },
	});
}

/** Ask the agent; the answer is the webhook's response (the agent's output). */
async function ask(url: string, question: string) {
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ question }),
	});
	const text = await res.text();
	let body: any = text;
	try {
		body = JSON.parse(text);
	} catch {
		// not JSON: kept as text for the assertion message
	}
	return { status: res.status, body };
}

/** What a tool call returned to the model, parsed: n8n sends the tool node's output items as a JSON array. */
const parsed = (content: string) => JSON.parse(content);

/**
 * The last execution of a workflow, with its run data. n8n may answer the webhook a moment before it lists the run as
 * finished: waits for that, never reads the list once right after the answer.
 */
async function lastExecution(workflowId: string) {
	let results: any[] = [];
	await eventually(async () => {
		({ results } = await env.client.listExecutions({ workflowId, limit: 1 }));
		return results.length === 1 && !['new', 'running', 'waiting'].includes(results[0].status)
			? true
			: undefined;
	}, `the last execution of ${workflowId} to be listed as finished`).catch((error: Error) => {
		throw new Error(`${error.message}; listed ${JSON.stringify(results)}`);
	});
	expect(results).toHaveLength(1);
	const execution = await env.client.getExecution(results[0].id);
	return { execution, runData: rest.runData(execution) };
}

const statusChanges = (orderId: string) =>
	env.sandbox.events.filter(
		(event) => event.type === 'order.updated' && event.data.order_id === orderId,
	).length;

/** An order id in a given status, from the sandbox's own state. */
function orderIn(status: string, skip = 0) {
	const orders = [...env.sandbox.state.orders.values()].filter((order) => order.status === status);
	if (orders.length <= skip) throw new Error(`no ${status} order in the sandbox`);
	return String(orders[skip].id);
}

/** Everything a tool result must never contain: the credentials and request metadata. */
function expectNothingSecret(content: string) {
	for (const secret of [env.sandbox.apiKey, env.sandbox.webhookSecret])
		expect(content).not.toContain(secret);
	expect(content).not.toMatch(/authorization|bearer|headers|x-ratelimit|pagination/i);
}

describe.each(['chat', 'responses'] as const)(
	'an AI Agent with Storefront tools (%s API)',
	(format) => {
		let workflow: { id: string; url: string };
		const requests = () => model.requests.filter((request) => request.api === format);

		beforeAll(async () => {
			workflow = await agentWorkflow(format);
		});

		beforeEach(() => model.reset());

		it('shows the model one tool per tool node, each described for a model, with typed $fromAI inputs', async () => {
			model.setScript(() => ({ text: 'Ready.' }));
			const answer = await ask(workflow.url, 'Which tools do you have?');
			expect(answer).toEqual({ status: 200, body: { output: 'Ready.' } });
			expect(requests()).toHaveLength(1);
			const [request] = requests();
			expect(request.userText).toContain('Which tools do you have?');

			const tools = new Map(request.tools.map((tool) => [tool.name, tool]));
			expect([...tools.keys()].sort()).toEqual(Object.keys(TOOLS).map(toolName).sort());
			const description = (name: string) => String(tools.get(name)?.description);
			// What the operation does, what it needs and what it returns; never n8n's bare "<action> in Storefront".
			expect(description('Get_Order')).toMatch(
				/^Get one order .* by its id \(like ord_00001\)\. Returns the order: id, status/,
			);
			expect(description('Set_Order_Status')).toContain(
				'Allowed moves only: pending → processing or cancelled; processing → shipped or cancelled; shipped → delivered; delivered → refunded.',
			);
			expect(description('Set_Order_Status')).toMatch(/refused with a 409 error/);
			expect(description('List_Orders')).toMatch(/at most Limit orders \(default 50\)/);
			expect(description('Find_Products')).toMatch(
				/^List products .* Returns one entry per product: id \(like prod_00001\), name, sku/,
			);
			expect(description('Set_Product_Price')).toMatch(
				/^Update one product .* Needs the product id/,
			);
			for (const tool of tools.values()) expect(tool.description).not.toMatch(/ in Storefront$/);

			const properties = (name: string) => (tools.get(name)?.parameters as any).properties;
			expect(properties('Get_Order')).toEqual({
				order_id: expect.objectContaining({
					type: 'string',
					description: 'The order id, like ord_00001',
				}),
			});
			expect(properties('Set_Order_Status')).toEqual({
				order_id: expect.objectContaining({ type: 'string' }),
				status: expect.objectContaining({ type: 'string', description: 'The new status' }),
			});
			expect(properties('Find_Products')).toEqual({
				limit: expect.objectContaining({ type: 'number' }),
				search: expect.objectContaining({ type: 'string' }),
			});
			expect(properties('Set_Product_Price')).toEqual({
				product_id: expect.objectContaining({ type: 'string' }),
				price: expect.objectContaining({ type: 'number' }),
			});
			for (const name of tools.keys()) {
				expect((tools.get(name)?.parameters as any).required?.sort()).toEqual(
					Object.keys(properties(name)).sort(),
				);
			}
			report({ [`aiTools_${format}`]: request.tools });
		});

		it('"is order X pending? then set it to processing": Get Order, then Set Order Status; the service shows one change', async () => {
			const orderId = orderIn('pending', format === 'chat' ? 0 : 1);
			model.setScript((request: RecordedRequest): ModelTurn => {
				const results = request.toolResults;
				if (results.length === 0)
					return { toolCalls: [{ name: 'Get_Order', arguments: { order_id: orderId } }] };
				const last = parsed(results[results.length - 1].content)[0];
				if (results.length === 1 && last.status === 'pending') {
					return {
						toolCalls: [
							{ name: 'Set_Order_Status', arguments: { order_id: orderId, status: 'processing' } },
						],
					};
				}
				return { text: `Order ${idOf(last, 'order')} is now ${String(last.status)}.` };
			});

			const answer = await ask(
				workflow.url,
				`Is order ${orderId} pending? If so, set it to processing.`,
			);
			expect(answer).toEqual({
				status: 200,
				body: { output: `Order ${orderId} is now processing.` },
			});

			const seen = requests();
			expect(seen).toHaveLength(3);
			// n8n replays the call with its call id added to the arguments (its buildSteps); the model's own argument is there.
			expect(seen[1].toolCalls).toEqual([
				expect.objectContaining({
					name: 'Get_Order',
					arguments: expect.objectContaining({ order_id: orderId }),
				}),
			]);
			// Get and Set Order Status return the whole record as the API shows it: its id under `id`, or `order_id` on
			// spec-literal (idOf also refuses a spec-literal record with an `id`).
			const fetched = parsed(seen[1].toolResults[0].content);
			expect(fetched).toEqual([
				expect.objectContaining({
					[ID_KEY('order')]: orderId,
					status: 'pending',
					items: expect.any(Array),
				}),
			]);
			expect(idOf(fetched[0], 'order')).toBe(orderId);
			const updated = parsed(seen[2].toolResults[1].content);
			expect(updated).toEqual([
				expect.objectContaining({ [ID_KEY('order')]: orderId, status: 'processing' }),
			]);
			expect(idOf(updated[0], 'order')).toBe(orderId);
			for (const result of seen[2].toolResults) expectNothingSecret(result.content);

			expect(env.sandbox.state.orders.get(orderId)?.status).toBe('processing');
			expect(statusChanges(orderId)).toBe(1);

			// Each tool call is its own run of its tool node in n8n, with the model's arguments as its input.
			const { execution, runData } = await lastExecution(workflow.id);
			expect(execution.status).toBe('success');
			expect(runData['Get Order']).toHaveLength(1);
			expect(runData['Set Order Status']).toHaveLength(1);
		});

		it("a forbidden transition: the model gets the service's 409 message as the result; nothing changes; the workflow succeeds", async () => {
			const orderId = orderIn('delivered', format === 'chat' ? 0 : 1);
			// The service's own words for this move, asked directly (a refused move changes nothing).
			const direct = await api(env.sandbox, 'PUT', `/orders/${orderId}/status`, {
				status: 'pending',
			});
			expect(direct.status).toBe(409);
			const serviceWords = errorMessageOf(direct.json);
			const before = statusChanges(orderId);

			model.setScript((request) => {
				if (request.toolResults.length === 0) {
					return {
						toolCalls: [
							{ name: 'Set_Order_Status', arguments: { order_id: orderId, status: 'pending' } },
						],
					};
				}
				return {
					text: `The store refused: ${String(parsed(request.toolResults[0].content)[0].error)}`,
				};
			});
			const answer = await ask(workflow.url, `Set order ${orderId} back to pending.`);
			expect(answer.status).toBe(200);

			const seen = requests();
			expect(seen).toHaveLength(2);
			const result = seen[1].toolResults[0].content;
			// The node's error message, as n8n hands a failed tool call back to the model: [{"error": "…"}].
			expect(parsed(result)).toEqual([
				{ error: `Storefront did not accept the request (409): ${serviceWords}` },
			]);
			expectNothingSecret(result);
			expect(answer.body.output).toContain(serviceWords);

			expect(env.sandbox.state.orders.get(orderId)?.status).toBe('delivered');
			expect(statusChanges(orderId)).toBe(before);
			const { execution } = await lastExecution(workflow.id);
			expect(execution.status).toBe('success');
		});

		it('a list under tool use returns a bounded, simplified result (default settings), and numbers reach number parameters', async () => {
			model.setScript((request) => {
				const results = request.toolResults;
				if (results.length === 0)
					return { toolCalls: [{ name: 'List_Orders', arguments: { status: 'pending' } }] };
				if (results.length === 1)
					return {
						toolCalls: [{ name: 'Find_Products', arguments: { search: 'notebook', limit: 3 } }],
					};
				if (results.length === 2) {
					const [product] = parsed(results[1].content);
					return {
						toolCalls: [
							{ name: 'Set_Product_Price', arguments: { product_id: product.id, price: 12.5 } },
						],
					};
				}
				return { text: 'Done.' };
			});
			const answer = await ask(
				workflow.url,
				'List pending orders, then find notebooks and set the first to 12.50.',
			);
			expect(answer).toEqual({ status: 200, body: { output: 'Done.' } });

			const results = requests()[3].toolResults;
			const list = results[0].content;
			const orders = parsed(list);
			// Default Limit (50); each entry only the simplified fields, its id as `id` on every profile (the tool's
			// simplified record names it so whatever key the service uses).
			expect(orders).toHaveLength(50);
			for (const order of orders) {
				expect(Object.keys(order).sort()).toEqual([
					'created_at',
					'currency',
					'customer_id',
					'id',
					'item_count',
					'paid_at',
					'status',
					'total',
				]);
				expect(order.status).toBe('pending');
			}
			expectNothingSecret(list);
			// The same 50 orders as full records, straight from the API, for the comparison.
			const full = await api(env.sandbox, 'GET', '/orders?status=pending&limit=50');
			const fullOrders = listOf(full.json, 'orders');
			// The same orders: the tool's ids are the API's, in its order.
			expect(orders.map((order: any) => order.id)).toEqual(
				fullOrders.map((order: any) => idOf(order, 'order')),
			);
			const fullBytes = Buffer.byteLength(JSON.stringify(fullOrders));
			const bytes = Buffer.byteLength(list);
			expect(bytes).toBeLessThan(fullBytes / 2);
			console.log(
				`[ai ${format}] List Orders (default settings) returned 50 orders in ${bytes} bytes; the full records: ${fullBytes} bytes (${(fullBytes / bytes).toFixed(1)}×)`,
			);
			report({ [`aiListBytes_${format}`]: { bytes, fullBytes, orders: orders.length } });

			// limit: 3 arrived as a number (the node refuses anything else), search as text: the API's own first three.
			const products = parsed(results[1].content);
			const direct = await api(env.sandbox, 'GET', '/products?search=notebook&limit=3');
			expect(products.map((product: any) => product.id)).toEqual(
				listOf(direct.json, 'products').map((product: any) => idOf(product, 'product')),
			);
			expect(products).toHaveLength(3);
			for (const product of products) {
				expect(Object.keys(product).sort()).toEqual([
					'category',
					'currency',
					'id',
					'name',
					'price',
					'sku',
					'status',
					'stock',
				]);
			}
			// Update returns the whole record as the API shows it (`product_id` on spec-literal).
			const updated = parsed(results[2].content);
			expect(updated).toEqual([
				expect.objectContaining({ [ID_KEY('product')]: products[0].id, price: 12.5 }),
			]);
			expect(idOf(updated[0], 'product')).toBe(products[0].id);
			expect(env.sandbox.state.products.get(products[0].id)?.price).toBe(12.5);
		});
	},
);

describe('the example examples/ai-order-assistant.json', () => {
	it('imports with the model credential left to the user, and once given one, answers a chat with its Storefront tools', async () => {
		const example = instance.loadExample('ai-order-assistant.json');
		const modelNode = example.nodes.find(
			(node: any) => node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		);
		expect(modelNode.credentials).toBeUndefined();
		const chat = example.nodes.find(
			(node: any) => node.type === '@n8n/n8n-nodes-langchain.chatTrigger',
		);
		expect(chat.parameters.public).toBeUndefined(); // not public: only the editor's chat reaches it

		// What a user does: pick a model credential; here also open the chat to the (loopback) world to reach it.
		modelNode.credentials = { openAiApi: modelCredential };
		chat.parameters = { ...chat.parameters, public: true };
		await createWorkflow(env, example);
		const url = `${env.webhookUrl}/webhook/${chat.webhookId}/chat`;
		await instance.waitForWebhook(url);

		const orderId = orderIn('pending', 2);
		model.reset();
		model.setScript((request) => {
			if (request.toolResults.length === 0)
				return { toolCalls: [{ name: 'Get_Order', arguments: { order_id: orderId } }] };
			const [order] = parsed(request.toolResults[0].content);
			return { text: `Order ${idOf(order, 'order')} is ${String(order.status)}.` };
		});
		const res = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				action: 'sendMessage',
				sessionId: randomUUID(),
				chatInput: `Is ${orderId} pending?`,
			}),
		});
		expect(await res.json()).toEqual({ output: `Order ${orderId} is pending.` });
		const [first] = model.requests;
		expect(first.tools.map((tool) => tool.name).sort()).toEqual([
			'Find_Products',
			'Get_Order',
			'List_Orders',
			'Set_Order_Status',
		]);
		expect(first.tools.find((tool) => tool.name === 'Set_Order_Status')?.description).toMatch(
			/Allowed moves only/,
		);
		expect(env.sandbox.state.orders.get(orderId)?.status).toBe('pending');
	});
});

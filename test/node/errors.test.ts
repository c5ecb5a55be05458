/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// API errors in every body style the contract admits, parameter errors before any request, continue-on-fail in
// both modes with correct pairedItem, and no secret in any error or output.
import { createServer } from 'net';
import type { INodeParameters } from 'n8n-workflow';

import { idKey } from '../helpers/profile';
import { exposed, useSandbox, httpCodeOf } from './context';

const ctx = useSandbox();
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

describe.each(['contract', 'message', 'string', 'errors', 'text', 'html'])(
	'error style "%s"',
	(style) => {
		test('a 404 carries the status and the service message', async () => {
			await ctx.admin('PUT', '/compat', { error_style: style });
			const { error } = await ctx.run({
				parameters: { resource: 'order', operation: 'get', orderId: byId('ord_missing') },
			});
			expect(httpCodeOf(error)).toBe('404');
			expect(error?.message).toContain('Order "ord_missing" was not found');
			expect(error?.message).toContain('Order ord_missing not found');
		});

		test('a 422 carries the service message', async () => {
			await ctx.admin('PUT', '/compat', { error_style: style });
			const { error } = await ctx.run({
				parameters: {
					resource: 'product',
					operation: 'create',
					name: 'X',
					price: 1,
					additionalFields: { extraFields: '{"colour":"red"}' },
				},
			});
			expect(httpCodeOf(error)).toBe('422');
			// The field-level detail where the style carries it, the summary sentence otherwise.
			expect(error?.message).toMatch(style === 'errors' ? /colour/ : /failed validation|colour/);
		});
	},
);

// n8n's UX guidelines: what happened, without "error", "problem", "failure" or "mistake" in the node's
// own words (the service's words follow the colon unchanged).
const BLAME_WORDS = /\b(error|problem|failure|mistake)s?\b/i;

test('a 4xx says the service did not accept the request, with its status and words', async () => {
	const { error } = await ctx.run({
		parameters: {
			resource: 'product',
			operation: 'create',
			name: 'X',
			price: 1,
			additionalFields: { extraFields: '{"colour":"red"}' },
		},
	});
	expect(httpCodeOf(error)).toBe('422');
	expect(error?.message).toMatch(/^Storefront did not accept the request \(422\): \S/);
	expect(error?.message.split(': ')[0]).not.toMatch(BLAME_WORDS);
});

test('a 5xx says the service could not complete the request, with its status and words', async () => {
	await ctx.admin('POST', '/faults', { status: 503, count: 10 });
	const { error } = await ctx.run({
		parameters: { resource: 'analytics', operation: 'getSummary', options: { maxRetries: 0 } },
	});
	expect(httpCodeOf(error)).toBe('503');
	expect(error?.message).toMatch(/^Storefront could not complete the request \(503\): \S/);
	expect(error?.message.split(': ')[0]).not.toMatch(BLAME_WORDS);
});

test('a wrong API key fails with 401 and says to check the API key', async () => {
	const { error } = await ctx.run({
		credentials: { baseUrl: ctx.sb.baseUrl, apiKey: 'sf_wrong_key' },
		parameters: { resource: 'analytics', operation: 'getSummary' },
	});
	expect(httpCodeOf(error)).toBe('401');
	expect(error?.message).toContain('Missing or invalid API key');
	expect(
		`${error?.message} ${(error as { description?: string } | undefined)?.description}`,
	).toMatch(/check the API key/i);
});

describe('invalid parameters fail before any request, naming the parameter', () => {
	test.each([
		[
			'invalid JSON in Extra Fields',
			{
				resource: 'product',
				operation: 'create',
				name: 'A',
				price: 1,
				additionalFields: { extraFields: '{"a": ' },
			},
			'Extra Fields (JSON)',
		],
		[
			'a JSON array in Extra Fields',
			{
				resource: 'product',
				operation: 'create',
				name: 'A',
				price: 1,
				additionalFields: { extraFields: '[1,2]' },
			},
			'Extra Fields (JSON)',
		],
		[
			'a negative price',
			{ resource: 'product', operation: 'create', name: 'A', price: -1 },
			'"Price" (price)',
		],
		[
			'an empty name',
			{ resource: 'product', operation: 'create', name: '  ', price: 1 },
			'"Name" (name)',
		],
		[
			'a fractional stock',
			{
				resource: 'product',
				operation: 'create',
				name: 'A',
				price: 1,
				additionalFields: { stock: 1.5 },
			},
			'Inventory Quantity',
		],
		[
			'a bad currency',
			{
				resource: 'product',
				operation: 'create',
				name: 'A',
				price: 1,
				additionalFields: { currency: 'dollars' },
			},
			'"Currency"',
		],
		[
			'an empty product id',
			{ resource: 'product', operation: 'delete', productId: byId('={{ "" }}') },
			'"Product" (productId)',
		],
		[
			'an empty order id',
			{ resource: 'order', operation: 'get', orderId: byId(' ') },
			'"Order" (orderId)',
		],
		[
			'an update with no field',
			{ resource: 'product', operation: 'update', productId: byId('prod_00001'), updateFields: {} },
			'"Update Fields" (updateFields)',
		],
		[
			'invalid JSON in an update',
			{
				resource: 'product',
				operation: 'update',
				productId: byId('prod_00001'),
				updateFields: { extraFields: 'nope' },
			},
			'Extra Fields (JSON)',
		],
		[
			'a negative price in an update',
			{
				resource: 'product',
				operation: 'update',
				productId: byId('prod_00001'),
				updateFields: { price: -3 },
			},
			'"Price" (updateFields.price)',
		],
		[
			'an empty store id',
			{ resource: 'store', operation: 'get', storeId: '={{ " " }}' },
			'"Store ID" (storeId)',
		],
		[
			'an empty status',
			{
				resource: 'order',
				operation: 'updateStatus',
				orderId: byId('ord_00001'),
				status: '={{ "" }}',
			},
			'"Status" (status)',
		],
		// Left empty in the editor, n8n itself refuses to run the node: no request either.
		[
			'a required parameter left empty',
			{ resource: 'product', operation: 'delete', productId: byId('') },
			'Parameter "Product" is required',
		],
		['a zero limit', { resource: 'customer', operation: 'getAll', limit: 0 }, '"Limit" (limit)'],
	])('%s', async (_case, parameters, named) => {
		const { error } = await ctx.run({ parameters });
		expect(error?.message).toContain(named);
		expect(await ctx.requests()).toEqual([]);
	});
});

describe('continue on fail', () => {
	const items = [{ id: 'ord_00001' }, { id: 'ord_nope' }, { id: '' }, { id: 'ord_00002' }];
	const parameters = { resource: 'order', operation: 'get', orderId: byId('={{ $json.id }}') };

	test('continueRegularOutput: failed items become error items in place, the others go on', async () => {
		const { items: out, error } = await ctx.run({
			items,
			parameters,
			onError: 'continueRegularOutput',
		});
		expect(error).toBeUndefined();
		expect(out.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(out[0].json[idKey('order')]).toBe('ord_00001');
		expect(String(out[1].json.error)).toContain('Order "ord_nope" was not found');
		expect(String(out[2].json.error)).toContain('"Order" (orderId) is empty');
		expect(out[3].json[idKey('order')]).toBe('ord_00002');
	});

	test('continueErrorOutput: failed items go to the error output with their pairedItem', async () => {
		const {
			items: out,
			errorItems,
			error,
		} = await ctx.run({ items, parameters, onError: 'continueErrorOutput' });
		expect(error).toBeUndefined();
		expect(out.map((item) => [item.json[idKey('order')], item.pairedItem])).toEqual([
			['ord_00001', { item: 0 }],
			['ord_00002', { item: 3 }],
		]);
		expect(errorItems.map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
		expect(String(errorItems[0].json.error)).toContain('ord_nope');
		expect(String(errorItems[1].json.error)).toContain('is empty');
	});

	test('without it the first failure stops the node with the item index', async () => {
		const { error, items: out } = await ctx.run({ items, parameters });
		expect(out).toEqual([]);
		expect((error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex).toBe(1);
	});
});

describe('a 2xx answer without the record is an error, never an empty item', () => {
	test.each([
		[
			'Order › Get',
			{ resource: 'order', operation: 'get', orderId: byId('ord_00001') },
			'GET /orders/ord_00001',
		],
		[
			'Store › Get',
			{ resource: 'store', operation: 'get', storeId: 'store_001' },
			'GET /stores/store_001',
		],
		[
			'Product › Update',
			{
				resource: 'product',
				operation: 'update',
				productId: byId('prod_00001'),
				updateFields: { price: 3 },
			},
			'PUT /products/prod_00001',
		],
		[
			'Order › Update Status',
			{
				resource: 'order',
				operation: 'updateStatus',
				orderId: byId('ord_00001'),
				status: 'cancelled',
			},
			'PUT /orders/ord_00001/status',
		],
		[
			'Order › Get Many (a list page)',
			{ resource: 'order', operation: 'getAll', returnAll: true },
			'GET /orders',
		],
	])('%s: an empty 200 names the endpoint and status', async (_name, parameters, endpoint) => {
		await ctx.admin('POST', '/faults', { type: 'empty', count: 1 });
		const { error, items } = await ctx.run({ parameters: parameters as INodeParameters });
		expect(items).toEqual([]);
		expect(httpCodeOf(error)).toBe('200');
		expect((error as Error).message).toContain(
			`Storefront answered ${endpoint} with 200 and an unexpected body`,
		);
		expect((error as Error).message).toContain('empty body');
	});

	test('with continue-on-fail the empty answer is an error item with its pairedItem, and the next item goes on', async () => {
		await ctx.admin('POST', '/faults', { type: 'empty', count: 1, path: '/orders/ord_00001' });
		const { items } = await ctx.run({
			items: [{ id: 'ord_00001' }, { id: 'ord_00002' }],
			parameters: { resource: 'order', operation: 'get', orderId: byId('={{ $json.id }}') },
			onError: 'continueRegularOutput',
		});
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(String(items[0].json.error)).toContain('GET /orders/ord_00001 with 200');
		expect(items[1].json[idKey('order')]).toBe('ord_00002');
	});
});

describe('secrets never reach errors or output', () => {
	const LEAK_CANARY = 'sf_live_9f8e7d6c5b4a_do_not_leak';

	beforeEach(async () => {
		await ctx.admin('POST', '/keys', { key: LEAK_CANARY, plan: 'business' });
	});

	async function closedPortUrl(): Promise<string> {
		const server = createServer();
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		await new Promise((resolve) => server.close(resolve));
		return `http://127.0.0.1:${port}/v1`;
	}

	test.each([
		[
			'404',
			async () => ({
				parameters: { resource: 'order', operation: 'get', orderId: byId('ord_gone') },
			}),
		],
		[
			'429 past Max Wait for Rate Limit',
			async () => {
				await ctx.admin('POST', '/faults', { status: 429, retry_after: null, count: 5 });
				return {
					parameters: {
						resource: 'analytics',
						operation: 'getSummary',
						options: { maxRateLimitWait: 0, retryDelay: 1 },
					},
				};
			},
		],
		[
			'a dropped POST',
			async () => {
				await ctx.admin('POST', '/faults', { type: 'drop', count: 2 });
				return { parameters: { resource: 'product', operation: 'create', name: 'A', price: 1 } };
			},
		],
		[
			'a refused connection',
			async () => ({
				baseUrl: await closedPortUrl(),
				parameters: {
					resource: 'store',
					operation: 'get',
					storeId: 'store_001',
					options: { maxRetries: 1, retryDelay: 1 },
				},
			}),
		],
	])('%s', async (_case, setup) => {
		const { parameters, baseUrl } = (await setup()) as {
			parameters: INodeParameters;
			baseUrl?: string;
		};
		const credentials = { baseUrl: baseUrl ?? ctx.sb.baseUrl, apiKey: LEAK_CANARY };
		const failed = await ctx.run({ parameters, credentials });
		expect(failed.error).toBeDefined();
		expect(exposed(failed.error)).not.toContain(LEAK_CANARY);
		expect(exposed(failed.run)).not.toContain(LEAK_CANARY);
		const continued = await ctx.run({ parameters, credentials, continueOnFail: true });
		expect(continued.items[0].json.error).toBeDefined();
		expect(exposed(continued.items)).not.toContain(LEAK_CANARY);
		expect(exposed(continued.run)).not.toContain(LEAK_CANARY);
	});

	test('the key is really sent (so its absence above means something)', async () => {
		const { items } = await ctx.run({
			credentials: { baseUrl: ctx.sb.baseUrl, apiKey: LEAK_CANARY },
			parameters: { resource: 'store', operation: 'get', storeId: 'store_001' },
		});
		expect(items[0].json[idKey('store')]).toBe('store_001');
	});
});

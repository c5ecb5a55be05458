// Every operation of the Storefront node, run through n8n-core's WorkflowExecute against the sandbox.
// The node passes the service's records through unchanged, so their id sits under the profile's key (`id`, or
// `product_id`… on spec-literal: test/helpers/profile.ts) and lists come in the profile's order.
import { CREATE_STATUS, ERROR_DETAILS, idKey, listedIds } from '../helpers/profile';
import { jsonOf, useSandbox, httpCodeOf } from './context';

const ctx = useSandbox();
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

describe('store', () => {
	test('get returns the store', async () => {
		const { items, error } = await ctx.run({
			parameters: { resource: 'store', operation: 'get', storeId: 'store_001' },
		});
		expect(error).toBeUndefined();
		expect(jsonOf(items)).toEqual([
			expect.objectContaining({
				[idKey('store')]: 'store_001',
				currency: ctx.sb.state.store.currency,
			}),
		]);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		const log = await ctx.requests();
		expect(log.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/stores/store_001']);
	});

	test('an unknown store fails with 404 naming the store id', async () => {
		const { error } = await ctx.run({
			parameters: { resource: 'store', operation: 'get', storeId: 'store_999' },
		});
		expect(error?.message).toContain('Store "store_999" was not found');
		expect(httpCodeOf(error)).toBe('404');
	});

	test('path ids are URL-encoded', async () => {
		await ctx.run({ parameters: { resource: 'store', operation: 'get', storeId: 'a/b c' } });
		const [logged] = await ctx.requests();
		expect(logged.path).toBe('/v1/stores/a%2Fb%20c');
	});
});

describe('product', () => {
	test('getAll with a limit returns that many products in one request', async () => {
		const { items } = await ctx.run({
			parameters: { resource: 'product', operation: 'getAll', limit: 7 },
		});
		expect(items).toHaveLength(7);
		expect(items.map((i) => i.json[idKey('product')])).toEqual(
			listedIds(ctx.sb.state.products.values()).slice(0, 7),
		);
		const log = await ctx.requests();
		expect(log).toHaveLength(1);
		expect(log[0].query).toMatchObject({ page: '1', limit: '7' });
	});

	test('getAll with Simplify returns at most 10 fields of each product (n8n UX guidelines); off, the whole record', async () => {
		const full = await ctx.run({
			parameters: { resource: 'product', operation: 'getAll', limit: 3 },
		});
		expect(Object.keys(full.items[0].json).length).toBeGreaterThan(10);
		const { items } = await ctx.run({
			parameters: { resource: 'product', operation: 'getAll', limit: 3, simplify: true },
		});
		expect(items).toHaveLength(3);
		const fields = ['name', 'sku', 'category', 'price', 'currency', 'stock', 'status'];
		for (const [index, item] of items.entries()) {
			// The simplified record names its id `id` in every profile, whatever key the service's record uses.
			expect(Object.keys(item.json)).toEqual(['id', ...fields]);
			const record = full.items[index].json;
			expect(item.json).toEqual({
				id: record[idKey('product')],
				...Object.fromEntries(fields.map((key) => [key, record[key]])),
			});
			expect(item.json.id).toEqual(expect.stringMatching(/^prod_\d+$/));
		}
	});

	test('create sends name, price and the additional fields, and returns the created product', async () => {
		const { items, error } = await ctx.run({
			parameters: {
				resource: 'product',
				operation: 'create',
				name: 'Linen Shirt',
				price: 49.9,
				additionalFields: {
					sku: 'LIN-001',
					stock: 12,
					category: 'Apparel',
					currency: 'eur',
					status: 'draft',
					images: 'https://example.com/a.jpg, https://example.com/b.jpg',
					extraFields: '{"description": "Made of linen"}',
				},
			},
		});
		expect(error).toBeUndefined();
		const created = items[0].json;
		expect(created).toMatchObject({
			name: 'Linen Shirt',
			price: 49.9,
			sku: 'LIN-001',
			stock: 12,
			category: 'Apparel',
			currency: 'EUR',
			status: 'draft',
			description: 'Made of linen',
			images: ['https://example.com/a.jpg', 'https://example.com/b.jpg'],
		});
		expect(created[idKey('product')]).toEqual(expect.stringMatching(/^prod_\d+$/));
		expect(ctx.sb.state.products.get(String(created[idKey('product')]))).toMatchObject({
			sku: 'LIN-001',
		});
		const log = await ctx.requests();
		expect(log.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			`POST /v1/products ${CREATE_STATUS}`,
		]);
	});

	test('update changes only the given fields', async () => {
		const before = { ...ctx.sb.state.products.get('prod_00002') };
		const { items, error } = await ctx.run({
			parameters: {
				resource: 'product',
				operation: 'update',
				productId: byId('prod_00002'),
				updateFields: { price: 12.5, stock: 3 },
			},
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			[idKey('product')]: 'prod_00002',
			price: 12.5,
			stock: 3,
			name: before.name,
			sku: before.sku,
		});
		expect(ctx.sb.state.products.get('prod_00002')).toMatchObject({ price: 12.5, stock: 3 });
	});

	test('delete returns {deleted: true, id} for the 204 answer', async () => {
		const { items } = await ctx.run({
			parameters: { resource: 'product', operation: 'delete', productId: fromList('prod_00003') },
		});
		expect(jsonOf(items)).toEqual([{ deleted: true, id: 'prod_00003' }]);
		expect(ctx.sb.state.products.has('prod_00003')).toBe(false);
		const log = await ctx.requests();
		expect(log.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'DELETE /v1/products/prod_00003 204',
		]);
	});

	test('deleting an unknown product names the product and id', async () => {
		const { error } = await ctx.run({
			parameters: { resource: 'product', operation: 'delete', productId: byId('prod_99999') },
		});
		expect(error?.message).toContain('Product "prod_99999" was not found');
	});

	test('a service validation error (422) reports the field errors where the service gives them, else its summary', async () => {
		const { error } = await ctx.run({
			parameters: {
				resource: 'product',
				operation: 'create',
				name: 'Odd',
				price: 1,
				additionalFields: { extraFields: '{"colour": "red"}' },
			},
		});
		expect(httpCodeOf(error)).toBe('422');
		if (ERROR_DETAILS) expect(error?.message).toContain('colour');
		// A `{message}` error body has no field details: the node reports the service's sentence as it is.
		else
			expect(error?.message).toBe(
				'Storefront did not accept the request (422): The request body failed validation',
			);
	});
});

describe('order', () => {
	test('getAll with a status filter returns every order in that status', async () => {
		const expected = [...ctx.sb.state.orders.values()]
			.filter((o) => o.status === 'pending')
			.map((o) => o.id);
		expect(expected.length).toBeGreaterThan(0);
		const { items } = await ctx.run({
			parameters: {
				resource: 'order',
				operation: 'getAll',
				returnAll: true,
				filters: { status: 'pending' },
			},
		});
		expect(items.map((i) => i.json[idKey('order')]).sort()).toEqual([...expected].sort());
		for (const logged of await ctx.requests()) expect(logged.query.status).toBe('pending');
	});

	test('get returns one order per input item, each paired with its item', async () => {
		const { items } = await ctx.run({
			items: [{ orderId: 'ord_00001' }, { orderId: 'ord_00002' }],
			parameters: { resource: 'order', operation: 'get', orderId: byId('={{ $json.orderId }}') },
		});
		expect(items.map((i) => [i.json[idKey('order')], i.pairedItem])).toEqual([
			['ord_00001', { item: 0 }],
			['ord_00002', { item: 1 }],
		]);
	});

	test('updateStatus moves an order along an allowed transition', async () => {
		const pending = [...ctx.sb.state.orders.values()].find((o) => o.status === 'pending')!;
		const { items, error } = await ctx.run({
			parameters: {
				resource: 'order',
				operation: 'updateStatus',
				orderId: byId(pending.id),
				status: 'processing',
			},
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ [idKey('order')]: pending.id, status: 'processing' });
		expect(ctx.sb.state.orders.get(pending.id)!.status).toBe('processing');
	});

	test('updateStatus sends a status given by expression; a forbidden transition reports 409 with the service message', async () => {
		const pending = [...ctx.sb.state.orders.values()].find((o) => o.status === 'pending')!;
		const { error } = await ctx.run({
			parameters: {
				resource: 'order',
				operation: 'updateStatus',
				orderId: byId(pending.id),
				status: '={{ "deliv" + "ered" }}',
			},
		});
		expect(httpCodeOf(error)).toBe('409');
		expect(error?.message).toMatch(/pending/);
		expect(error?.message).toMatch(/delivered/);
	});

	test('updateStatus passes a custom status unchanged to the service', async () => {
		const pending = [...ctx.sb.state.orders.values()].find((o) => o.status === 'pending')!;
		const { error } = await ctx.run({
			parameters: {
				resource: 'order',
				operation: 'updateStatus',
				orderId: byId(pending.id),
				status: 'on_hold',
			},
		});
		expect(httpCodeOf(error)).toBe('422');
		const [logged] = await ctx.requests();
		expect(logged).toMatchObject({ method: 'PUT', path: `/v1/orders/${pending.id}/status` });
	});
});

describe('customer', () => {
	test('getAll with a search returns the matching customers', async () => {
		const customer = ctx.sb.state.customers.get('cus_00001')!;
		const term = String(customer.email).split('@')[0];
		const expected = [...ctx.sb.state.customers.values()]
			.filter((c) => `${c.name} ${c.email}`.toLowerCase().includes(term.toLowerCase()))
			.map((c) => c.id);
		const { items } = await ctx.run({
			parameters: {
				resource: 'customer',
				operation: 'getAll',
				returnAll: true,
				filters: { search: term },
			},
		});
		expect(items.map((i) => i.json[idKey('customer')]).sort()).toEqual(expected.sort());
		expect(items.map((i) => i.json[idKey('customer')])).toContain('cus_00001');
	});
});

describe('analytics', () => {
	test('getSummary returns the live summary', async () => {
		const { items } = await ctx.run({
			parameters: { resource: 'analytics', operation: 'getSummary' },
		});
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			products_count: ctx.sb.state.products.size,
			orders_count: ctx.sb.state.orders.size,
			customers_count: ctx.sb.state.customers.size,
		});
	});
});

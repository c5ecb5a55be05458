// Compat modes (PUT /__admin/compat): the tolerated alternatives of docs/api-contract.md rows 1, 4, 5, 6, 10, 17 and
// 21, which the node's tests rely on, each alone, plus pagination walks that must see every item exactly once. All
// at once, as the spec-literal profile: profile.test.ts.
import { api, recentFirst, recentIds, startSandbox, type Sandbox } from '../helpers/sandbox';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ seed: 11, sizes: { products: 53, orders: 41, customers: 23 } });
});
afterAll(() => sb.stop());
afterEach(async () => {
	expect((await sb.admin('DELETE', '/compat')).body).toEqual({
		list_envelope: 'resource',
		pagination: 'full',
		page_size_cap: null,
		ignore_page: false,
		error_style: 'contract',
		wrap_single: null,
		list_order: 'recent',
		record_ids: 'id',
		updated_at: true,
		create_status: 201,
		event_data: 'contract',
		unique_sku: true,
		order_transitions: 'contract',
		product_search: 'contract',
	});
});

const compat = async (settings: object) =>
	expect((await sb.admin('PUT', '/compat', settings)).status).toBe(200);
const ids = (list: Array<{ id: string }>) => list.map((x) => x.id);

/** Follows next_page from page 1 and returns every id seen. */
async function walk(p: string, key: string, limit: number) {
	const seen: string[] = [];
	let page: number | null = 1;
	let pages = 0;
	while (page !== null) {
		const res = await api(
			sb,
			'GET',
			`${p}${p.includes('?') ? '&' : '?'}limit=${limit}&page=${page}`,
		);
		expect(res.status).toBe(200);
		seen.push(...ids(res.json[key]));
		expect(res.json.pagination.total_pages).toBe(Math.ceil(res.json.pagination.total / limit));
		page = res.json.pagination.next_page;
		expect(res.json.pagination.has_more).toBe(page !== null);
		if (++pages > 100) throw new Error('pagination does not end');
	}
	return seen;
}

describe('pagination walks see every item exactly once', () => {
	test.each([1, 7, 53, 100])('products, limit %i', async (limit) => {
		expect(await walk('/products', 'products', limit)).toEqual(
			recentIds(sb.state.products.values()),
		);
	});

	test('with filters: products by category and search, orders by status, customers by search', async () => {
		// Each filtered list in row 21's order, as the unfiltered one; customers in id order.
		const products = recentFirst(sb.state.products.values());
		const category = products[0].category as string;
		expect(await walk(`/products?category=${encodeURIComponent(category)}`, 'products', 3)).toEqual(
			ids(products.filter((p) => p.category === category) as Array<{ id: string }>),
		);
		expect(await walk('/products?search=a', 'products', 4)).toEqual(
			ids(
				products.filter((p) =>
					[p.name, p.sku, p.description].some((f) => String(f).toLowerCase().includes('a')),
				) as Array<{ id: string }>,
			),
		);
		for (const status of ['pending', 'delivered']) {
			expect(await walk(`/orders?status=${status}`, 'orders', 5)).toEqual(
				ids(
					recentFirst(sb.state.orders.values()).filter((o) => o.status === status) as Array<{
						id: string;
					}>,
				),
			);
		}
		expect(await walk('/customers?search=e', 'customers', 6)).toEqual(
			ids(
				[...sb.state.customers.values()].filter((c) =>
					`${c.name} ${c.email}`.toLowerCase().includes('e'),
				) as Array<{ id: string }>,
			),
		);
	});
});

describe('list envelopes', () => {
	test.each([
		['data', 'data'],
		['items', 'items'],
	])('%s', async (envelope, key) => {
		await compat({ list_envelope: envelope });
		const res = await api(sb, 'GET', '/orders?limit=2');
		expect(Object.keys(res.json).sort()).toEqual([key, 'pagination'].sort());
		expect(ids(res.json[key])).toEqual(recentIds(sb.state.orders.values()).slice(0, 2));
	});

	test('array: a bare JSON array, no pagination data', async () => {
		await compat({ list_envelope: 'array' });
		const res = await api(sb, 'GET', '/customers?limit=3&page=2');
		expect(Array.isArray(res.json)).toBe(true);
		expect(ids(res.json)).toEqual(['cus_00004', 'cus_00005', 'cus_00006']);
	});

	test('a cached page is not served after the envelope changes', async () => {
		expect(Object.keys((await api(sb, 'GET', '/products?limit=5')).json)).toContain('products');
		await compat({ list_envelope: 'items' });
		expect(Object.keys((await api(sb, 'GET', '/products?limit=5')).json)).toContain('items');
	});
});

describe('pagination styles', () => {
	test('has_more: a top-level boolean only', async () => {
		await compat({ pagination: 'has_more' });
		expect((await api(sb, 'GET', '/products?limit=50')).json.has_more).toBe(true);
		const last = (await api(sb, 'GET', '/products?limit=50&page=2')).json;
		expect(Object.keys(last).sort()).toEqual(['has_more', 'products']);
		expect(last.has_more).toBe(false);
	});

	test('next_page: under meta, null on the last page', async () => {
		await compat({ pagination: 'next_page' });
		expect((await api(sb, 'GET', '/products?limit=50')).json.meta).toEqual({ next_page: 2 });
		expect((await api(sb, 'GET', '/products?limit=50&page=2')).json.meta).toEqual({
			next_page: null,
		});
	});

	test('total_pages: page and total_pages under meta', async () => {
		await compat({ pagination: 'total_pages' });
		expect((await api(sb, 'GET', '/products?limit=50&page=2')).json.meta).toEqual({
			page: 2,
			total_pages: 2,
		});
	});

	test('none: only the list', async () => {
		await compat({ pagination: 'none' });
		expect(Object.keys((await api(sb, 'GET', '/products?limit=50')).json)).toEqual(['products']);
	});

	test('page_size_cap: fewer items than asked on every page, metadata tells the real size', async () => {
		await compat({ page_size_cap: 10 });
		const res = (await api(sb, 'GET', '/products?limit=100&page=2')).json;
		expect(ids(res.products)).toEqual(recentIds(sb.state.products.values()).slice(10, 20));
		expect(res.pagination).toMatchObject({
			page: 2,
			limit: 10,
			total: 53,
			total_pages: 6,
			next_page: 3,
		});
		expect((await api(sb, 'GET', '/products?limit=5')).json.products).toHaveLength(5);
	});

	test('ignore_page: every page is page 1', async () => {
		await compat({ ignore_page: true });
		const one = (await api(sb, 'GET', '/products?limit=10&page=1')).json;
		const two = (await api(sb, 'GET', '/products?limit=10&page=2')).json;
		expect(two).toEqual(one);
		expect(two.pagination.page).toBe(1);
	});

	test('meta: page, limit, total and total_pages under meta; a walk by total_pages sees every item once', async () => {
		await compat({ pagination: 'meta' });
		const first = (await api(sb, 'GET', '/orders?limit=10')).json;
		expect(Object.keys(first)).toEqual(['orders', 'meta']);
		expect(first.meta).toEqual({ page: 1, limit: 10, total: 41, total_pages: 5 });
		const seen = ids(first.orders);
		for (let page = 2; page <= first.meta.total_pages; page++)
			seen.push(...ids((await api(sb, 'GET', `/orders?limit=10&page=${page}`)).json.orders));
		expect(seen).toEqual(recentIds(sb.state.orders.values()));
	});

	test('invalid settings → 422, nothing changes', async () => {
		const res = await sb.admin('PUT', '/compat', {
			list_envelope: 'tree',
			pagination: 'cursor',
			page_size_cap: 0,
			ignore_page: 'yes',
			error_style: 'xml',
			wrap_single: 'box',
			list_order: 'oldest',
			record_ids: 'uuid',
			updated_at: 'no',
			create_status: 204,
			extra: 1,
		});
		expect(res.status).toBe(422);
		expect(res.body.error.details).toHaveLength(11);
		expect(res.body.error.details).toContainEqual({
			field: 'create_status',
			message: 'must be one of: 201, 200',
		});
		expect((await sb.admin('GET', '/compat')).body.list_envelope).toBe('resource');
	});
});

describe('list order', () => {
	test('id: products and orders in id order, filtered too, whatever changed last; customers as always', async () => {
		const order = [...sb.state.orders.values()].find((o) => o.status === 'pending')!;
		expect(
			(await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'processing' })).status,
		).toBe(200);
		expect(ids((await api(sb, 'GET', '/orders?limit=1')).json.orders)).toEqual([order.id]);
		await compat({ list_order: 'id' });
		expect(await walk('/products', 'products', 20)).toEqual([...sb.state.products.keys()]);
		expect(await walk('/orders', 'orders', 20)).toEqual([...sb.state.orders.keys()]);
		expect(await walk('/orders?status=processing', 'orders', 5)).toEqual(
			ids(
				[...sb.state.orders.values()].filter((o) => o.status === 'processing') as Array<{
					id: string;
				}>,
			),
		);
		expect(await walk('/customers', 'customers', 10)).toEqual([...sb.state.customers.keys()]);
	});
});

describe('error styles', () => {
	const notFound = () => api(sb, 'GET', '/orders/ord_99999');
	const invalid = () => api(sb, 'POST', '/products', { price: 'x' });

	test('message', async () => {
		await compat({ error_style: 'message' });
		expect((await notFound()).json).toEqual({ message: 'Order ord_99999 not found' });
	});

	test('string', async () => {
		await compat({ error_style: 'string' });
		expect((await notFound()).json).toEqual({ error: 'Order ord_99999 not found' });
	});

	test('errors: field details, or the message alone', async () => {
		await compat({ error_style: 'errors' });
		expect((await notFound()).json).toEqual({ errors: [{ message: 'Order ord_99999 not found' }] });
		const res = await invalid();
		expect(res.status).toBe(422);
		expect(res.json).toEqual({
			errors: [
				{ field: 'name', message: 'is required' },
				{ field: 'price', message: 'must be a number >= 0' },
			],
		});
	});

	test('text: plain text, the message on the first line', async () => {
		await compat({ error_style: 'text' });
		const res = await notFound();
		expect(res.status).toBe(404);
		expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
		expect(res.text.split('\n')[0]).toBe('Order ord_99999 not found');
	});

	test('html: a proxy-style error page', async () => {
		await compat({ error_style: 'html' });
		await sb.admin('POST', '/faults', { status: 502 });
		const res = await api(sb, 'GET', '/products');
		expect(res.status).toBe(502);
		expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
		expect(res.text).toContain('<title>502 Bad Gateway</title>');
		expect(res.text).toContain('<p>Bad gateway (injected fault)</p>');
	});

	test('the styles apply to 401 and 429 too', async () => {
		await compat({ error_style: 'string' });
		expect((await api(sb, 'GET', '/products', undefined, 'sf_wrong')).json).toEqual({
			error: 'Missing or invalid API key',
		});
	});
});

describe('wrapped single resources', () => {
	test('resource: {store|product|order: …}', async () => {
		await compat({ wrap_single: 'resource' });
		expect((await api(sb, 'GET', '/stores/store_001')).json.store.id).toBe('store_001');
		expect((await api(sb, 'GET', '/orders/ord_00001')).json.order.id).toBe('ord_00001');
		const created = await api(sb, 'POST', '/products', { name: 'Wrapped', price: 2 });
		expect(created.status).toBe(201);
		expect(created.json.product.name).toBe('Wrapped');
		const updated = await api(sb, 'PUT', `/products/${created.json.product.id}`, { price: 3 });
		expect(updated.json.product.price).toBe(3);
		const order = [...sb.state.orders.values()].find((o) => o.status === 'pending')!;
		expect(
			(await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'processing' })).json.order
				.status,
		).toBe('processing');
	});

	test('data: {data: …}; lists are not affected', async () => {
		await compat({ wrap_single: 'data' });
		expect((await api(sb, 'GET', '/orders/ord_00002')).json.data.id).toBe('ord_00002');
		expect((await api(sb, 'GET', '/orders?limit=1')).json.orders).toHaveLength(1);
	});
});

describe('record shapes', () => {
	test("record_ids resource: a record's own id under <resource>_id in lists and single resources; references stay", async () => {
		await compat({ record_ids: 'resource' });
		const products = (await api(sb, 'GET', '/products?limit=3')).json;
		expect(products.products.map((p: { product_id: string }) => p.product_id)).toEqual(
			recentIds(sb.state.products.values()).slice(0, 3),
		);
		expect(products.products[0]).not.toHaveProperty('id');
		expect(products.products[0]).toMatchObject({
			store_id: 'store_001',
			updated_at: expect.any(String),
		});
		expect(products.pagination.total).toBe(sb.state.products.size);
		expect((await api(sb, 'GET', '/customers?limit=1')).json.customers[0]).toMatchObject({
			customer_id: 'cus_00001',
			store_id: 'store_001',
		});
		const store = (await api(sb, 'GET', '/stores/store_001')).json;
		expect(store).toMatchObject({ store_id: 'store_001', name: expect.any(String) });
		expect(store).not.toHaveProperty('id');
		const order = (await api(sb, 'GET', '/orders/ord_00003')).json;
		expect(order).toMatchObject({
			order_id: 'ord_00003',
			store_id: 'store_001',
			customer_id: sb.state.orders.get('ord_00003')!.customer_id,
		});
		expect(order).not.toHaveProperty('id');
		const created = await api(sb, 'POST', '/products', { name: 'Own id', price: 1 });
		expect(created.status).toBe(201);
		expect(created.json.product_id).toMatch(/^prod_/);
	});

	test('record_ids resource: product_id is read-only in writes, like id', async () => {
		await compat({ record_ids: 'resource' });
		const res = await api(sb, 'PUT', '/products/prod_00002', {
			product_id: 'prod_99999',
			id: 'prod_99999',
		});
		expect(res.status).toBe(422);
		expect(res.json.error.details).toEqual([
			{ field: 'product_id', message: 'is read-only' },
			{ field: 'id', message: 'is read-only' },
		]);
		expect(
			(await api(sb, 'POST', '/products', { product_id: 'prod_99999', name: 'X', price: 1 })).json
				.error.details,
		).toEqual([{ field: 'product_id', message: 'is read-only' }]);
	});

	test("updated_at false: no updated_at in any record; lists keep row 21's order", async () => {
		await compat({ updated_at: false });
		const products = (await api(sb, 'GET', '/products?limit=5')).json.products;
		expect(ids(products)).toEqual(recentIds(sb.state.products.values()).slice(0, 5));
		for (const p of products) expect(p).not.toHaveProperty('updated_at');
		expect((await api(sb, 'GET', '/orders/ord_00001')).json).not.toHaveProperty('updated_at');
		const updated = await api(sb, 'PUT', '/products/prod_00001', { stock: 40 });
		expect(updated.json).toMatchObject({
			id: 'prod_00001',
			stock: 40,
			created_at: expect.any(String),
		});
		expect(updated.json).not.toHaveProperty('updated_at');
	});

	test('create_status 200: POST /products answers 200 with the bare product', async () => {
		await compat({ create_status: 200 });
		const created = await api(sb, 'POST', '/products', { name: 'OK not Created', price: 1 });
		expect(created.status).toBe(200);
		expect(created.json).toMatchObject({
			id: expect.stringMatching(/^prod_/),
			name: 'OK not Created',
			updated_at: expect.any(String),
		});
	});

	test('unique_sku false: a SKU another product has is accepted, on create and update', async () => {
		await compat({ unique_sku: false });
		const [taken, other] = [...sb.state.products.values()];
		const created = await api(sb, 'POST', '/products', {
			name: 'Same SKU',
			price: 1,
			sku: taken.sku,
		});
		expect(created.status).toBe(201);
		expect((await api(sb, 'PUT', `/products/${other.id}`, { sku: taken.sku })).status).toBe(200);
		expect([...sb.state.products.values()].filter((p) => p.sku === taken.sku)).toHaveLength(3);
	});

	test("order_transitions any: out of a final status too, the customer's total_spent following; other values → 422; no profile then", async () => {
		expect(
			(await sb.admin('PUT', '/compat', { order_transitions: 'free' })).body.error.details,
		).toEqual([{ field: 'order_transitions', message: 'must be one of: contract, any' }]);
		await compat({ order_transitions: 'any' });
		expect((await sb.admin('GET', '/profile')).body.profile).toBeNull();
		const order = (await sb.admin('POST', '/simulate/checkout', {})).body as {
			id: string;
			customer_id: string;
			total: number;
		};
		const spent = () => sb.state.customers.get(order.customer_id)!.total_spent;
		const before = spent();
		expect(
			(await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'cancelled' })).status,
		).toBe(200);
		expect(spent()).toBeCloseTo(before - order.total, 2);
		expect((await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'pending' })).status).toBe(
			200,
		);
		expect(spent()).toBeCloseTo(before, 2);
	});

	test('product_search name: search looks at names only (a SKU finds nothing, a name does); other values → 422', async () => {
		expect(
			(await sb.admin('PUT', '/compat', { product_search: 'sku' })).body.error.details,
		).toEqual([{ field: 'product_search', message: 'must be one of: contract, name' }]);
		const [product] = [...sb.state.products.values()];
		const found = async (search: string) =>
			(
				(await api(sb, 'GET', `/products?limit=100&search=${encodeURIComponent(search)}`)).json as {
					products: Array<{ id: string }>;
				}
			).products.map((p) => p.id);
		expect(await found(product.sku)).toContain(product.id);
		await compat({ product_search: 'name' });
		expect(await found(product.sku)).toEqual([]);
		expect(await found(product.name)).toContain(product.id);
	});

	test('event_data record: events other than order.created carry the record as a list shows it (no previous_status, no payment_id)', async () => {
		await compat({ event_data: 'record', record_ids: 'resource', updated_at: false });
		const from = sb.events.length;
		const order = (await sb.admin('POST', '/simulate/checkout', {})).body as { id: string };
		expect(
			(await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'processing' })).status,
		).toBe(200);
		await sb.admin('POST', '/simulate/payment', { order_id: order.id });
		const listed = (
			(await api(sb, 'GET', `/orders?limit=100`)).json as { orders: Array<Record<string, unknown>> }
		).orders.find((o) => o.order_id === order.id);
		const [created, updated, paid] = sb.events
			.slice(from)
			.filter((e) => e.type !== 'inventory.low');
		expect(created.data).toMatchObject({ order_id: order.id, status: 'pending' });
		expect(updated.type).toBe('order.updated');
		expect(updated.data).toEqual({ ...listed, status: 'processing', paid_at: null });
		expect(updated.data).not.toHaveProperty('previous_status');
		expect(paid.type).toBe('payment.completed');
		expect(paid.data).toEqual(listed);
		expect(paid.data).not.toHaveProperty('payment_id');
	});
});

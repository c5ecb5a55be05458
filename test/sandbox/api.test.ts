// The sandbox's /v1 API over real HTTP: every endpoint's happy path and errors (docs/api-contract.md).
import {
	api,
	recentFirst,
	recentIds,
	request,
	startSandbox,
	type Sandbox,
} from '../helpers/sandbox';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ seed: 7, sizes: { products: 150, orders: 80, customers: 40 } });
});
afterAll(() => sb.stop());

describe('auth (contract row 11)', () => {
	test.each([
		['no header', {}],
		['wrong key', { Authorization: 'Bearer sf_nope_123' }],
		['not Bearer', { Authorization: 'Basic c2ZfdGVzdF9kZW1v' }],
	])('%s → 401 with WWW-Authenticate, even on unknown paths', async (_, headers) => {
		for (const p of ['/products', '/no/such/path']) {
			const res = await request('GET', sb.baseUrl + p, {
				headers: headers as Record<string, string>,
			});
			expect(res.status).toBe(401);
			expect(res.headers['www-authenticate']).toBe('Bearer');
			expect(res.headers['content-type']).toBe('application/json');
			expect(res.json).toEqual({
				error: { code: 'unauthorized', message: 'Missing or invalid API key' },
			});
		}
	});

	test('the scheme is case-insensitive', async () => {
		const res = await request('GET', `${sb.baseUrl}/stores/store_001`, {
			headers: { Authorization: `bearer ${sb.apiKey}` },
		});
		expect(res.status).toBe(200);
	});
});

describe('stores', () => {
	test('GET /stores/store_001 → the store record', async () => {
		const res = await api(sb, 'GET', '/stores/store_001');
		expect(res.status).toBe(200);
		expect(Object.keys(res.json).sort()).toEqual([
			'created_at',
			'currency',
			'domain',
			'id',
			'name',
			'plan',
			'timezone',
		]);
		expect(res.json.id).toBe('store_001');
	});

	test('another store id → 404', async () => {
		const res = await api(sb, 'GET', '/stores/store_999');
		expect(res.status).toBe(404);
		expect(res.json.error).toEqual({ code: 'not_found', message: 'Store store_999 not found' });
	});
});

describe('routing', () => {
	test('unknown path → 404, wrong method → 405 with Allow', async () => {
		expect((await api(sb, 'GET', '/nope')).status).toBe(404);
		const res = await api(sb, 'PATCH', '/products');
		expect(res.status).toBe(405);
		expect(res.headers.allow).toBe('GET, POST');
		expect(res.json.error.code).toBe('method_not_allowed');
		expect((await api(sb, 'DELETE', '/orders/ord_00001')).status).toBe(405);
	});

	test('outside /v1 and /__admin → 404 JSON', async () => {
		const res = await request('GET', `${sb.origin}/products`);
		expect(res.status).toBe(404);
		expect(res.json.error.code).toBe('not_found');
	});

	test('a trailing slash is the same path', async () => {
		expect((await api(sb, 'GET', '/products/?limit=1')).json.products).toHaveLength(1);
	});
});

describe('GET /products', () => {
	test('default page: 20 items, full pagination envelope', async () => {
		const res = await api(sb, 'GET', '/products');
		expect(res.status).toBe(200);
		expect(res.headers['content-type']).toBe('application/json');
		expect(res.json.products).toHaveLength(20);
		expect(res.json.pagination).toEqual({
			page: 1,
			limit: 20,
			total: sb.state.products.size,
			total_pages: 8,
			has_more: true,
			next_page: 2,
		});
		expect(Object.keys(res.json.products[0]).sort()).toEqual(
			[
				'category',
				'created_at',
				'currency',
				'description',
				'id',
				'images',
				'name',
				'price',
				'sku',
				'status',
				'stock',
				'store_id',
				'updated_at',
			].sort(),
		);
	});

	test('last page and a page past the end', async () => {
		const last = await api(sb, 'GET', '/products?page=2&limit=100');
		expect(last.json.products).toHaveLength(sb.state.products.size - 100);
		expect(last.json.pagination).toMatchObject({
			page: 2,
			has_more: false,
			next_page: null,
			total_pages: 2,
		});
		const past = await api(sb, 'GET', '/products?page=9&limit=100');
		expect(past.status).toBe(200);
		expect(past.json.products).toEqual([]);
		expect(past.json.pagination).toMatchObject({ has_more: false, next_page: null });
	});

	test('category is exact and case-insensitive; search covers name, sku and description', async () => {
		const all = [...sb.state.products.values()];
		const category = all[0].category as string;
		const res = await api(
			sb,
			'GET',
			`/products?limit=100&category=${encodeURIComponent(category.toUpperCase())}`,
		);
		const expected = recentFirst(all.filter((p) => p.category === category)).map((p) => p.id);
		expect(res.json.products.map((p: { id: string }) => p.id)).toEqual(expected.slice(0, 100));
		expect(res.json.pagination.total).toBe(expected.length);

		const sku = all[3].sku as string;
		const bySku = await api(sb, 'GET', `/products?search=${sku.toLowerCase()}`);
		expect(bySku.json.products.map((p: { id: string }) => p.id)).toContain(all[3].id);
		const word = (all[5].description as string).split(' ')[0];
		const byDesc = await api(sb, 'GET', `/products?limit=100&search=${encodeURIComponent(word)}`);
		expect(byDesc.json.pagination.total).toBe(
			all.filter((p) =>
				[p.name, p.sku, p.description].some((f) =>
					String(f).toLowerCase().includes(word.toLowerCase()),
				),
			).length,
		);
		const none = await api(sb, 'GET', '/products?search=zzzz-no-such-thing');
		expect(none.json).toEqual({
			products: [],
			pagination: {
				page: 1,
				limit: 20,
				total: 0,
				total_pages: 0,
				has_more: false,
				next_page: null,
			},
		});
	});

	test.each([
		['limit=0', 'limit'],
		['limit=101', 'limit'],
		['limit=abc', 'limit'],
		['page=0', 'page'],
		['page=1.5', 'page'],
		['page=-1', 'page'],
	])('%s → 400 with a field error', async (query, field) => {
		const res = await api(sb, 'GET', `/products?${query}`);
		expect(res.status).toBe(400);
		expect(res.json.error.code).toBe('invalid_query');
		expect(res.json.error.details).toEqual([{ field, message: expect.any(String) }]);
	});

	test('unknown query parameters are ignored', async () => {
		expect((await api(sb, 'GET', '/products?limit=3&colour=red')).json.products).toHaveLength(3);
	});

	test('most recently changed first (contract row 21): an update moves a product to the front, ties by id descending', async () => {
		const listed = async (query: string) =>
			(await api(sb, 'GET', `/products?${query}`)).json.products.map(
				(p: { id: string; updated_at: string }) => p,
			);
		const first = await listed('limit=100');
		expect(first.map((p: { id: string }) => p.id)).toEqual(
			recentIds(sb.state.products.values()).slice(0, 100),
		);
		for (let i = 1; i < first.length; i++)
			expect(first[i - 1].updated_at >= first[i].updated_at).toBe(true);

		const [a, b] = [...sb.state.products.values()]
			.filter((p) => p.status === 'active' && p.stock >= 5)
			.slice(-2);
		await api(sb, 'PUT', `/products/${a.id}`, { price: 4.5 });
		expect((await listed('limit=1'))[0].id).toBe(a.id);
		// A checkout stamps its products with the same updated_at: the later id comes first.
		const order = await sb.admin('POST', '/simulate/checkout', {
			customer_id: 'cus_00001',
			items: [{ product_id: a.id }, { product_id: b.id }],
		});
		expect(order.status).toBe(201);
		expect(sb.state.products.get(a.id)!.updated_at).toBe(sb.state.products.get(b.id)!.updated_at);
		const [later, earlier] = a.id > b.id ? [a.id, b.id] : [b.id, a.id];
		expect((await listed('limit=2')).map((p: { id: string }) => p.id)).toEqual([later, earlier]);
		expect((await api(sb, 'GET', '/orders?limit=1')).json.orders[0].id).toBe(order.body.id);
	});
});

describe('POST /products', () => {
	test('creates with defaults → 201, listed afterwards', async () => {
		const res = await api(sb, 'POST', '/products', {
			name: '  Test Lamp ',
			price: 19.999,
			category: 'Lighting',
			sku: 'LAMP-1',
		});
		expect(res.status).toBe(201);
		expect(res.json).toMatchObject({
			name: 'Test Lamp',
			price: 20,
			currency: 'USD',
			stock: 0,
			status: 'active',
			images: [],
			description: '',
			store_id: 'store_001',
			sku: 'LAMP-1',
		});
		expect(res.json.id).toMatch(/^prod_\d{5}$/);
		const list = await api(sb, 'GET', '/products?category=lighting');
		expect(list.json.products.map((p: { id: string }) => p.id)).toEqual([res.json.id]);
	});

	test('all fields accepted', async () => {
		const body = {
			name: 'Full',
			price: 1,
			description: 'd',
			sku: 'FULL-1',
			category: 'C',
			stock: 3,
			currency: 'eur',
			status: 'draft',
			images: ['https://x.example/a.png'],
		};
		const res = await api(sb, 'POST', '/products', body);
		expect(res.status).toBe(201);
		expect(res.json).toMatchObject({ ...body, currency: 'EUR' });
	});

	test('validation → 422 listing every bad field; nothing is written', async () => {
		const before = sb.state.products.size;
		const res = await api(sb, 'POST', '/products', {
			name: '',
			price: -1,
			stock: 1.5,
			status: 'gone',
			currency: 'EURO',
			images: ['not a url'],
			id: 'prod_x',
			colour: 'red',
		});
		expect(res.status).toBe(422);
		expect(res.json.error.code).toBe('validation_failed');
		const fields = res.json.error.details.map((d: { field: string }) => d.field).sort();
		expect(fields).toEqual([
			'colour',
			'currency',
			'id',
			'images',
			'name',
			'price',
			'status',
			'stock',
		]);
		expect(sb.state.products.size).toBe(before);
	});

	test('missing required fields, name too long, duplicate sku', async () => {
		expect((await api(sb, 'POST', '/products', {})).json.error.details).toEqual([
			{ field: 'name', message: 'is required' },
			{ field: 'price', message: 'is required' },
		]);
		const long = await api(sb, 'POST', '/products', { name: 'x'.repeat(201), price: 1 });
		expect(long.json.error.details).toEqual([
			{ field: 'name', message: 'must be at most 200 characters' },
		]);
		const taken = [...sb.state.products.values()][0];
		const dup = await api(sb, 'POST', '/products', { name: 'Dup', price: 1, sku: taken.sku });
		expect(dup.status).toBe(422);
		expect(dup.json.error.details).toEqual([
			{ field: 'sku', message: `is already used by product ${taken.id}` },
		]);
	});

	test('body that is not an object → 422; malformed JSON → 400; empty → 400', async () => {
		expect((await api(sb, 'POST', '/products', '[1,2]', undefined)).status).toBe(415); // a string body has no JSON content type
		const arr = await request('POST', `${sb.baseUrl}/products`, {
			headers: { Authorization: `Bearer ${sb.apiKey}`, 'Content-Type': 'application/json' },
			body: '[1,2]',
		});
		expect(arr.status).toBe(422);
		expect(arr.json.error.details).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
		const bad = await request('POST', `${sb.baseUrl}/products`, {
			headers: {
				Authorization: `Bearer ${sb.apiKey}`,
				'Content-Type': 'application/json; charset=utf-8',
			},
			body: '{"name": ',
		});
		expect(bad.status).toBe(400);
		expect(bad.json.error.code).toBe('invalid_json');
		const empty = await request('POST', `${sb.baseUrl}/products`, {
			headers: { Authorization: `Bearer ${sb.apiKey}` },
		});
		expect(empty.status).toBe(422);
	});

	test('wrong content type → 415; over 1 MiB → 413', async () => {
		const text = await request('POST', `${sb.baseUrl}/products`, {
			headers: { Authorization: `Bearer ${sb.apiKey}`, 'Content-Type': 'text/plain' },
			body: '{"name":"a","price":1}',
		});
		expect(text.status).toBe(415);
		expect(text.json.error.code).toBe('unsupported_media_type');
		const big = await api(sb, 'POST', '/products', {
			name: 'big',
			price: 1,
			description: 'x'.repeat(1024 * 1024),
		});
		expect(big.status).toBe(413);
		expect(big.json.error.code).toBe('payload_too_large');
	});
});

describe('PUT /products/{id} and DELETE', () => {
	test('partial update keeps the rest', async () => {
		const p = [...sb.state.products.values()][10];
		const before = { ...p };
		const res = await api(sb, 'PUT', `/products/${p.id}`, { price: 12.5, stock: 40 });
		expect(res.status).toBe(200);
		expect(res.json).toEqual({ ...before, price: 12.5, stock: 40, updated_at: expect.any(String) });
		expect(res.json.updated_at).not.toBe(before.updated_at);
	});

	test('read-only, unknown, empty and bad fields → 422; nothing changes', async () => {
		const p = [...sb.state.products.values()][11];
		const before = JSON.stringify(p);
		const ro = await api(sb, 'PUT', `/products/${p.id}`, { id: 'x', created_at: 'y', price: 3 });
		expect(ro.status).toBe(422);
		expect(ro.json.error.details.map((d: { field: string }) => d.field)).toEqual([
			'id',
			'created_at',
		]);
		const empty = await api(sb, 'PUT', `/products/${p.id}`, {});
		expect(empty.status).toBe(422);
		expect(empty.json.error.details[0].field).toBe('body');
		const bad = await api(sb, 'PUT', `/products/${p.id}`, { name: 'ok', price: 'free' });
		expect(bad.json.error.details).toEqual([{ field: 'price', message: 'must be a number >= 0' }]);
		expect(JSON.stringify(sb.state.products.get(p.id))).toBe(before);
	});

	test('unknown id → 404', async () => {
		const res = await api(sb, 'PUT', '/products/prod_99999', { price: 1 });
		expect(res.status).toBe(404);
		expect(res.json.error.message).toBe('Product prod_99999 not found');
		expect((await api(sb, 'DELETE', '/products/prod_99999')).status).toBe(404);
	});

	test('DELETE → 204 without body, then gone', async () => {
		const created = await api(sb, 'POST', '/products', { name: 'Temp', price: 1 });
		const del = await api(sb, 'DELETE', `/products/${created.json.id}`);
		expect(del.status).toBe(204);
		expect(del.raw.length).toBe(0);
		expect((await api(sb, 'PUT', `/products/${created.json.id}`, { price: 2 })).status).toBe(404);
		const list = await api(sb, 'GET', '/products?search=Temp');
		expect(list.json.products.map((p: { id: string }) => p.id)).not.toContain(created.json.id);
	});
});

describe('orders', () => {
	test('GET /orders filters by status', async () => {
		const res = await api(sb, 'GET', '/orders?status=delivered&limit=100');
		expect(res.status).toBe(200);
		const expected = recentFirst(sb.state.orders.values()).filter((o) => o.status === 'delivered');
		expect(res.json.orders.map((o: { id: string }) => o.id)).toEqual(expected.map((o) => o.id));
		expect(res.json.pagination.total).toBe(expected.length);
		const bad = await api(sb, 'GET', '/orders?status=lost');
		expect(bad.status).toBe(400);
		expect(bad.json.error.details).toEqual([
			{ field: 'status', message: expect.stringContaining('pending') },
		]);
	});

	test('GET /orders/{id} → order record; unknown → 404', async () => {
		const res = await api(sb, 'GET', '/orders/ord_00001');
		expect(res.status).toBe(200);
		expect(Object.keys(res.json).sort()).toEqual(
			[
				'created_at',
				'currency',
				'customer_id',
				'id',
				'items',
				'paid_at',
				'status',
				'store_id',
				'total',
				'updated_at',
			].sort(),
		);
		expect(Object.keys(res.json.items[0]).sort()).toEqual([
			'name',
			'price',
			'product_id',
			'quantity',
		]);
		expect((await api(sb, 'GET', '/orders/ord_99999')).status).toBe(404);
	});

	test('status walk pending → processing → shipped → delivered → refunded; final after that', async () => {
		const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
		for (const status of ['processing', 'shipped', 'delivered', 'refunded']) {
			const res = await api(sb, 'PUT', `/orders/${order.id}/status`, { status });
			expect(res.status).toBe(200);
			expect(res.json.status).toBe(status);
		}
		const after = await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'pending' });
		expect(after.status).toBe(409);
		expect(after.json.error.code).toBe('invalid_transition');
		expect(after.json.error.message).toContain('"refunded" is final');
	});

	test('same status is an idempotent no-op (200, no event); forbidden transition → 409', async () => {
		const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
		const events = sb.events.length;
		const same = await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'pending' });
		expect(same.status).toBe(200);
		expect(same.json.updated_at).toBe(order.updated_at);
		expect(sb.events.length).toBe(events);
		const jump = await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'delivered' });
		expect(jump.status).toBe(409);
		expect(jump.json.error.message).toBe(
			`Cannot change order ${order.id} from "pending" to "delivered" (allowed: processing, cancelled)`,
		);
		expect(sb.state.orders.get(order.id)!.status).toBe('pending');
	});

	test('unknown status → 422 invalid_status; extra keys or missing status → 422; unknown order → 404', async () => {
		const unknown = await api(sb, 'PUT', '/orders/ord_00002/status', { status: 'lost' });
		expect(unknown.status).toBe(422);
		expect(unknown.json.error.code).toBe('invalid_status');
		expect(unknown.json.error.message).toContain(
			'pending, processing, shipped, delivered, cancelled, refunded',
		);
		const extra = await api(sb, 'PUT', '/orders/ord_00002/status', {
			status: 'shipped',
			note: 'x',
		});
		expect(extra.status).toBe(422);
		expect(extra.json.error.details).toEqual([{ field: 'note', message: expect.any(String) }]);
		const missing = await api(sb, 'PUT', '/orders/ord_00002/status', {});
		expect(missing.json.error.details).toEqual([{ field: 'status', message: 'is required' }]);
		expect((await api(sb, 'PUT', '/orders/ord_99999/status', { status: 'shipped' })).status).toBe(
			404,
		);
	});
});

describe('customers and analytics', () => {
	test('GET /customers pages and searches name or email', async () => {
		const all = [...sb.state.customers.values()];
		const res = await api(sb, 'GET', '/customers?limit=5&page=2');
		expect(res.json.customers.map((c: { id: string }) => c.id)).toEqual(
			all.slice(5, 10).map((c) => c.id),
		);
		expect(Object.keys(res.json.customers[0]).sort()).toEqual([
			'created_at',
			'email',
			'id',
			'name',
			'orders_count',
			'store_id',
			'total_spent',
		]);
		const email = all[2].email as string;
		const found = await api(
			sb,
			'GET',
			`/customers?search=${encodeURIComponent(email.toUpperCase())}`,
		);
		expect(found.json.customers.map((c: { id: string }) => c.id)).toEqual([all[2].id]);
		expect((await api(sb, 'GET', '/customers?limit=1000')).status).toBe(400);
	});

	test('GET /analytics/summary is computed from live data', async () => {
		const first = (await api(sb, 'GET', '/analytics/summary')).json;
		const orders = [...sb.state.orders.values()];
		const revenue = orders
			.filter((o) => !['cancelled', 'refunded'].includes(o.status))
			.reduce((s, o) => s + o.total, 0);
		expect(first.orders_count).toBe(orders.length);
		expect(first.revenue).toBeCloseTo(revenue, 2);
		expect(first.products_count).toBe(sb.state.products.size);
		expect(first.customers_count).toBe(sb.state.customers.size);
		expect(
			Object.values(first.orders_by_status).reduce((a: number, b) => a + (b as number), 0),
		).toBe(orders.length);

		const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
		const second = (await api(sb, 'GET', '/analytics/summary')).json;
		expect(second.orders_count).toBe(first.orders_count + 1);
		expect(second.orders_by_status.pending).toBe(first.orders_by_status.pending + 1);
		expect(second.revenue).toBeCloseTo(first.revenue + order.total, 2);
	});
});

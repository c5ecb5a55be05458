// The spec-literal profile: every "not shown" point of the spec decided the other plausible way at once (its field
// names as record ids, no updated_at, {data, meta} lists oldest first, {message} errors, 200 on create, {data: …}
// single resources, no X-RateLimit-* headers), while the admin API, the state and the webhooks keep the contract's
// shapes. Switched by startSandbox's `profile` option and PUT /__admin/profile; the CLI's --profile is in cli.test.ts.
import { api, PROFILES, startSandbox, type Json, type Sandbox } from '../helpers/sandbox';

const rateHeaders = (headers: object) =>
	Object.keys(headers).filter((h) => h.startsWith('x-ratelimit-'));

/** A state record as spec-literal answers show it: its own id as `<resource>_id`, no id, no updated_at. */
function specLiteralView(record: Record<string, Json>, resource: string) {
	const view = { [`${resource}_id`]: record.id, ...record };
	delete view.id;
	delete view.updated_at;
	return view;
}

describe('a sandbox started with profile spec-literal', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		// Starter's limit lowered so the 429 is quick to reach; the profile still decides the headers.
		sb = await startSandbox({
			profile: 'spec-literal',
			seed: 5,
			sizes: { products: 23, orders: 17, customers: 9 },
			rateLimit: { limits: { starter: 3 } },
		});
	});
	afterAll(() => sb.stop());

	test('the admin API reports the profile and its settings', async () => {
		const overview = (await sb.admin('GET', '/')).body;
		expect(overview.profile).toBe('spec-literal');
		expect(overview.compat).toEqual(PROFILES['spec-literal'].compat);
		expect(overview.ratelimit).toEqual({
			window_ms: 60_000,
			limits: { starter: 3, pro: 500, business: null },
			headers: false,
		});
		expect(overview.endpoints).toContain(
			'GET|PUT /__admin/profile {profile: contract|spec-literal}',
		);
	});

	test('product list: {data, meta}, oldest first, product_id and no id or updated_at', async () => {
		const res = await api(sb, 'GET', '/products?limit=7&page=2');
		expect(res.status).toBe(200);
		expect(Object.keys(res.json)).toEqual(['data', 'meta']);
		expect(res.json.meta).toEqual({ page: 2, limit: 7, total: 23, total_pages: 4 });
		expect(res.json.data.map((p: Json) => p.product_id)).toEqual(
			[...sb.state.products.keys()].slice(7, 14),
		);
		for (const p of res.json.data)
			expect(p).toEqual(specLiteralView(sb.state.products.get(p.product_id)!, 'product'));
		expect(res.json.data[0].store_id).toBe('store_001'); // a reference, kept
	});

	test('paging through the orders with meta.total_pages gives every order once, oldest first', async () => {
		const seen: string[] = [];
		let totalPages = 1;
		for (let page = 1; page <= totalPages; page++) {
			const { json } = await api(sb, 'GET', `/orders?limit=5&page=${page}`);
			expect(json.meta).toMatchObject({ page, limit: 5, total: 17 });
			totalPages = json.meta.total_pages;
			for (const o of json.data) {
				expect(o).toEqual(specLiteralView(sb.state.orders.get(o.order_id)!, 'order'));
				expect(o).toMatchObject({
					store_id: 'store_001',
					customer_id: expect.stringMatching(/^cus_/),
				});
				for (const item of o.items) expect(item.product_id).toMatch(/^prod_/);
				seen.push(o.order_id);
			}
		}
		expect(totalPages).toBe(4);
		expect(seen).toEqual([...sb.state.orders.keys()]);
	});

	test('customers: customer_id, in id order as always', async () => {
		const { json } = await api(sb, 'GET', '/customers?limit=4&page=3');
		expect(json.data.map((c: Json) => c.customer_id)).toEqual(['cus_00009']);
		expect(json.meta).toEqual({ page: 3, limit: 4, total: 9, total_pages: 3 });
		expect(json.data[0]).not.toHaveProperty('id');
	});

	test('single resources as {data: …} with their own id under <resource>_id; the analytics summary unchanged', async () => {
		const store = (await api(sb, 'GET', '/stores/store_001')).json;
		expect(Object.keys(store)).toEqual(['data']);
		expect(store.data).toEqual(specLiteralView(sb.state.store, 'store'));
		expect(store.data.store_id).toBe('store_001');

		const order = (await api(sb, 'GET', '/orders/ord_00002')).json.data;
		expect(order).toEqual(specLiteralView(sb.state.orders.get('ord_00002')!, 'order'));

		const pending = [...sb.state.orders.values()].find((o) => o.status === 'pending')!;
		const updated = await api(sb, 'PUT', `/orders/${pending.id}/status`, { status: 'processing' });
		expect(updated.status).toBe(200);
		expect(updated.json.data).toMatchObject({ order_id: pending.id, status: 'processing' });
		expect(updated.json.data).not.toHaveProperty('updated_at');

		const summary = (await api(sb, 'GET', '/analytics/summary')).json;
		expect(summary).toMatchObject({
			store_id: 'store_001',
			products_count: sb.state.products.size,
			generated_at: expect.any(String),
		});
	});

	test('POST /products answers 200 {data: {product_id, …}}; the new product is listed last; PUT by that id', async () => {
		const created = await api(sb, 'POST', '/products', { name: 'Literal', price: 4.5 });
		expect(created.status).toBe(200);
		const product = created.json.data;
		expect(product).toMatchObject({
			product_id: 'prod_00024',
			store_id: 'store_001',
			name: 'Literal',
			price: 4.5,
			created_at: expect.any(String),
		});
		expect(product).not.toHaveProperty('id');
		expect(product).not.toHaveProperty('updated_at');

		const last = (await api(sb, 'GET', '/products?limit=100')).json.data;
		expect(last[last.length - 1].product_id).toBe('prod_00024');

		const updated = await api(sb, 'PUT', '/products/prod_00024', { stock: 9 });
		expect(updated.status).toBe(200);
		expect(updated.json.data).toMatchObject({ product_id: 'prod_00024', stock: 9 });
	});

	test('product_id and id are read-only in writes: 422, nothing written', async () => {
		const before = { ...sb.state.products.get('prod_00003')! };
		for (const body of [
			{ product_id: 'prod_99999', price: 1 },
			{ id: 'prod_99999', price: 1 },
		]) {
			const res = await api(sb, 'PUT', '/products/prod_00003', body);
			expect(res.status).toBe(422);
			expect(res.json).toEqual({ message: 'The request body failed validation' });
		}
		expect(sb.state.products.get('prod_00003')).toEqual(before);
		expect(
			(await api(sb, 'POST', '/products', { product_id: 'prod_77777', name: 'No', price: 1 }))
				.status,
		).toBe(422);
		expect(sb.state.products.has('prod_77777')).toBe(false);
	});

	test('errors are {message}: 401, 404, 422', async () => {
		expect((await api(sb, 'GET', '/orders/ord_99999')).json).toEqual({
			message: 'Order ord_99999 not found',
		});
		expect((await api(sb, 'POST', '/products', { price: -1 })).json).toEqual({
			message: 'The request body failed validation',
		});
		const unauthorized = await api(sb, 'GET', '/products', undefined, 'sf_wrong');
		expect(unauthorized.status).toBe(401);
		expect(unauthorized.json).toEqual({ message: 'Missing or invalid API key' });
	});

	test('a Starter key gets no X-RateLimit-* headers; its 429 still has Retry-After', async () => {
		for (let i = 0; i < 3; i++) {
			const res = await api(sb, 'GET', '/stores/store_001', undefined, 'sf_test_starter');
			expect(res.status).toBe(200);
			expect(rateHeaders(res.headers)).toEqual([]);
		}
		const limited = await api(sb, 'GET', '/stores/store_001', undefined, 'sf_test_starter');
		expect(limited.status).toBe(429);
		expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
		expect(rateHeaders(limited.headers)).toEqual([]);
		expect(limited.json).toEqual({
			message: 'Rate limit of 3 requests per minute exceeded (Starter plan)',
		});
	});

	test('the state, the admin API and webhook events keep the contract shapes', async () => {
		const checkout = await sb.admin('POST', '/simulate/checkout', {});
		expect(checkout.status).toBe(201);
		expect(checkout.body).toMatchObject({
			id: expect.stringMatching(/^ord_/),
			updated_at: expect.any(String),
		});
		expect(sb.state.orders.get(checkout.body.id)).toHaveProperty('id', checkout.body.id);
		const event = sb.events.find((e) => e.type === 'order.created')!;
		expect(event.data).toMatchObject({ order_id: checkout.body.id, store_id: 'store_001' });
		expect(Object.keys(event)).toEqual(['id', 'type', 'created_at', 'data']);
	});
});

describe('PUT /__admin/profile', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({ seed: 6, sizes: { products: 12, orders: 8, customers: 4 } });
	});
	afterAll(() => sb.stop());
	afterEach(async () => {
		await sb.admin('PUT', '/profile', { profile: 'contract' });
	});

	/** Status and body text of a set of API answers (a Starter key: the rate headers are looked at separately). */
	const answers = () =>
		Promise.all(
			[
				'/products?limit=5',
				'/orders?limit=3&page=2',
				'/customers',
				'/stores/store_001',
				'/orders/ord_00001',
				'/orders/ord_404',
			].map(async (p) => {
				const res = await api(sb, 'GET', p, undefined, 'sf_test_starter');
				return {
					path: p,
					status: res.status,
					text: res.text,
					rateHeaders: rateHeaders(res.headers),
				};
			}),
		);

	test('switches to spec-literal and back to exactly the contract answers (cached list pages included)', async () => {
		const contract = await answers();
		expect(contract.every((a) => a.rateHeaders.length === 3)).toBe(true);

		const put = await sb.admin('PUT', '/profile', { profile: 'spec-literal' });
		expect(put.status).toBe(200);
		expect(put.body).toEqual({
			profile: 'spec-literal',
			compat: PROFILES['spec-literal'].compat,
			ratelimit: {
				window_ms: 60_000,
				limits: { starter: 100, pro: 500, business: null },
				headers: false,
			},
		});
		const literal = await answers();
		expect(JSON.parse(literal[0].text).data.map((p: Json) => p.product_id)).toEqual(
			[...sb.state.products.keys()].slice(0, 5),
		);
		expect(JSON.parse(literal[3].text).data.store_id).toBe('store_001');
		expect(JSON.parse(literal[5].text)).toEqual({ message: 'Order ord_404 not found' });
		expect(literal.every((a) => a.rateHeaders.length === 0)).toBe(true);

		const back = await sb.admin('PUT', '/profile', { profile: 'contract' });
		expect(back.body).toEqual({
			profile: 'contract',
			compat: PROFILES.contract.compat,
			ratelimit: expect.objectContaining({ headers: true }),
		});
		expect(await answers()).toEqual(contract);
	});

	test('POST /__admin/reset keeps the profile', async () => {
		await sb.admin('PUT', '/profile', { profile: 'spec-literal' });
		expect((await sb.admin('POST', '/reset', {})).status).toBe(200);
		expect((await sb.admin('GET', '/')).body.profile).toBe('spec-literal');
		expect(Object.keys((await api(sb, 'GET', '/products?limit=1')).json)).toEqual(['data', 'meta']);
		expect((await api(sb, 'GET', '/orders/ord_00001')).json.data.order_id).toBe('ord_00001');
	});

	test('a setting changed afterwards leaves the settings matching no profile (null)', async () => {
		await sb.admin('PUT', '/profile', { profile: 'spec-literal' });
		await sb.admin('PUT', '/compat', { error_style: 'contract' });
		expect((await sb.admin('GET', '/profile')).body.profile).toBeNull();
		await sb.admin('PUT', '/profile', { profile: 'contract' });
		await sb.admin('PUT', '/ratelimit', { headers: false });
		expect((await sb.admin('GET', '/')).body.profile).toBeNull();
		await sb.admin('PUT', '/ratelimit', { headers: true });
		expect((await sb.admin('GET', '/profile')).body.profile).toBe('contract');
	});

	test('an unknown profile or field → 422, nothing changes', async () => {
		const res = await sb.admin('PUT', '/profile', { profile: 'literal', compat: {} });
		expect(res.status).toBe(422);
		expect(res.body.error.details).toEqual([
			{ field: 'compat', message: 'is not a profile setting' },
			{ field: 'profile', message: 'must be one of: contract, spec-literal' },
		]);
		expect((await sb.admin('GET', '/profile')).body.profile).toBe('contract');
	});
});

describe('startSandbox profile option', () => {
	test('an unknown profile is refused', async () => {
		await expect(startSandbox({ profile: 'nope' as 'contract' })).rejects.toThrow(
			'profile must be one of: contract, spec-literal (got nope)',
		);
	});

	test('rateLimit.headers, when given, wins over the profile', async () => {
		const sb = await startSandbox({
			profile: 'spec-literal',
			rateLimit: { headers: true },
			sizes: { products: 2, orders: 1, customers: 1 },
		});
		try {
			expect(
				rateHeaders((await api(sb, 'GET', '/customers', undefined, 'sf_test_pro')).headers),
			).toHaveLength(3);
			expect((await sb.admin('GET', '/compat')).body).toEqual(PROFILES['spec-literal'].compat);
			expect((await sb.admin('GET', '/')).body.profile).toBeNull();
		} finally {
			await sb.stop();
		}
	});
});

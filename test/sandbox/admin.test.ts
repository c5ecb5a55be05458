/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// Admin API, deterministic seeding and snapshot restore.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { api, request, startSandbox, type Sandbox } from '../helpers/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const sandboxCatalog = require('../../sandbox/catalog') as { ORDER_STATUSES: string[] };

const dump = (sb: Sandbox) =>
	JSON.stringify({
		products: [...sb.state.products.values()],
		orders: [...sb.state.orders.values()],
		customers: [...sb.state.customers.values()],
	});

describe('seeded data', () => {
	test('the same seed gives the same store; another seed does not', async () => {
		const sizes = { products: 80, orders: 50, customers: 20 };
		const [a, b, c] = await Promise.all([
			startSandbox({ seed: 3, sizes }),
			startSandbox({ seed: 3, sizes }),
			startSandbox({ seed: 4, sizes }),
		]);
		try {
			expect(dump(a)).toBe(dump(b));
			expect(dump(a)).not.toBe(dump(c));
		} finally {
			await Promise.all([a.stop(), b.stop(), c.stop()]);
		}
	});

	test('realistic, consistent records: sizes, statuses, totals, customer counters', async () => {
		const sb = await startSandbox({
			seed: 42,
			sizes: { products: 400, orders: 300, customers: 60 },
		});
		try {
			const products = [...sb.state.products.values()];
			const orders = [...sb.state.orders.values()];
			expect(products).toHaveLength(400);
			expect(orders).toHaveLength(300);
			expect(sb.state.customers.size).toBe(60);
			expect(new Set(products.map((p) => p.category)).size).toBeGreaterThanOrEqual(8);
			expect(new Set(products.map((p) => p.sku)).size).toBe(400);
			expect(new Set(orders.map((o) => o.status))).toEqual(new Set(sandboxCatalog.ORDER_STATUSES));
			for (const o of orders) {
				const sum = o.items.reduce(
					(s: number, it: { price: number; quantity: number }) => s + it.price * it.quantity,
					0,
				);
				expect(o.total).toBeCloseTo(sum, 2);
				expect(sb.state.customers.has(o.customer_id)).toBe(true);
				if (o.status === 'pending') expect(o.paid_at).toBeNull();
				if (['processing', 'shipped', 'delivered', 'refunded'].includes(o.status))
					expect(o.paid_at).toEqual(expect.any(String));
			}
			for (const c of sb.state.customers.values()) {
				expect(c.orders_count).toBe(orders.filter((o) => o.customer_id === c.id).length);
			}
		} finally {
			await sb.stop();
		}
	});
});

describe('admin API', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox();
	});
	afterAll(() => sb.stop());

	test('GET /__admin gives an overview', async () => {
		const res = await sb.admin('GET', '');
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			base_url: sb.baseUrl,
			store_id: 'store_001',
			counts: { products: 120, orders: 60, customers: 30 },
		});
		expect(res.body.endpoints.length).toBeGreaterThan(10);
	});

	test('POST /reset reseeds with the given seed and sizes, and clears events and logs', async () => {
		await api(sb, 'POST', '/products', { name: 'Gone after reset', price: 1 });
		const reset = await sb.admin('POST', '/reset', { seed: 9, sizes: { products: 15 } });
		expect(reset.body).toEqual({
			reset: true,
			seed: 9,
			sizes: { products: 15, orders: 60, customers: 30 },
		});
		expect(sb.state.products.size).toBe(15);
		expect((await api(sb, 'GET', '/products?limit=100')).json.products).toHaveLength(15);
		expect((await sb.admin('GET', '/events')).body).toEqual([]);
		expect((await sb.admin('GET', '/requests')).body).toHaveLength(1);
		const again = await startSandbox({ seed: 9, sizes: { products: 15 } });
		expect(dump(again)).toBe(dump(sb));
		await again.stop();
		expect(
			(await sb.admin('POST', '/reset', { seed: 'x', sizes: { products: -1, planets: 2 } })).body
				.error.details,
		).toHaveLength(3);
	});

	test('unknown admin paths → 404, wrong methods → 405, non-object bodies → 422', async () => {
		expect((await sb.admin('GET', '/nope')).status).toBe(404);
		const wrong = await sb.admin('PATCH', '/compat');
		expect(wrong.status).toBe(405);
		expect(wrong.body.error.code).toBe('method_not_allowed');
		expect((await sb.admin('PUT', '/compat', [1])).status).toBe(422);
		const bad = await request('POST', `${sb.adminUrl}/reset`, {
			headers: { 'Content-Type': 'application/json' },
			body: '{',
		});
		expect(bad.status).toBe(400);
	});

	test('simulate/stock validates and reports the product', async () => {
		const p = [...sb.state.products.values()][0];
		expect(
			(await sb.admin('POST', '/simulate/stock', { product_id: p.id, stock: 42 })).body,
		).toMatchObject({ id: p.id, stock: 42 });
		expect(
			(await sb.admin('POST', '/simulate/stock', { product_id: p.id, stock: -1 })).status,
		).toBe(422);
		expect(
			(await sb.admin('POST', '/simulate/stock', { product_id: 'prod_99999', stock: 1 })).status,
		).toBe(404);
		expect((await api(sb, 'GET', `/products?search=${p.sku}`)).json.products[0].stock).toBe(42); // list cache invalidated
	});
});

describe('snapshot', () => {
	let dir: string;
	beforeEach(() => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sf-sandbox-'));
	});
	afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

	test('state, keys and webhook settings survive a restart; ids continue', async () => {
		const file = path.join(dir, 'state.json');
		const first = await startSandbox({ snapshot: file });
		expect(fs.existsSync(file)).toBe(true);
		const created = (await api(first, 'POST', '/products', { name: 'Persistent', price: 5 })).json;
		const order = (await first.admin('POST', '/simulate/checkout', {})).body;
		await api(first, 'PUT', `/orders/${order.id}/status`, { status: 'processing' });
		await api(first, 'DELETE', '/products/prod_00001');
		await first.admin('POST', '/keys', { key: 'sf_test_saved', plan: 'pro' });
		await first.admin('PUT', '/webhook', { url: 'http://127.0.0.1:9/hook', secret: 'whsec_saved' });
		const before = dump(first);
		await first.stop();

		const second = await startSandbox({ snapshot: file, seed: 999 }); // the snapshot wins over the seed
		try {
			expect(dump(second)).toBe(before);
			expect(second.state.orders.get(order.id)!.status).toBe('processing');
			expect(second.state.products.has('prod_00001')).toBe(false);
			expect(
				(await api(second, 'GET', '/stores/store_001', undefined, 'sf_test_saved')).headers[
					'x-ratelimit-limit'
				],
			).toBe('500');
			expect((await second.admin('GET', '/webhook')).body).toEqual({
				url: 'http://127.0.0.1:9/hook',
				secret: 'whsec_saved',
			});
			const next = (await api(second, 'POST', '/products', { name: 'Next', price: 1 })).json;
			expect(Number(next.id.slice(5))).toBe(Number(created.id.slice(5)) + 1);
		} finally {
			await second.stop();
		}
	});

	test('GET /__admin/snapshot returns the state; POST saves it to a file that a new sandbox loads', async () => {
		const sb = await startSandbox({ seed: 5 });
		try {
			await api(sb, 'PUT', '/products/prod_00002', { name: 'Renamed' });
			const data = (await sb.admin('GET', '/snapshot')).body;
			expect(data.version).toBe(1);
			expect(data.products.find((p: { id: string }) => p.id === 'prod_00002').name).toBe('Renamed');
			const file = path.join(dir, 'saved.json');
			expect((await sb.admin('POST', '/snapshot', { path: file })).body).toEqual({ saved: file });
			expect((await sb.admin('POST', '/snapshot', {})).status).toBe(422);
			const loaded = await startSandbox({ snapshot: file });
			expect(dump(loaded)).toBe(dump(sb));
			await loaded.stop();
		} finally {
			await sb.stop();
		}
	});

	test('a file that is not a snapshot is refused', async () => {
		const file = path.join(dir, 'bad.json');
		fs.writeFileSync(file, '{"hello": 1}');
		await expect(startSandbox({ snapshot: file })).rejects.toThrow('is not a sandbox snapshot');
	});
});

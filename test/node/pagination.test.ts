// Return All / Limit over the contract's pagination and the tolerated alternatives (envelopes, end signals,
// silent page-size caps, a service ignoring `page`), counting requests in the sandbox's request log.
// Records keep their id under the profile's key and lists come in the profile's order (test/helpers/profile.ts).
import { pagesOf, paginationMeta } from '../../nodes/shared/transport/pagination';
import { idKey, listed, listedIds, type Resource } from '../helpers/profile';
import { useSandbox } from './context';

const ctx = useSandbox();
const PRODUCTS = 250;
const allProducts = { resource: 'product', operation: 'getAll', returnAll: true };

type Items = Array<{ json: Record<string, unknown> }>;

/** The output records' ids, read under the key the profile's records use. */
function ids(items: Items, resource: Resource = 'product') {
	return items.map((item) => String(item.json[idKey(resource)]));
}

function expectAllProducts(items: Items, count = PRODUCTS) {
	const got = ids(items);
	expect(got).toHaveLength(count);
	expect(new Set(got).size).toBe(count);
	expect(got).toEqual(listedIds(ctx.sb.state.products.values()).slice(0, count));
}

test('Return All walks every page at the largest page size: ceil(N/100) requests', async () => {
	const { items } = await ctx.run({ parameters: allProducts });
	expectAllProducts(items);
	const log = await ctx.requests();
	expect(log.map((r) => [r.query.page, r.query.limit])).toEqual([
		['1', '100'],
		['2', '100'],
		['3', '100'],
	]);
});

test('Return All keeps the filters on every page', async () => {
	await ctx.admin('POST', '/reset', { sizes: { products: 1200 } });
	const category = String(ctx.sb.state.products.get('prod_00001')!.category);
	const expected = listed(ctx.sb.state.products.values())
		.filter((p) => String(p.category).toLowerCase() === category.toLowerCase())
		.map((p) => p.id);
	expect(expected.length).toBeGreaterThan(100);
	const { items } = await ctx.run({
		parameters: { ...allProducts, filters: { category, search: '' } },
	});
	expect(ids(items)).toEqual(expected);
	const log = await ctx.requests();
	expect(log).toHaveLength(Math.ceil(expected.length / 100));
	for (const logged of log) {
		expect(logged.query.category).toBe(category);
		expect(logged.query).not.toHaveProperty('search');
	}
});

describe.each(['resource', 'data', 'items', 'array'])('list envelope "%s"', (envelope) => {
	test('Return All unwraps every page', async () => {
		await ctx.admin('PUT', '/compat', { list_envelope: envelope });
		const { items, error } = await ctx.run({ parameters: allProducts });
		expect(error).toBeUndefined();
		expectAllProducts(items);
		expect(await ctx.requests()).toHaveLength(3);
	});
});

describe.each([
	'full',
	'has_more',
	'next_page',
	'total_pages',
	'total_pages_top',
	'last_page',
	'none',
])('end signal "%s"', (pagination) => {
	test('stops after the last page', async () => {
		await ctx.admin('PUT', '/compat', { pagination });
		const { items } = await ctx.run({ parameters: allProducts });
		expectAllProducts(items);
		expect(await ctx.requests()).toHaveLength(3);
	});

	test('an exact multiple of the page size costs at most one extra request', async () => {
		await ctx.admin('POST', '/reset', { sizes: { products: 200 } });
		await ctx.admin('DELETE', '/requests');
		await ctx.admin('PUT', '/compat', { pagination });
		const { items } = await ctx.run({ parameters: allProducts });
		expectAllProducts(items, 200);
		const log = await ctx.requests();
		// Without an explicit end signal only the empty third page proves the end.
		expect(log).toHaveLength(pagination === 'none' ? 3 : 2);
	});
});

describe('a service that silently caps the page size', () => {
	test.each(['full', 'none'])(
		'Return All still gets everything (end signal "%s")',
		async (pagination) => {
			await ctx.admin('PUT', '/compat', { page_size_cap: 40, pagination });
			const { items } = await ctx.run({ parameters: allProducts });
			expectAllProducts(items);
			const log = await ctx.requests();
			// 40+40+40+40+40+40+10: ceil(250/40) pages; the short last page ends it even without a signal.
			expect(log).toHaveLength(7);
		},
	);

	test('Limit fetches only the pages it needs', async () => {
		await ctx.admin('PUT', '/compat', { page_size_cap: 40, pagination: 'none' });
		const { items } = await ctx.run({
			parameters: { resource: 'product', operation: 'getAll', limit: 90 },
		});
		expectAllProducts(items, 90);
		expect(await ctx.requests()).toHaveLength(3);
	});
});

test.each(['full', 'none'])(
	'a service ignoring `page` ends at the first repeated page (end signal "%s")',
	async (pagination) => {
		await ctx.admin('PUT', '/compat', { ignore_page: true, pagination });
		const { items, error } = await ctx.run({ parameters: allProducts });
		expect(error).toBeUndefined();
		expectAllProducts(items, 100);
		expect(await ctx.requests()).toHaveLength(2);
	},
);

describe('Limit', () => {
	test('a limit above one page takes only what it needs from the last page', async () => {
		const { items } = await ctx.run({
			parameters: { resource: 'product', operation: 'getAll', limit: 150 },
		});
		expectAllProducts(items, 150);
		expect((await ctx.requests()).map((r) => r.query.limit)).toEqual(['100', '100']);
	});

	test('a limit beyond the total returns everything', async () => {
		const { items } = await ctx.run({
			parameters: { resource: 'product', operation: 'getAll', limit: 1000 },
		});
		expectAllProducts(items);
		expect(await ctx.requests()).toHaveLength(3);
	});
});

describe.each(['resource', 'data'])('single resources wrapped as "%s"', (wrap) => {
	test('are unwrapped for get, create, update and status changes', async () => {
		await ctx.admin('PUT', '/compat', { wrap_single: wrap });
		const store = await ctx.run({
			parameters: { resource: 'store', operation: 'get', storeId: 'store_001' },
		});
		expect(store.items[0].json).toMatchObject({ [idKey('store')]: 'store_001' });
		const order = await ctx.run({
			parameters: {
				resource: 'order',
				operation: 'get',
				orderId: { __rl: true, mode: 'id', value: 'ord_00001' },
			},
		});
		expect(order.items[0].json).toMatchObject({ [idKey('order')]: 'ord_00001' });
		const created = await ctx.run({
			parameters: { resource: 'product', operation: 'create', name: 'Wrapped', price: 2 },
		});
		expect(created.items[0].json).toMatchObject({ name: 'Wrapped', price: 2 });
		expect(created.items[0].json[idKey('product')]).toEqual(expect.stringMatching(/^prod_\d+$/));
		const updated = await ctx.run({
			parameters: {
				resource: 'product',
				operation: 'update',
				productId: { __rl: true, mode: 'id', value: 'prod_00001' },
				updateFields: { name: 'Renamed' },
			},
		});
		expect(updated.items[0].json).toMatchObject({
			[idKey('product')]: 'prod_00001',
			name: 'Renamed',
		});
	});
});

test('customers and orders are unwrapped from other envelopes too', async () => {
	await ctx.admin('PUT', '/compat', { list_envelope: 'items', pagination: 'has_more' });
	const customers = await ctx.run({
		parameters: { resource: 'customer', operation: 'getAll', returnAll: true },
	});
	expect(ids(customers.items, 'customer')).toEqual([...ctx.sb.state.customers.keys()]);
	const orders = await ctx.run({
		parameters: { resource: 'order', operation: 'getAll', returnAll: true },
	});
	expect(ids(orders.items, 'order')).toEqual(listedIds(ctx.sb.state.orders.values()));
});

// Create or Update's choice counts the catalog's pages (docs/storefront-node.md, Finding the products): the length
// wherever a list says it, in pages of 100 asked, or of the size served where the service serves fewer.
describe('pagesOf: how many pages a list has, wherever it says so', () => {
	test.each<[string, unknown, number | undefined]>([
		['total in pagination', { products: [], pagination: { total: 20000 } }, 200],
		['total at the top level', { data: [], total: 20001 }, 201],
		['total in meta, as text', { data: [], meta: { total: '250' } }, 3],
		['total_pages at the top level', { data: [], total_pages: 200 }, 200],
		['total_pages in meta', { data: [], meta: { total_pages: 7 } }, 7],
		['last_page in meta', { data: [], meta: { current_page: 1, last_page: 40 } }, 40],
		['last_page in pagination', { data: [], pagination: { last_page: 12 } }, 12],
		['total_pages before total', { data: [], meta: { total: 20000, total_pages: 400 } }, 400],
		['a list of nothing is one page', { data: [], total: 0 }, 1],
		['has_more only: unknown', { data: [], has_more: true }, undefined],
		['next_page only: unknown', { data: [], meta: { next_page: 2 } }, undefined],
		['a bare array: unknown', [], undefined],
		[
			'a last_page that is a link: unknown',
			{ data: [], links: {}, last_page: 'https://x/?page=9' },
			undefined,
		],
	])('%s', (_, body, pages) => {
		expect(pagesOf(paginationMeta(body), 100, 100)).toBe(pages);
	});

	test('total in pages of the size served: a service that serves 50 where 100 are asked', () => {
		expect(pagesOf({ total: 20000 }, 100, 50)).toBe(400);
		// The whole list on one page: 1, whatever was asked.
		expect(pagesOf({ total: 30 }, 100, 30)).toBe(1);
	});
});

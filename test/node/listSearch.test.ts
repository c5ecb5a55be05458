// "From List" searches of the Product and Order resource locators, through n8n-core's LoadOptionsContext.
import { runListSearch } from '../helpers/n8n';
import { listed, listedIds } from '../helpers/profile';
import { useSandbox } from './context';

const ctx = useSandbox();

/** Every product From List offers as the user scrolls to the end (at most 20 pages), and how many pages it read. */
async function scrollProducts() {
	const seen: string[] = [];
	let token: string | undefined;
	let pages = 0;
	do {
		const result = await runListSearch('searchProducts', ctx.credentials, {
			paginationToken: token,
		});
		seen.push(...result.results.map((r) => String(r.value)));
		token = result.paginationToken as string | undefined;
		pages++;
	} while (token && pages < 20);
	return { seen, pages, token };
}

describe('searchProducts', () => {
	test('pages through every product with the pagination token', async () => {
		const { seen, pages } = await scrollProducts();
		expect(pages).toBe(3);
		expect(seen).toEqual(listedIds(ctx.sb.state.products.values()));
	});

	test.each(['full', 'none'])(
		'a service that silently caps the page size: every product (end signal "%s")',
		async (pagination) => {
			await ctx.admin('PUT', '/compat', { page_size_cap: 40, pagination });
			const { seen, pages, token } = await scrollProducts();
			// 40+40+40+40+40+40+10: the short last page ends it even without a signal.
			expect(pages).toBe(7);
			expect(token).toBeUndefined();
			expect(seen).toEqual(listedIds(ctx.sb.state.products.values()));
		},
	);

	test.each(['full', 'none'])(
		'a service ignoring `page`: the first page once, then the end (end signal "%s")',
		async (pagination) => {
			await ctx.admin('PUT', '/compat', { ignore_page: true, pagination });
			const { seen, token } = await scrollProducts();
			expect(token).toBeUndefined();
			expect(seen).toEqual(listedIds(ctx.sb.state.products.values()).slice(0, 100));
		},
	);

	test('uses the search box text as the API search filter', async () => {
		const product = ctx.sb.state.products.get('prod_00042')!;
		const result = await runListSearch('searchProducts', ctx.credentials, {
			filter: String(product.sku),
		});
		expect(result.results.map((r) => r.value)).toContain('prod_00042');
		expect(result.results[0].name).toContain(String(product.name));
		const [logged] = await ctx.requests();
		expect(logged.query).toMatchObject({ search: String(product.sku), page: '1' });
	});
});

describe('searchOrders', () => {
	test('a status typed in the search box lists only orders in that status', async () => {
		const shipped = listed(ctx.sb.state.orders.values())
			.filter((o) => o.status === 'shipped')
			.map((o) => o.id);
		expect(shipped.length).toBeGreaterThan(0);
		const result = await runListSearch('searchOrders', ctx.credentials, { filter: 'Shipped' });
		expect(result.results.map((r) => r.value)).toEqual(shipped);
		expect(result.results[0].name).toContain('shipped');
		const [logged] = await ctx.requests();
		expect(logged.query.status).toBe('shipped');
	});

	test('other text matches order ids', async () => {
		const result = await runListSearch('searchOrders', ctx.credentials, { filter: 'ord_0001' });
		const values = result.results.map((r) => String(r.value));
		expect(values.length).toBeGreaterThan(0);
		for (const value of values) expect(value).toContain('ord_0001');
	});

	test('without a filter it lists orders and reports no further page at the end', async () => {
		const result = await runListSearch('searchOrders', ctx.credentials);
		expect(result.results).toHaveLength(ctx.sb.state.orders.size);
		expect(result.paginationToken).toBeUndefined();
	});
});

describe('records without an id', () => {
	test('From List says so instead of offering undefined values', async () => {
		await ctx.admin('PUT', '/compat', { record_ids: 'none' });
		await expect(runListSearch('searchProducts', ctx.credentials)).rejects.toThrow(
			'Storefront\'s products have no id: none of the 100 listed has "id" or "product_id"',
		);
		await expect(runListSearch('searchOrders', ctx.credentials)).rejects.toThrow(
			'Storefront\'s orders have no id: none of the 60 listed has "id" or "order_id"',
		);
	});
});

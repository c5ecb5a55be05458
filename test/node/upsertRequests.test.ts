// Product › Create or Update costs what the run changes, not the size of the shop: against 20,000 products, through
// n8n-core's WorkflowExecute and the sandbox, in the suite's profile (contract, or spec-literal in the
// unit-spec-literal project). Request counts are the sandbox's log. A new API key is a service this process has
// learnt nothing of (the finder's memory is per account), as on n8n's first run after a start. The output items are
// the products; what a run did is read from the service's side (./writes) and the hints.
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INodeExecutionData,
	INodeType,
	IRun,
} from 'n8n-workflow';

import type { Storefront } from '../../nodes/Storefront/Storefront.node';
import { sharedDeduplicator } from '../helpers/deduplication';
import { NODE_NAME, registerNodeType } from '../helpers/n8n';
import { useSandbox, type LoggedRequest } from './context';
import { outcomeOf, upsertParameters as upsert, watchWrites } from './writes';

const ctx = useSandbox({ products: 20_000, orders: 5, customers: 5 });
const written = watchWrites(ctx);
jest.setTimeout(120_000);
// n8n's store for the creates' claims, as n8n registers one per process.
sharedDeduplicator();

type Row = Record<string, unknown>;

let keys = 0;
/** A new API key at the sandbox: a service the node has learnt nothing of in this process. */
async function freshKey() {
	const apiKey = `sf_test_fresh_${++keys}_${Date.now()}`;
	await ctx.admin('POST', '/keys', { key: apiKey, plan: 'business' });
	return { baseUrl: ctx.credentials.baseUrl, apiKey };
}

async function run(
	items: Row[],
	credentials: ICredentialDataDecryptedObject,
	parameters = upsert(),
	nodeType?: string,
) {
	await ctx.admin('DELETE', '/requests');
	const writtenBefore = written().length;
	const result = await ctx.run({
		items: items as IDataObject[],
		parameters,
		credentials,
		continueOnFail: true,
		nodeType,
	});
	const log = (await ctx.requests()).filter((r) => r.path.startsWith('/v1/'));
	const writes = written().slice(writtenBefore);
	// What the run did to each item's product (its output), from the service's side; a failed item, its error.
	const outcomes = result.items.map((item) => item.json.error ?? outcomeOf(writes, item.json.sku));
	return { ...result, log, hints: hintsOf(result.run), writes, outcomes };
}

const hintsOf = (run: IRun) =>
	(run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? []).map((h) => h.message);
const products = () => [...ctx.sb.state.products.values()];
const withSku = (sku: string) => products().filter((p) => p.sku === sku);
/** The SKUs of the output items: each item is its row's product. */
const skusOf = (items: INodeExecutionData[]) => items.map((item) => item.json.sku);
const shape = (log: LoggedRequest[]) =>
	log.map(
		(r) =>
			`${r.method} ${r.path.replace(/prod_\w+/, '{id}')}${r.query.search !== undefined ? ' search' : r.method === 'GET' ? ` page ${r.query.page}` : ''}`,
	);
let serial = 0;
/** SKUs of its own for every test: a create's claim in n8n's store outlives the sandbox's reset. */
const newSku = () => `NEW-${Date.now().toString(36)}-${++serial}`;
/** An existing product far from the catalog's first page, as a row that sets a new price. */
const changed = (n: number): Row => {
	const p = products()[5_000 + n * 7];
	return { sku: p.sku, name: p.name, price: (Number(p.price) + 1).toFixed(2) };
};
const fresh = (): Row => ({ sku: newSku(), name: 'Fresh Product', price: '9.50', stock: '4' });

describe('requests in proportion to the run: 20,000 products', () => {
	test('1 changed SKU: 3 requests (the first page, its lookup, the PUT); then 1 new SKU: 3 (its lookup, a search proving SKUs are searched, the POST)', async () => {
		const key = await freshKey();
		const row = changed(1);
		const first = await run([row], key);
		expect(skusOf(first.items)).toEqual([row.sku]);
		expect(first.outcomes).toEqual(['updated price']);
		expect(shape(first.log)).toEqual([
			'GET /v1/products page 1',
			'GET /v1/products search',
			'PUT /v1/products/{id}',
		]);
		expect(first.hints).toContain(
			'Found the products by looking up each SKU (2 requests) instead of reading the catalog (200 pages)',
		);
		expect(withSku(String(row.sku))[0].price).toBe(Number(row.price));

		const one = fresh();
		const second = await run([one], key);
		expect(skusOf(second.items)).toEqual([one.sku]);
		expect(second.outcomes).toEqual(['created']);
		// The process knows the catalog's size; the lookup finds nothing, and one search of a SKU only the first run's
		// product holds shows that the service's search looks at SKUs: the SKU is new.
		expect(shape(second.log)).toEqual([
			'GET /v1/products search',
			'GET /v1/products search',
			'POST /v1/products',
		]);
		expect(withSku(String(one.sku))).toHaveLength(1);
	});

	test('1 new SKU on a service the process has not met: 4 requests (the first page, the lookup, the proving search, the POST)', async () => {
		const one = fresh();
		const result = await run([one], await freshKey());
		expect(skusOf(result.items)).toEqual([one.sku]);
		expect(result.outcomes).toEqual(['created']);
		expect(shape(result.log)).toEqual([
			'GET /v1/products page 1',
			'GET /v1/products search',
			'GET /v1/products search',
			'POST /v1/products',
		]);
		expect(withSku(String(one.sku))).toHaveLength(1);
	});

	test('10 rows, 5 changed and 5 new: 21 requests (the first page, 10 lookups, 10 writes); the same rows again: 10 lookups', async () => {
		const key = await freshKey();
		const rows = [
			...Array.from({ length: 5 }, (_, n) => changed(n)),
			...Array.from({ length: 5 }, fresh),
		];
		const first = await run(rows, key);
		expect(skusOf(first.items)).toEqual(rows.map((row) => row.sku));
		expect(first.outcomes).toEqual([
			...Array(5).fill('updated price'),
			...Array(5).fill('created'),
		]);
		expect(first.hints[0]).toBe('Created 5, updated 5, left 0 unchanged');
		expect(first.log).toHaveLength(21);
		expect(first.log.filter((r) => r.query.search !== undefined)).toHaveLength(10);
		expect(first.log.filter((r) => r.method === 'POST')).toHaveLength(5);
		expect(first.log.filter((r) => r.method === 'PUT')).toHaveLength(5);

		const again = await run(rows, key);
		expect(skusOf(again.items)).toEqual(rows.map((row) => row.sku));
		expect(again.outcomes).toEqual(Array(10).fill('unchanged'));
		expect(again.writes).toEqual([]);
		expect(shape(again.log)).toEqual(Array(10).fill('GET /v1/products search'));
		for (const row of rows) expect(withSku(String(row.sku))).toHaveLength(1);
	});

	test('Find Products By forces either way: the whole catalog (200 pages) for 1 row, or lookups', async () => {
		const key = await freshKey();
		const catalog = await run([changed(2)], key, upsert({ findProductsBy: 'catalog' }));
		expect(catalog.log.filter((r) => r.method === 'GET')).toHaveLength(200);
		expect(catalog.hints).toContain(
			'Found the products by reading the catalog (200 pages): 200 requests',
		);
		const lookup = await run([changed(3)], await freshKey(), upsert({ findProductsBy: 'lookup' }));
		expect(shape(lookup.log)).toEqual(['GET /v1/products search', 'PUT /v1/products/{id}']);
	});
});

// How a list shows its length and its end (contract row 6's alternatives; sandbox compat `pagination`): the length as
// `total`, `total_pages` or `last_page`, at the top level or in `meta`/`pagination`, or nothing but its end.
describe('a few rows cost a few requests, however the list shows its end: 20,000 products, a process that has met none', () => {
	test.each([
		['total in pagination (the contract)', 'full'],
		['total and total_pages in meta', 'meta'],
		['total_pages in meta', 'total_pages'],
		['total_pages at the top level', 'total_pages_top'],
		['last_page in meta', 'last_page'],
		['has_more only', 'has_more'],
		['next_page only', 'next_page'],
		['a short last page only', 'none'],
	])(
		'%s: 1 existing SKU at most 3, 1 new SKU at most 4, 10 rows (5 changed, 5 new) at most 25',
		async (_, pagination) => {
			await ctx.admin('PUT', '/compat', { pagination });
			const existing = await run([changed(6)], await freshKey());
			expect(existing.outcomes).toEqual(['updated price']);
			expect(existing.log.length).toBeLessThanOrEqual(3);

			const one = fresh();
			const created = await run([one], await freshKey());
			expect(created.outcomes).toEqual(['created']);
			expect(created.log.length).toBeLessThanOrEqual(4);
			expect(withSku(String(one.sku))).toHaveLength(1);

			const rows = [
				...Array.from({ length: 5 }, (_, n) => changed(10 + n)),
				...Array.from({ length: 5 }, fresh),
			];
			const ten = await run(rows, await freshKey());
			expect(ten.outcomes).toEqual([
				...Array(5).fill('updated price'),
				...Array(5).fill('created'),
			]);
			expect(ten.log.length).toBeLessThanOrEqual(25);
			for (const row of rows) expect(withSku(String(row.sku))).toHaveLength(1);
		},
	);
});

describe('never a duplicate from a cheaper lookup: a service whose search matches names only, and accepts a taken SKU', () => {
	beforeEach(async () => {
		await ctx.admin('PUT', '/compat', { product_search: 'name', unique_sku: false });
	});

	test.each([
		['a service the process has not met', false],
		['a key whose search the process saw find SKUs before the service changed', true],
	])(
		'%s: 1 existing and 1 new SKU, the existing updated and one product with the new SKU; again, nothing written',
		async (_, warm) => {
			const key = await freshKey();
			if (warm) {
				await ctx.admin('PUT', '/compat', { product_search: 'contract' });
				expect((await run([changed(4)], key)).outcomes).toEqual(['updated price']);
				await ctx.admin('PUT', '/compat', { product_search: 'name' });
			}
			const rows = [changed(5), fresh()];
			for (const findProductsBy of ['auto', 'lookup']) {
				const result = await run(rows, key, upsert({ findProductsBy }));
				expect(skusOf(result.items)).toEqual(rows.map((row) => row.sku));
				expect(result.outcomes).toEqual(
					findProductsBy === 'auto' ? ['updated price', 'created'] : ['unchanged', 'unchanged'],
				);
				// The lookups found neither, and no search finds a product by its SKU: the catalog is read.
				const reads = result.log.filter((r) => r.method === 'GET').length;
				expect(result.hints).toContainEqual(
					expect.stringMatching(
						new RegExp(
							`^Found the products by reading the catalog \\(20\\d pages\\): ${reads} requests, as the service's search did not find a product by its SKU$`,
						),
					),
				);
				for (const row of rows) expect(withSku(String(row.sku))).toHaveLength(1);
				expect(result.log.filter((r) => r.method === 'POST')).toHaveLength(
					findProductsBy === 'auto' ? 1 : 0,
				);
			}
		},
	);
});

describe('a spreadsheet as people write it', () => {
	test('headers SKU, Name, Price, Stock in any case and spacing; prices sent as compared (to the cent); the same rows again: nothing written', async () => {
		const key = await freshKey();
		const p = products()[12_345];
		const rows = [
			// Four decimals, as a feed computes them: sent to the cent. (Three would have two readings: 19.904 or 19904.)
			{ SKU: ` ${p.sku} `, 'Name ': p.name, Price: '19.9040', stock: String(p.stock) },
			{ Sku: newSku(), NAME: 'Sheet Product', ' price': '4.5', STOCK: '12' },
		];
		const first = await run(rows, key);
		expect(skusOf(first.items)).toEqual([p.sku, rows[1].Sku]);
		expect(first.outcomes).toEqual(['updated price', 'created']);
		expect(first.writes.find((write) => write.method === 'POST')?.fields).toEqual([
			'sku',
			'name',
			'price',
			'stock',
		]);
		expect(ctx.sb.state.products.get(p.id)!.price).toBe(19.9);
		expect(withSku(String(rows[1].Sku))[0]).toMatchObject({
			name: 'Sheet Product',
			price: 4.5,
			stock: 12,
		});
		const again = await run(rows, key);
		expect(again.outcomes).toEqual(['unchanged', 'unchanged']);
		expect(again.log.filter((r) => r.method !== 'GET')).toEqual([]);
	});

	test('a SKU that came as a number is read as text, said in a hint; one that lost its leading zeros creates nothing', async () => {
		const key = await freshKey();
		await ctx.admin('DELETE', '/requests');
		const padded = String(Date.now() % 100_000).padStart(8, '0');
		const bare = Number(padded);
		const plain = 7_000_000 + (Date.now() % 1_000_000);
		const made = await run([{ sku: padded, name: 'Padded', price: '1' }], key);
		expect(made.outcomes).toEqual(['created']);
		const result = await run(
			[
				{ sku: bare, name: 'Padded', price: '2' },
				{ sku: plain, name: 'Plain', price: '3' },
			],
			key,
		);
		expect(result.items[0].json.error).toBe(
			`The SKU came as the number ${bare}, and product ${String(withSku(padded)[0].id)} has the SKU "${padded}": no product was created`,
		);
		expect(withSku(String(bare))).toHaveLength(0);
		expect(result.items[1].json).toMatchObject({ sku: String(plain), name: 'Plain', price: 3 });
		expect(result.outcomes).toEqual([result.items[0].json.error, 'created']);
		expect(result.writes).toEqual([
			expect.objectContaining({ method: 'POST', sku: String(plain) }),
		]);
		expect(result.hints).toContain(
			'2 SKU values came as a number and were read as text; a number loses leading zeros (000123 becomes 123): read that column as text',
		);
	});
});

describe("once across queue workers: two processes run Create or Update at the same moment, sharing n8n's store", () => {
	/** The node as another n8n process loads it: its own module state (writer turns, what it learnt, claim batches). */
	function anotherProcess(name: string): string {
		let fresh: typeof Storefront | undefined;
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const loaded = require('../../nodes/Storefront/Storefront.node') as {
				Storefront: typeof Storefront;
			};
			fresh = loaded.Storefront;
		});
		registerNodeType(name, new fresh!() as unknown as INodeType);
		return name;
	}

	test('2 runs of 200 rows with the same 50 new SKUs, on a service that accepts a taken SKU: 50 products, each once', async () => {
		await ctx.admin('PUT', '/compat', { unique_sku: false });
		await ctx.admin('PUT', '/latency', { ms: 5 });
		const key = await freshKey();
		const shared = Array.from({ length: 50 }, fresh);
		const rowsOf = (offset: number) => [
			...shared,
			...Array.from({ length: 150 }, (_, n) => changed(offset + n)),
		];
		await ctx.admin('DELETE', '/requests');
		const [a, b] = await Promise.all([
			ctx.run({
				items: rowsOf(10) as IDataObject[],
				parameters: upsert(),
				credentials: key,
				continueOnFail: true,
				nodeType: anotherProcess('harness.workerA'),
			}),
			ctx.run({
				items: rowsOf(200) as IDataObject[],
				parameters: upsert(),
				credentials: key,
				continueOnFail: true,
				nodeType: anotherProcess('harness.workerB'),
			}),
		]);
		await ctx.admin('PUT', '/latency', { ms: 0 });
		for (const row of shared) expect(withSku(String(row.sku))).toHaveLength(1);
		const log = await ctx.requests();
		expect(log.filter((r) => r.method === 'POST')).toHaveLength(50);
		const all = [...a.items, ...b.items].map((item) => item.json);
		expect(all.filter((json) => json.error !== undefined)).toEqual([]);
		// Each item is its row's product; each shared SKU was created once, by one of the two runs.
		expect(skusOf(a.items)).toEqual(rowsOf(10).map((row) => row.sku));
		expect(skusOf(b.items)).toEqual(rowsOf(200).map((row) => row.sku));
		const creates = written().filter((write) => write.method === 'POST');
		expect(creates.map((write) => write.sku).sort()).toEqual(shared.map((row) => row.sku).sort());
		const counts = [a, b].map((r) => hintsOf(r.run).find((hint) => hint.startsWith('Created ')));
		const createdBy = counts.map((hint) => Number(/^Created (\d+),/.exec(String(hint))?.[1]));
		expect(createdBy[0] + createdBy[1]).toBe(50);
	});
});

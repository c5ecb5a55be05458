/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; the example is read from examples/ */
// Product › Create or Update (catalog sync) through n8n-core's WorkflowExecute against the sandbox, in the suite's
// profile (contract, or spec-literal in the unit-spec-literal project): one catalog read per run, a write only where a
// field differs, one product per SKU (duplicate rows, a create whose answer was lost, two runs at once), the output
// panel's hints. Each output item is the product, as Create and Update output it; what the run did is read from the
// service's side (./writes: each create and update, with the fields sent) and from the hints. Request counts are the
// sandbox's log.
import { randomUUID } from 'crypto';
import { readFileSync } from 'fs';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IExecuteFunctions,
	IRun,
} from 'n8n-workflow';
import path from 'path';

import { Storefront } from '../../nodes/Storefront/Storefront.node';
import { mapperFields } from '../../nodes/Storefront/v1/actions/product/editorFields';
import { changedFields, unshown } from '../../nodes/Storefront/v1/actions/product/fields';
import { registerNodeType, STOREFRONT_TYPE, NODE_NAME } from '../helpers/n8n';
import { api, recentFirst } from '../helpers/sandbox';
import { idKey } from '../helpers/profile';
import { jsonOf, useSandbox, type LoggedRequest } from './context';
import { outcomeOf, tally, upsertParameters, watchWrites, type Write } from './writes';

// A 1,000-product shop, as in the issue; each test starts from it.
const ctx = useSandbox({ products: 1000, orders: 10, customers: 5 });
const written = watchWrites(ctx);
jest.setTimeout(60_000);

type Row = Record<string, unknown>;

/** Create or Update as ./writes gives it, with n8n's type conversion off, `columns` and `more` on top. */
function upsert(columns: INodeParameters = {}, more: INodeParameters = {}): INodeParameters {
	const parameters = upsertParameters();
	const mapper = parameters.columns as INodeParameters;
	return {
		...parameters,
		columns: { ...mapper, attemptToConvertTypes: false, convertFieldsToString: false, ...columns },
		...more,
	};
}

const run = async (
	items: Row[],
	parameters: INodeParameters = upsert(),
	extra: { continueOnFail?: boolean; nodeType?: string } = {},
) => await ctx.run({ items: items as IDataObject[], parameters, ...extra });

/** The rows of a CSV export: every value text, prices with two decimals. */
const asCsvRow = (p: IDataObject): Row => ({
	sku: p.sku,
	name: p.name,
	price: Number(p.price).toFixed(2),
	stock: String(p.stock),
});

const products = () => [...ctx.sb.state.products.values()];
const withSku = (sku: string) => products().filter((p) => p.sku === sku);
const hintsOf = (result: { run: IRun }) =>
	(result.run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? []).map((h) => h.message);
/** What the writes did to each row's product, by its SKU (./writes): "created", "updated price", "unchanged". */
const outcomes = (rows: Row[], done: Write[] = written(), sku = (row: Row) => row.sku) =>
	rows.map((row) => outcomeOf(done, String(sku(row)).trim()));
/** The SKUs of the output items: each item is its row's product. */
const skusOf = (items: INodeExecutionData[]) => items.map((item) => item.json.sku);
/** The fields of a product as Create, Update and Get Many output it, in the suite's profile. */
async function productKeys(): Promise<string[]> {
	const listed = await ctx.run({
		parameters: { resource: 'product', operation: 'getAll', limit: 1 },
	});
	return Object.keys(listed.items[0].json).sort();
}
const writes = (log: LoggedRequest[]) => log.filter((r) => r.method !== 'GET');
const catalogReads = (log: LoggedRequest[]) =>
	log.filter(
		(r) => r.method === 'GET' && r.path === '/v1/products' && r.query.search === undefined,
	);

describe('a catalog sync: 1,000 products, 500 rows (300 existing SKUs, 10 of them with a new price, 200 new SKUs)', () => {
	function rows(): Row[] {
		const existing = products()
			.slice(0, 300)
			.map((p, n) => ({
				...asCsvRow(p),
				...(n % 30 === 0 ? { price: (Number(p.price) + 1).toFixed(2) } : {}),
			}));
		const fresh = Array.from({ length: 200 }, (_, n) => ({
			sku: `NEW-${n}`,
			name: `New Product ${n}`,
			price: `${10 + n}.50`,
			stock: '7',
		}));
		return [...existing, ...fresh];
	}

	test('requests: the catalog read (10 pages) + 200 creates + 10 updates, nothing else; the same rows again: the read only', async () => {
		const input = rows();
		const first = await run(input);
		expect(first.error).toBeUndefined();
		expect(first.items).toHaveLength(500);
		expect(first.items.map((item) => item.pairedItem)).toEqual(input.map((_, item) => ({ item })));
		// Each item is its row's product; the 10 repriced products got their price, the new SKUs were created, the
		// others were not written.
		expect(skusOf(first.items)).toEqual(input.map((row) => row.sku));
		const done = outcomes(input);
		expect(tally(done)).toEqual({ created: 200, updated: 10, unchanged: 290 });
		expect(done).toEqual(
			input.map((_, n) => (n >= 300 ? 'created' : n % 30 === 0 ? 'updated price' : 'unchanged')),
		);

		const log = await ctx.requests();
		const reads = catalogReads(log);
		expect(reads.map((r) => [r.query.page, r.query.limit])).toEqual(
			Array.from({ length: 10 }, (_, n) => [String(n + 1), '100']),
		);
		expect(writes(log).filter((r) => r.method === 'POST')).toHaveLength(200);
		expect(writes(log).filter((r) => r.method === 'PUT')).toHaveLength(10);
		expect(log).toHaveLength(220);
		expect(hintsOf(first)).toEqual(
			expect.arrayContaining([
				'Created 200, updated 10, left 290 unchanged',
				'Updated Price on 10 products',
			]),
		);

		// The shop now holds what the rows say.
		for (const row of input) {
			const [product] = withSku(String(row.sku));
			expect({ sku: product.sku, price: product.price.toFixed(2) }).toEqual({
				sku: row.sku,
				price: row.price,
			});
		}
		expect(ctx.sb.state.products.size).toBe(1200);

		await ctx.admin('DELETE', '/requests');
		const writtenBefore = written().length;
		const again = await run(input);
		expect(again.error).toBeUndefined();
		expect(skusOf(again.items)).toEqual(input.map((row) => row.sku));
		expect(written().slice(writtenBefore)).toEqual([]);
		const second = await ctx.requests();
		expect(writes(second)).toEqual([]);
		expect(catalogReads(second)).toHaveLength(12);
		expect(second).toHaveLength(12);
		expect(hintsOf(again)).toContain('Created 0, updated 0, left 500 unchanged');
		expect(hintsOf(again).filter((hint) => hint.startsWith('Updated '))).toEqual([]);
	});

	test("on a limited plan (Starter's kind of limit, shortened: 50 per 1 s window): 0 failed items, the same requests, the wait said", async () => {
		await ctx.admin('PUT', '/ratelimit', { window_ms: 1000, limits: { starter: 50 } });
		try {
			const apiKey = `sf_test_starter_${randomUUID().slice(0, 8)}`;
			await ctx.admin('POST', '/keys', { key: apiKey, plan: 'starter' });
			const input = rows();
			const result = await ctx.run({
				credentials: { baseUrl: ctx.sb.baseUrl, apiKey },
				items: input as IDataObject[],
				parameters: upsert(),
				continueOnFail: true,
			});
			expect(result.error).toBeUndefined();
			expect(result.items.filter((item) => item.json.error !== undefined)).toEqual([]);
			expect(skusOf(result.items)).toEqual(input.map((row) => row.sku));
			expect(tally(outcomes(input))).toEqual({ created: 200, updated: 10, unchanged: 290 });
			const served = (await ctx.requests()).filter((r) => r.status !== 429);
			expect(served).toHaveLength(220);
			expect(hintsOf(result)).toEqual(
				expect.arrayContaining([
					expect.stringMatching(/^Waited \d+ s for Storefront's rate limit$/),
					'Created 200, updated 10, left 290 unchanged',
				]),
			);
		} finally {
			await ctx.admin('DELETE', '/ratelimit');
		}
	});

	test('each output item is the product as the service has it, as Create and Update output it; what was done is in the hints', async () => {
		const [kept, repriced] = products();
		const rows = [
			asCsvRow(kept),
			{ ...asCsvRow(repriced), price: '1.25' },
			{ sku: 'NEW-A', name: 'Fresh', price: 3 },
		];
		const { items, run: execution } = await run(rows);
		const [unchanged, updated, created] = jsonOf(items);
		const keys = await productKeys();
		for (const json of [unchanged, updated, created])
			expect(Object.keys(json).sort()).toEqual(keys);
		expect(unchanged).toMatchObject({
			[idKey('product')]: kept.id,
			sku: kept.sku,
			price: kept.price,
		});
		expect(updated).toMatchObject({ [idKey('product')]: repriced.id, price: 1.25 });
		expect(created).toMatchObject({
			[idKey('product')]: expect.stringMatching(/^prod_/),
			sku: 'NEW-A',
			name: 'Fresh',
			price: 3,
		});
		expect(written()).toEqual([
			expect.objectContaining({ method: 'PUT', id: repriced.id, fields: ['price'] }),
			expect.objectContaining({ method: 'POST', sku: 'NEW-A', fields: ['sku', 'name', 'price'] }),
		]);
		expect(hintsOf({ run: execution }).slice(0, 2)).toEqual([
			'Created 1, updated 1, left 1 unchanged',
			'Updated Price on 1 product',
		]);
	});
});

describe('never twice', () => {
	beforeEach(async () => {
		// A service without the contract's unique-SKU rule (the spec states none): a second create would succeed.
		await ctx.admin('PUT', '/compat', { unique_sku: false });
	});

	test('rows with the same SKU in one run write one product, in input order', async () => {
		const rows = [
			{ sku: 'DUP-1', name: 'Twice', price: '5.00' },
			{ sku: 'OTHER-1', name: 'Other', price: '1.00' },
			{ sku: 'DUP-1', name: 'Twice', price: '6.00' },
			{ sku: 'DUP-1', name: 'Twice', price: '6' },
		];
		const { items, error } = await run(rows);
		expect(error).toBeUndefined();
		// DUP-1: created at 5, then its price set to 6 once; the last row found it at 6 and wrote nothing.
		expect(outcomes(rows)).toEqual([
			'created + updated price',
			'created',
			'created + updated price',
			'created + updated price',
		]);
		expect(jsonOf(items).map((json) => [json.sku, json.price])).toEqual([
			['DUP-1', 5],
			['OTHER-1', 1],
			['DUP-1', 6],
			['DUP-1', 6],
		]);
		expect(withSku('DUP-1')).toHaveLength(1);
		expect(withSku('DUP-1')[0].price).toBe(6);
		expect(writes(await ctx.requests()).map((r) => r.method)).toEqual(
			expect.arrayContaining(['POST', 'POST', 'PUT']),
		);
		expect(writes(await ctx.requests())).toHaveLength(3);
	});

	test('a create answered by a dropped connection after the service stored it: one product, and the hints say so', async () => {
		await ctx.admin('POST', '/faults', { type: 'lost', method: 'POST', count: 1 });
		const rows = [
			{ sku: 'LOST-1', name: 'Answer Lost', price: '12.00', stock: '3' },
			{ sku: 'LOST-1', name: 'Answer Lost', price: '12.00', stock: '3' },
		];
		const result = await run(rows, upsert({}, { findProductsBy: 'catalog' }));
		expect(result.error).toBeUndefined();
		expect(withSku('LOST-1')).toHaveLength(1);
		// Both items are the one product; it was created once, and the second row wrote nothing.
		const product = { sku: 'LOST-1', [idKey('product')]: withSku('LOST-1')[0].id };
		expect(jsonOf(result.items)).toEqual([
			expect.objectContaining(product),
			expect.objectContaining(product),
		]);
		expect(outcomes(rows)).toEqual(['created', 'created']);
		expect(written()).toHaveLength(1);
		expect(hintsOf(result)).toContainEqual(
			expect.stringMatching(
				/^1 create got no usable answer \(Could not reach the Storefront API .+\); its product was found by SKU and not created again: "LOST-1"$/,
			),
		);
		expect(hintsOf(result)[0]).toBe('Created 1, updated 0, left 1 unchanged');
		const log = await ctx.requests();
		expect(writes(log).map((r) => `${r.method} ${String(r.status)}`)).toEqual(['POST dropped']);
		// The look-up: one search for the SKU, after the catalog read.
		expect(log.filter((r) => r.query.search !== undefined).map((r) => r.query.search)).toEqual([
			'LOST-1',
		]);
	});

	test('a create that got no answer and is not in the shop is not sent again, and neither is a later row of its SKU', async () => {
		await ctx.admin('POST', '/faults', { type: 'drop', method: 'POST', count: 1 });
		const rows = [
			{ sku: 'GONE-1', name: 'Never Stored', price: '4.00' },
			{ sku: 'GONE-1', name: 'Never Stored', price: '4.00' },
		];
		const { items } = await run(rows, upsert(), { continueOnFail: true });
		const [first, second] = jsonOf(items);
		expect(first.error).toMatch(
			/^The create of the product with SKU "GONE-1" got no usable answer \(Could not reach the Storefront API .+\), and no such product is there yet; it was not sent again$/,
		);
		expect(second.error).toMatch(
			/^An earlier item's create of the product with SKU "GONE-1" got no usable answer/,
		);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(withSku('GONE-1')).toHaveLength(0);
		expect(writes(await ctx.requests()).map((r) => `${r.method} ${String(r.status)}`)).toEqual([
			'POST dropped',
		]);
	});

	test('a create answered 200 without a product is treated like a lost answer: looked up, not sent again', async () => {
		// The sandbox's 'empty' fault answers 200 with an empty body and stores nothing: the look-up finds no product.
		await ctx.admin('POST', '/faults', { type: 'empty', method: 'POST', count: 1 });
		const { items } = await run(
			[{ sku: 'EMPTY-1', name: 'Empty Answer', price: '2.00' }],
			upsert({}, { findProductsBy: 'catalog' }),
			{ continueOnFail: true },
		);
		expect(items[0].json.error).toMatch(
			/^The create of the product with SKU "EMPTY-1" got no usable answer \(Storefront answered POST \/products with 200 and an unexpected body/,
		);
		const log = await ctx.requests();
		expect(writes(log)).toHaveLength(1);
		expect(log.filter((r) => r.query.search !== undefined).map((r) => r.query.search)).toEqual([
			'EMPTY-1',
		]);
	});

	test('two runs at once in one n8n process create each new SKU once: the second reads the catalog after the first wrote', async () => {
		// 100 ms a request: the first run's 10 catalog pages alone take a second, which the second run waits out.
		await ctx.admin('PUT', '/latency', { ms: 100 });
		const rows = [
			...products().slice(0, 10).map(asCsvRow),
			...Array.from({ length: 10 }, (_, n) => ({
				sku: `BOTH-${n}`,
				name: `Both ${n}`,
				price: '2.00',
			})),
		];
		try {
			const [a, b] = await Promise.all([run(rows), run(rows)]);
			expect([a.error, b.error]).toEqual([undefined, undefined]);
			for (let n = 0; n < 10; n++) expect(withSku(`BOTH-${n}`)).toHaveLength(1);
			// One run created the 10 new SKUs; the other found them and left all 20 products as they were.
			expect(outcomes(rows)).toEqual([
				...Array(10).fill('unchanged'),
				...Array(10).fill('created'),
			]);
			expect(
				[a, b].map((r) => hintsOf(r).find((hint) => hint.startsWith('Created '))).sort(),
			).toEqual([
				'Created 0, updated 0, left 20 unchanged',
				'Created 10, updated 0, left 10 unchanged',
			]);
			for (const r of [a, b]) expect(skusOf(r.items)).toEqual(rows.map((row) => row.sku));
			expect(writes(await ctx.requests()).filter((r) => r.method === 'POST')).toHaveLength(10);
			const waited = [a, b].map((r) =>
				hintsOf(r).some((hint) =>
					/^Waited \d+ s for another Create or Update run on this API key to finish$/.test(hint),
				),
			);
			expect(waited.sort()).toEqual([false, true]);
		} finally {
			await ctx.admin('DELETE', '/latency');
		}
	});

	test('a product changed in the shop while the run reads the catalog (it moves to the front, onto a page read already): found and updated, not created again', async () => {
		// A list most recently changed first (contract row 21), in either profile.
		await ctx.admin('PUT', '/compat', { list_order: 'recent' });
		const moving = recentFirst(products())[450];
		const rows = [
			{ ...asCsvRow(moving), price: (Number(moving.price) + 1).toFixed(2) },
			{ sku: 'MOVED-NEW-1', name: 'New While Moving', price: '3.00' },
		];
		// Someone changes the product between the run's first and second catalog pages (the list is most recently
		// changed first, contract row 21): it moves to page 1, which the run has read.
		const state = ctx.sb.state as unknown as {
			listProducts(query: IDataObject): unknown;
			updateProduct(id: string, body: IDataObject): unknown;
		};
		const list = state.listProducts.bind(state);
		let pages = 0;
		const spy = jest.spyOn(state, 'listProducts').mockImplementation((query) => {
			if (!query.search && ++pages === 2) state.updateProduct(String(moving.id), { stock: 7 });
			return list(query);
		});
		try {
			const { error } = await run(rows, upsert({}, { findProductsBy: 'catalog' }));
			expect(error).toBeUndefined();
		} finally {
			spy.mockRestore();
		}
		expect(withSku(String(moving.sku)).map((p) => p.price)).toEqual([Number(rows[0].price)]);
		expect(withSku('MOVED-NEW-1')).toHaveLength(1);
		const log = await ctx.requests();
		expect(writes(log).map((r) => `${r.method} ${r.path}`)).toEqual([
			`PUT /v1/products/${String(moving.id)}`,
			'POST /v1/products',
		]);
		// The read saw the list move: each product it would create was looked up first (here 2, by their SKUs).
		expect(log.filter((r) => r.query.search !== undefined).map((r) => r.query.search)).toEqual([
			moving.sku,
			'MOVED-NEW-1',
		]);
	});

	test('a SKU two products have: that item fails naming both ids, and neither is written', async () => {
		const [taken] = products();
		const copy = await api(ctx.sb, 'POST', '/products', { name: 'Copy', price: 1, sku: taken.sku });
		const copyId = copy.json[idKey('product')] ?? copy.json.data?.[idKey('product')];
		await ctx.admin('DELETE', '/requests');
		const setUp = written().length;
		const { items } = await run(
			[
				{ ...asCsvRow(taken), price: '99.00' },
				{ sku: 'FINE-1', name: 'Fine', price: '1' },
			],
			upsert(),
			{ continueOnFail: true },
		);
		const message = String(items[0].json.error);
		expect(message).toMatch(
			new RegExp(
				`^2 products have the SKU "${taken.sku}" \\(prod_\\d+, prod_\\d+\\); Create or Update changed none of them$`,
			),
		);
		expect(message).toContain(taken.id);
		expect(message).toContain(copyId);
		expect(items[1].json).toMatchObject({ sku: 'FINE-1', name: 'Fine', price: 1 });
		expect(written().slice(setUp)).toEqual([
			expect.objectContaining({ method: 'POST', sku: 'FINE-1' }),
		]);
		expect(writes(await ctx.requests()).map((r) => r.method)).toEqual(['POST']);
	});
});

describe('what is compared, and how items are read', () => {
	test('"differs": prices to the cent, text as given, currency in any case, images in order, extra fields by value', () => {
		const product = {
			price: 19.9,
			name: 'Mug',
			currency: 'USD',
			images: ['https://a.example/1.jpg', 'https://a.example/2.jpg'],
			weight: { grams: 250, unit: 'g' },
		};
		expect(changedFields({ price: 19.9, name: 'Mug', currency: 'USD' }, product)).toEqual([]);
		expect(changedFields({ price: 19.904 }, product)).toEqual([]);
		expect(changedFields({ price: 19.91 }, product)).toEqual(['price']);
		expect(
			changedFields({ images: ['https://a.example/2.jpg', 'https://a.example/1.jpg'] }, product),
		).toEqual(['images']);
		expect(changedFields({ weight: { unit: 'g', grams: 250 } }, product)).toEqual([]);
		expect(changedFields({ weight: { unit: 'g', grams: 251 }, colour: 'red' }, product)).toEqual([
			'weight',
		]);
		// An extra field the product does not show (a service that takes it but lists it not) cannot be compared: it is
		// sent with the product's other changes, never on its own.
		expect(changedFields({ colour: 'red' }, product)).toEqual([]);
		expect(unshown({ colour: 'red', weight: 1, price: 2 }, product)).toEqual(['colour']);
	});

	test('Map Each Column Below: expressions per field; an empty field is left as it is; Extra Fields (JSON) are compared too', async () => {
		const [product] = products();
		const parameters = upsert(
			{
				mappingMode: 'defineBelow',
				value: { sku: '={{ $json.code }}', price: '={{ $json.cost }}', stock: '', name: null },
			},
			{ additionalFields: { extraFields: '={{ JSON.stringify({ description: $json.blurb }) }}' } },
		);
		const { items, error } = await run(
			[{ code: product.sku, cost: '7.77', blurb: 'From the supplier feed' }],
			parameters,
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			[idKey('product')]: product.id,
			price: 7.77,
			description: 'From the supplier feed',
		});
		expect(written()).toEqual([
			expect.objectContaining({ method: 'PUT', id: product.id, fields: ['description', 'price'] }),
		]);
		expect(ctx.sb.state.products.get(product.id)).toMatchObject({
			price: 7.77,
			stock: product.stock,
			description: 'From the supplier feed',
			name: product.name,
		});
	});

	test('matching on id updates by id and never creates; matching on name finds the product by its name', async () => {
		const [first] = products();
		const byId = await run(
			[
				{ id: first.id, price: '1.23' },
				{ id: 'prod_99999', price: '1' },
			],
			upsert({ matchingColumns: ['id'] }),
			{ continueOnFail: true },
		);
		expect(byId.items[0].json).toMatchObject({ [idKey('product')]: first.id, price: 1.23 });
		expect(written()).toEqual([
			expect.objectContaining({ method: 'PUT', id: first.id, fields: ['price'] }),
		]);
		expect(byId.items[1].json.error).toBe('No product has the ID "prod_99999"');
		expect(ctx.sb.state.products.size).toBe(1000);

		await api(ctx.sb, 'POST', '/products', { name: 'Only One Of Me', price: 2 });
		const setUp = written().length;
		const byName = await run(
			[{ name: 'Only One Of Me', stock: '40' }],
			upsert({ matchingColumns: ['name'] }),
		);
		expect(byName.items[0].json).toMatchObject({ name: 'Only One Of Me', stock: 40 });
		expect(outcomeOf(written().slice(setUp), 'Only One Of Me', 'name')).toBe('updated stock');
	});

	test('a bad value fails its item before any request, naming the field; a new SKU without name and price is not created', async () => {
		const bad = await run([{ sku: 'X-1', name: 'X', price: 'abc' }], upsert(), {
			continueOnFail: true,
		});
		expect(bad.items[0].json.error).toBe(
			'The input field "price" must be a number of 0 or more, got "abc"',
		);
		expect(await ctx.requests()).toEqual([]);

		const noSku = await run([{ name: 'No SKU', price: '1' }]);
		expect(noSku.error?.message).toBe('The input field "SKU" is empty or missing');
		expect(await ctx.requests()).toEqual([]);

		const bare = await run([{ sku: 'BARE-1', stock: '3' }], upsert(), { continueOnFail: true });
		expect(bare.items[0].json.error).toBe(
			'No product has the SKU "BARE-1", and creating one needs "Name" and "Price" (Fields)',
		);
		expect(writes(await ctx.requests())).toEqual([]);
	});

	test('input fields that are no product field are not sent (Map Automatically)', async () => {
		const { items, error } = await run([
			{ sku: 'FEED-1', name: 'From Feed', price: '3.00', supplier: 'ACME', cost: '1.10' },
		]);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ sku: 'FEED-1', name: 'From Feed', price: 3 });
		expect(written()).toEqual([
			expect.objectContaining({ method: 'POST', sku: 'FEED-1', fields: ['sku', 'name', 'price'] }),
		]);
		expect(withSku('FEED-1')).toHaveLength(1);
	});
});

describe('hints in the output panel', () => {
	/** The same node, run where IExecuteFunctions has no addExecutionHints (n8n lines without it). */
	const v12 = new Storefront().nodeVersions[1] as INodeType;
	const withoutHints: INodeType = {
		description: { ...v12.description, name: 'storefrontWithoutHints' },
		methods: v12.methods,
		async execute(this: IExecuteFunctions) {
			const without = Object.create(this, {
				addExecutionHints: { value: undefined },
			}) as IExecuteFunctions;
			return await (
				v12.execute as (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>
			).call(without);
		},
	};

	test('where addExecutionHints is missing the node runs as well and adds nothing', async () => {
		registerNodeType('harness.storefrontWithoutHints', withoutHints);
		const row = { sku: 'HINT-1', name: 'Hint', price: '1.00' };
		const without = await run([row], upsert(), { nodeType: 'harness.storefrontWithoutHints' });
		expect(without.error).toBeUndefined();
		expect(without.items[0].json).toMatchObject({ sku: 'HINT-1', name: 'Hint', price: 1 });
		expect(outcomes([row])).toEqual(['created']);
		expect(hintsOf(without)).toEqual([]);
		const withHints = await run([row], upsert(), { nodeType: STOREFRONT_TYPE });
		expect(withHints.items[0].json).toEqual(without.items[0].json);
		expect(outcomes([row])).toEqual(['created']);
		const [counts, found, ...rest] = hintsOf(withHints);
		expect(counts).toBe('Created 0, updated 0, left 1 unchanged');
		expect(found).toMatch(
			/^Found the products by (looking up each SKU \(\d+ requests?\) instead of reading the catalog|reading the catalog)/,
		);
		expect(rest).toEqual([]);
	});
});

describe('the example examples/catalog-sync.json', () => {
	const examples = path.join(__dirname, '..', '..', 'examples');
	const workflow = JSON.parse(readFileSync(path.join(examples, 'catalog-sync.json'), 'utf8')) as {
		nodes: INode[];
	};
	/** The sample file's rows as n8n's Extract from File gives them: every value text (it has no quoted commas). */
	const [header, ...lines] = readFileSync(path.join(examples, 'catalog-sync.csv'), 'utf8')
		.trim()
		.split('\n');
	const rows = lines.map((line) =>
		Object.fromEntries(line.split(',').map((value, i) => [header.split(',')[i], value])),
	);

	test("is a CSV upload (n8n's Form Trigger and Extract from File) into Create or Update, whose saved field list is the node's, ending on n8n's form pages", () => {
		expect(workflow.nodes.map((n) => n.type)).toEqual([
			'n8n-nodes-base.formTrigger',
			'n8n-nodes-base.extractFromFile',
			'n8n-nodes-base.if',
			STOREFRONT_TYPE,
			'n8n-nodes-base.form',
			'n8n-nodes-base.form',
		]);
		const sync = workflow.nodes[3];
		expect(sync.parameters).toMatchObject({
			resource: 'product',
			operation: 'upsert',
			columns: { mappingMode: 'autoMapInputData', matchingColumns: ['sku'] },
			output: 'summary',
		});
		expect((sync.parameters.columns as IDataObject).schema).toEqual(mapperFields());
	});

	test("its Create or Update node, fed the sample file's rows: 3 created, 2 updated, 2 unchanged; the same file again writes nothing", async () => {
		const summary = await ctx.run({
			typeVersion: workflow.nodes[3].typeVersion,
			items: rows,
			parameters: workflow.nodes[3].parameters,
		});
		expect(summary.items.map((item) => item.json)).toEqual([
			{
				created: 3,
				updated: 2,
				unchanged: 2,
				skipped: 0,
				failed: 0,
				message: 'Created 3, updated 2, left 2 unchanged',
				failedRows: [],
			},
		]);
		await ctx.admin('POST', '/reset', { sizes: { products: 1000, orders: 10, customers: 5 } });
		const start = written().length;
		// Each row's product as the output, to follow each row.
		const parameters = { ...workflow.nodes[3].parameters, output: 'products' };
		const first = await ctx.run({
			typeVersion: workflow.nodes[3].typeVersion,
			items: rows,
			parameters,
		});
		expect(first.error).toBeUndefined();
		expect(skusOf(first.items)).toEqual(rows.map((row) => row.SKU));
		expect(outcomes(rows, written().slice(start), (row) => row.SKU)).toEqual([
			'unchanged',
			'updated price',
			'updated stock',
			'unchanged',
			'created',
			'created',
			'created',
		]);
		expect(hintsOf(first).slice(0, 2)).toEqual([
			'Created 3, updated 2, left 2 unchanged',
			'Updated Price on 1 product, Inventory Quantity on 1',
		]);
		await ctx.admin('DELETE', '/requests');
		const writtenBefore = written().length;
		const again = await ctx.run({
			typeVersion: workflow.nodes[3].typeVersion,
			items: rows,
			parameters,
		});
		expect(skusOf(again.items)).toEqual(rows.map((row) => row.SKU));
		expect(written().slice(writtenBefore)).toEqual([]);
		expect(hintsOf(again)).toContain('Created 0, updated 0, left 7 unchanged');
		expect(writes(await ctx.requests())).toEqual([]);
	});
});

// One reader of product fields for Create, Update and Create or Update, through n8n-core against the sandbox: a value
// as a sheet, a CSV or an expression gives it is sent the same by all three, or refused by all three for the same
// reason, naming the field in each operation's words, before any request. The three show the same field names, and
// Map Automatically finds a field by its id or by that name.
import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeParameters,
	INodeProperties,
	INodeType,
} from 'n8n-workflow';

import { Storefront } from '../../nodes/Storefront/Storefront.node';
import { mapperFields } from '../../nodes/Storefront/v1/actions/product/editorFields';
import { useSandbox } from './context';
import { upsertParameters, watchWrites } from './writes';

const SIZES = { products: 20, orders: 5, customers: 5 };
const ctx = useSandbox(SIZES);
const written = watchWrites(ctx);

let serial = 0;
const newSku = () => `FIELDS-${++serial}`;

/** The three operations, each given one field's value; `required` are Create's name and price when not the field. */
const operations = {
	create: (field: string, value: unknown): INodeParameters => {
		const required: IDataObject = { name: 'Reader Test', price: 1 };
		if (field in required)
			return { resource: 'product', operation: 'create', ...required, [field]: value };
		return {
			resource: 'product',
			operation: 'create',
			...required,
			additionalFields: { [field]: value },
		} as INodeParameters;
	},
	update: (field: string, value: unknown): INodeParameters =>
		({
			resource: 'product',
			operation: 'update',
			productId: { __rl: true, mode: 'id', value: 'prod_00001' },
			updateFields: { [field]: value },
		}) as unknown as INodeParameters,
	upsert: (field: string, value: unknown): INodeParameters =>
		({
			resource: 'product',
			operation: 'upsert',
			columns: {
				mappingMode: 'defineBelow',
				// As a row's value reaches the mapper: through an expression.
				value: {
					sku: newSku(),
					name: 'Reader Test',
					price: 1,
					[field]: `={{ ${JSON.stringify(value)} }}`,
				},
				matchingColumns: ['sku'],
				schema: mapperFields(),
			},
		}) as unknown as INodeParameters,
};
type Operation = keyof typeof operations;

const LABELS: Record<string, string> = {
	name: 'Name',
	price: 'Price',
	stock: 'Inventory Quantity',
	status: 'Status',
	currency: 'Currency',
	images: 'Image URLs',
	sku: 'SKU',
};

/** Where each operation says the value was: its parameter, or the mapped field. */
const where = (operation: Operation, field: string) => {
	const label = LABELS[field];
	if (operation === 'upsert') return `The field "${label}" (Fields)`;
	if (operation === 'update') return `The parameter "${label}" (updateFields.${field})`;
	return field === 'name' || field === 'price'
		? `The parameter "${label}" (${field})`
		: `The parameter "${label}" (additionalFields.${field})`;
};

/** Each operation sends the field's value as `sent`, in one write. */
async function sentByAll(field: string, value: unknown, sent: unknown) {
	for (const operation of Object.keys(operations) as Operation[]) {
		const before = written().length;
		const { error } = await ctx.run({ parameters: operations[operation](field, value) });
		expect({ operation, error: error?.message }).toEqual({ operation, error: undefined });
		const [write, ...more] = written().slice(before);
		expect(more).toEqual([]);
		expect({ operation, sent: write.sent[field] }).toEqual({ operation, sent });
		await ctx.admin('POST', '/reset', { sizes: SIZES });
	}
}

/** Each operation fails its item for `reason`, naming the field in its own words, before any request. */
async function refusedByAll(field: string, value: unknown, reason: string) {
	for (const operation of Object.keys(operations) as Operation[]) {
		const { error } = await ctx.run({ parameters: operations[operation](field, value) });
		expect({ operation, error: error?.message }).toEqual({
			operation,
			error: `${where(operation, field)} ${reason}`,
		});
		expect(await ctx.requests()).toEqual([]);
	}
}

describe('the same value is read the same by Create, Update and Create or Update', () => {
	test.each([
		['stock', '12', 12],
		['stock', ' 7 ', 7],
		['stock', 12, 12],
		['stock', '12.0', 12],
		['price', '19.90', 19.9],
		['price', 19.904, 19.9],
		['price', ' 4.5 ', 4.5],
		['status', 'Draft', 'draft'],
		['currency', 'eur', 'EUR'],
		[
			'images',
			'https://a.example/1.jpg, https://a.example/2.jpg',
			['https://a.example/1.jpg', 'https://a.example/2.jpg'],
		],
		['sku', 12345, '12345'],
	])('%s %j is sent as %j', sentByAll);

	test.each([
		['stock', '12.5', 'must be a whole number of 0 or more, got "12.5"'],
		['stock', 'abc', 'must be a whole number of 0 or more, got "abc"'],
		['stock', -1, 'must be a whole number of 0 or more, got -1'],
		['price', 'abc', 'must be a number of 0 or more, got "abc"'],
		['price', -1, 'must be a number of 0 or more, got -1'],
		['status', 'sold', 'must be one of active, draft, archived, got "sold"'],
		['currency', 'dollars', 'must be a three-letter code such as USD, got "dollars"'],
		['name', 'x'.repeat(201), `must be at most 200 characters, got "${'x'.repeat(201)}"`],
	])('%s %j fails its item in all three, naming the field, before any request', refusedByAll);
});

// docs/storefront-node.md, "Numbers as sheets write them": one reading is read, two are refused naming both.
describe('money and counts as sheets write them, in all three operations', () => {
	test.each([
		['price', '$19.90', 19.9],
		['price', '$1,299.00', 1299],
		['price', 'US$1,299.00', 1299],
		['price', '£0.99', 0.99],
		['price', '19,90', 19.9],
		['price', '19,90 €', 19.9],
		['price', '€19,90', 19.9],
		['price', '1.299,00', 1299],
		['price', '1 299,00', 1299],
		// Excel in a French locale: a no-break space between thousands and before the sign.
		['price', '1\u00a0299,00\u00a0€', 1299],
		['price', 'R$ 1.299,00', 1299],
		['price', "CHF 1'299.50", 1299.5],
		['price', 'USD 12.50', 12.5],
		['price', '12.50 USD', 12.5],
		['price', '12,50 kr', 12.5],
		['price', '1,234,567.89', 1234567.89],
		['price', '1.234.567,89', 1234567.89],
		['price', '0,299', 0.3],
		['price', '.5', 0.5],
		['price', '1234.567', 1234.57],
		['stock', '1,200', 1200],
		['stock', '1.200', 1200],
		['stock', '1 200', 1200],
		['stock', "1'200", 1200],
		['stock', '1,200.00', 1200],
	])('%s %j is sent as %j', sentByAll);

	test.each([
		['price', '1,299', 'has two readings, 1299 or 1.299, got "1,299"'],
		['price', '1.299', 'has two readings, 1299 or 1.299, got "1.299"'],
		['price', '$19.999', 'has two readings, 19999 or 19.999, got "$19.999"'],
		['price', '12%', 'must be a number of 0 or more, got "12%"'],
		['price', '1,2,3', 'must be a number of 0 or more, got "1,2,3"'],
		['price', '1,234.5.6', 'must be a number of 0 or more, got "1,234.5.6"'],
		['price', '-$5.00', 'must be a number of 0 or more, got "-$5.00"'],
		['price', '$ 19.90 each', 'must be a number of 0 or more, got "$ 19.90 each"'],
		['stock', '12,5', 'must be a whole number of 0 or more, got "12,5"'],
		['stock', '1,2', 'must be a whole number of 0 or more, got "1,2"'],
		['stock', '1.5', 'must be a whole number of 0 or more, got "1.5"'],
	])('%s %j fails its item in all three, naming the field, before any request', refusedByAll);
});

describe('empty values are not set', () => {
	test('Create leaves an empty field out; Update changes only the fields with a value, and none is no update', async () => {
		const created = await ctx.run({
			parameters: operations.create('stock', ''),
		});
		expect(created.error).toBeUndefined();
		expect(written()).toEqual([
			expect.objectContaining({ method: 'POST', sent: { name: 'Reader Test', price: 1 } }),
		]);

		const before = { ...ctx.sb.state.products.get('prod_00001') };
		const updated = await ctx.run({
			parameters: {
				...operations.update('stock', 3),
				updateFields: { stock: 3, price: '', category: '  ', images: '' },
			},
		});
		expect(updated.error).toBeUndefined();
		expect(written().slice(1)).toEqual([
			expect.objectContaining({ method: 'PUT', id: 'prod_00001', sent: { stock: 3 } }),
		]);
		expect(ctx.sb.state.products.get('prod_00001')).toMatchObject({
			stock: 3,
			price: before.price,
			category: before.category,
			images: before.images,
		});

		await ctx.admin('DELETE', '/requests');
		const nothing = await ctx.run({
			parameters: { ...operations.update('stock', ''), updateFields: { stock: '', name: ' ' } },
		});
		expect(nothing.error?.message).toBe(
			'The parameter "Update Fields" (updateFields) sets no field to change',
		);
		expect(await ctx.requests()).toEqual([]);
	});

	test("Create's name and price must have a value", async () => {
		for (const field of ['name', 'price']) {
			const { error } = await ctx.run({ parameters: operations.create(field, '={{ "" }}') });
			expect(error?.message).toBe(`The parameter "${LABELS[field]}" (${field}) must not be empty`);
		}
		expect(await ctx.requests()).toEqual([]);
	});

	test('Update clears a field through Extra Fields (JSON), sent unchanged', async () => {
		const { error } = await ctx.run({
			parameters: {
				...operations.update('stock', ''),
				updateFields: { extraFields: '{"images": [], "category": ""}' },
			},
		});
		expect(error).toBeUndefined();
		expect(ctx.sb.state.products.get('prod_00001')).toMatchObject({ images: [], category: '' });
	});
});

describe('the same field names in every product operation', () => {
	const node = new Storefront().nodeVersions[1] as INodeType;
	const shown = (operation: string) =>
		node.description.properties.filter(
			(p) =>
				p.displayOptions?.show?.operation?.includes(operation) &&
				p.displayOptions.show.resource?.includes('product'),
		);
	/** A product field's name in the editor, by its API id: a parameter of its own or an option of a collection. */
	const namesOf = (properties: INodeProperties[]) => {
		const names: Record<string, string> = {};
		for (const p of properties) {
			if (p.type === 'collection')
				for (const option of (p.options ?? []) as INodeProperties[])
					names[option.name] = option.displayName;
			else names[p.name] = p.displayName;
		}
		return names;
	};

	test("Create's and Update's fields and Create or Update's mapper show the same name for each field", () => {
		const mapper = Object.fromEntries(mapperFields().map((field) => [field.id, field.displayName]));
		const create = namesOf(shown('create'));
		const update = namesOf(shown('update'));
		expect(mapper).toEqual({
			sku: 'SKU',
			name: 'Name',
			id: 'Product ID',
			description: 'Description',
			category: 'Category',
			price: 'Price',
			stock: 'Inventory Quantity',
			currency: 'Currency',
			status: 'Status',
			images: 'Image URLs',
		});
		for (const [id, displayName] of Object.entries(mapper)) {
			if (id === 'id') continue;
			expect({ id, create: create[id], update: update[id] }).toEqual({
				id,
				create: displayName,
				update: displayName,
			});
		}
	});

	test("n8n gets the mapper's fields from the node's method that Create or Update names", async () => {
		const columns = shown('upsert').find((p) => p.type === 'resourceMapper');
		const method = columns?.typeOptions?.resourceMapper?.resourceMapperMethod ?? '';
		const getFields = node.methods?.resourceMapping?.[method];
		expect(await getFields?.call({} as ILoadOptionsFunctions)).toEqual({ fields: mapperFields() });
	});

	test('Map Automatically finds a field by its id or its name, in any case and spacing; a bad value names the input field', async () => {
		const sku = newSku();
		const parameters = upsertParameters();
		const row = {
			SKU: sku,
			Name: 'Headers',
			'Price ': '3.50',
			'Inventory Quantity': '12',
			'image urls': 'https://a.example/1.jpg',
			Supplier: 'ACME',
		};
		const { error } = await ctx.run({ items: [row], parameters });
		expect(error).toBeUndefined();
		expect(written()).toEqual([
			expect.objectContaining({
				method: 'POST',
				sent: {
					sku,
					name: 'Headers',
					price: 3.5,
					stock: 12,
					images: ['https://a.example/1.jpg'],
				},
			}),
		]);

		await ctx.admin('DELETE', '/requests');
		const bad = await ctx.run({ items: [{ ...row, 'Inventory Quantity': '12.5' }], parameters });
		expect(bad.error?.message).toBe(
			'The input field "Inventory Quantity" must be a whole number of 0 or more, got "12.5"',
		);
		const stock = await ctx.run({ items: [{ SKU: sku, Stock: 'abc' }], parameters });
		expect(stock.error?.message).toBe(
			'The input field "Stock" must be a whole number of 0 or more, got "abc"',
		);
		expect(await ctx.requests()).toEqual([]);
	});
});

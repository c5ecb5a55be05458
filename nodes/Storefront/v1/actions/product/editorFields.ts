// The product fields in the editor, under ./fields' labels in every operation, and how Map Automatically finds them.
import type { IDataObject, INodeProperties, ResourceMapperField } from 'n8n-workflow';

import { PRODUCT_STATUSES } from '../../../../shared/constants';
import { EXTRA_FIELDS_LABEL, fieldOf, ID_FIELD, PRODUCT_FIELDS, type ProductField } from './fields';

const statusOptions = () => PRODUCT_STATUSES.map(({ name, value }) => ({ name, value }));

/** Extra Fields (JSON), the same option in Create, Update and Create or Update, worded for each. */
export function extraFieldsOption(operation: 'create' | 'update' | 'upsert'): INodeProperties {
	return {
		displayName: EXTRA_FIELDS_LABEL,
		name: 'extraFields',
		type: 'json',
		default: '{}',
		description:
			'Product fields the node does not list, as a JSON object, sent as they are. ' +
			(operation === 'upsert'
				? 'They are compared like the other fields; a mapped field takes precedence.'
				: 'A field also set above takes precedence.'),
		hint:
			operation === 'update'
				? 'To clear a field, set it here, e.g. {"images": [], "category": ""}'
				: 'Must be a JSON object, e.g. {"weight_grams": 250}',
	};
}

/** A product field as a parameter or option of Create and Update. */
const option = (name: string, more: Partial<INodeProperties>): INodeProperties => ({
	displayName: PRODUCT_FIELDS[name].label,
	name,
	type: PRODUCT_FIELDS[name].type,
	default: '',
	...more,
});

/** Name and Price: parameters of Create's own, which a product needs; options of Update. */
export function nameAndPrice(forUpdate: boolean): INodeProperties[] {
	return [
		option('name', {
			...(forUpdate ? {} : { required: true, placeholder: 'e.g. Linen Shirt' }),
			description: `${forUpdate ? 'New product name' : 'Product name shown to shoppers'} (1–200 characters)`,
		}),
		option('price', {
			...(forUpdate ? {} : { required: true }),
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description: forUpdate
				? "New unit price, 0 or more, in the product's currency"
				: "Unit price, 0 or more, in the product's currency (the store's currency unless set below)",
		}),
	];
}

/** Optional product fields, sorted: Create's Additional Fields, Update's Update Fields (with Name and Price). */
export function productFieldOptions(forUpdate: boolean): INodeProperties[] {
	return [
		option('category', {
			description: 'Category name, e.g. "apparel"; used by the Get Many category filter',
		}),
		option('currency', {
			placeholder: 'e.g. USD',
			description:
				"The price's currency as a three-letter code such as USD; the store's currency when not set",
		}),
		option('description', {
			typeOptions: { rows: 3 },
			description: 'Longer product description shown to shoppers',
		}),
		extraFieldsOption(forUpdate ? 'update' : 'create'),
		option('images', {
			placeholder: 'e.g. https://example.com/a.jpg, https://example.com/b.jpg',
			description: forUpdate
				? 'Comma-separated image URLs; replaces the current images'
				: 'Comma-separated image URLs',
		}),
		option('stock', {
			typeOptions: { minValue: 0, numberPrecision: 0 },
			default: 0,
			description: 'Units in stock (whole number, 0 or more)',
		}),
		option('sku', { description: 'Stock keeping unit; must be unique within the store' }),
		option('status', {
			options: statusOptions(),
			default: 'active',
			description: 'Active products are for sale; drafts and archived products are not',
		}),
		...(forUpdate ? nameAndPrice(true) : []),
	].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** Create or Update's resource mapper: the match fields first, SKU by default, Product ID only when added. */
export function mapperFields(): ResourceMapperField[] {
	const field = (
		id: string,
		{ label: displayName, type }: ProductField,
		more: Partial<ResourceMapperField> = {},
	): ResourceMapperField => ({
		id,
		displayName,
		type,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		...(type === 'options' ? { options: statusOptions() } : {}),
		...more,
	});
	return [
		field('sku', PRODUCT_FIELDS.sku, { defaultMatch: true, canBeUsedToMatch: true }),
		field('name', PRODUCT_FIELDS.name, { canBeUsedToMatch: true }),
		field('id', ID_FIELD, { canBeUsedToMatch: true, removed: true }),
		...Object.entries(PRODUCT_FIELDS)
			.filter(([id]) => id !== 'sku' && id !== 'name')
			.map(([id, rule]) => field(id, rule)),
	];
}

const squeeze = (name: string) => name.replace(/\s+/g, '').toLowerCase();

/** Each field's id by its id and by its name in the editor, squeezed (`inventoryquantity`). */
const BY_SPELLING = new Map(
	Object.entries({ ...PRODUCT_FIELDS, id: ID_FIELD }).flatMap(
		([id, { label }]): Array<[string, string]> => [
			[id, id],
			[squeeze(label), id],
		],
	),
);

/** An input item's product fields (Map Automatically): their values, and the input's key of each. */
export interface InputFields {
	values: IDataObject;
	keys: Record<string, string>;
}

/** Keys match whatever their case and spacing; one spelled exactly as the field's id or name wins, else the first. */
export function inputFields(json: IDataObject): InputFields {
	const found: InputFields = { values: {}, keys: {} };
	const exact = new Set<string>();
	for (const [key, value] of Object.entries(json)) {
		const id = BY_SPELLING.get(squeeze(key));
		if (id === undefined || exact.has(id)) continue;
		const isExact = key === id || key === fieldOf(id)?.label;
		if (id in found.values && !isExact) continue;
		found.values[id] = value;
		found.keys[id] = key;
		if (isExact) exact.add(id);
	}
	return found;
}

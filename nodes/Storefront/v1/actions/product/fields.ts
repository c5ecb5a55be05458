// The product fields Create or Update writes (docs/api-contract.md row 1): how the editor's resource mapper lists
// them, how a mapped or input value is read, and when the product's own value counts as the same. The decisions and
// why: docs/storefront-node.md, "Create or Update".
import type { IDataObject, ResourceMapperField } from 'n8n-workflow';

import { PRODUCT_STATUSES } from '../../../../shared/constants';

/** The fields a product can be found by, SKU first (the default). */
export const MATCH_FIELDS = ['sku', 'name', 'id'] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

/** A field's value as it is sent. */
export type FieldValue = string | number | string[];

interface ProductField {
	type: 'string' | 'number' | 'options';
	/** The value to send; throws an Error saying why it cannot be sent. Only called for a value that is set (not empty). */
	read(value: unknown): FieldValue;
	/** Whether the product's value equals the value read. */
	same(wanted: unknown, current: unknown): boolean;
}

const why = (text: string, value: unknown): never => {
	throw new Error(`${text}, got ${JSON.stringify(value)}`);
};

function readText(value: unknown, trim = true): string {
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	if (typeof value !== 'string') return why('must be text', value);
	return trim ? value.trim() : value;
}

const asText = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const textField: ProductField = {
	type: 'string',
	read: (value) => readText(value),
	same: (wanted, current) => asText(current).trim() === wanted,
};

/** A number as a CSV or a sheet gives it ("19.90") or as a number. */
function readNumber(value: unknown): number {
	const number = typeof value === 'string' ? Number(value.trim()) : value;
	return typeof number === 'number' && Number.isFinite(number)
		? number
		: why('must be a number', value);
}

/** A money amount to the cent, as the contract keeps it: 19.9 and "19.90" are the same price. */
const cents = (amount: unknown) => Math.round(Number(amount) * 100);

/** A list of URLs, or the comma-separated text a spreadsheet cell holds. */
function readUrls(value: unknown): string[] {
	const list = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(',')
			: why('must be a list of URLs or comma-separated URLs', value);
	return list.map((url) => readText(url)).filter((url) => url !== '');
}

/** Every field Create or Update writes, by the service's name for it (which Map Automatically matches input fields on). */
export const PRODUCT_FIELDS: Record<string, ProductField> = {
	sku: textField,
	name: {
		...textField,
		read: (value) => {
			const name = readText(value);
			return name.length > 200 ? why('must be at most 200 characters', value) : name;
		},
	},
	description: {
		type: 'string',
		read: (value) => readText(value, false),
		same: (wanted, current) => asText(current) === wanted,
	},
	category: textField,
	price: {
		type: 'number',
		// Sent as compared: to the cent (19.904 is sent as 19.9).
		read: (value) => {
			const price = readNumber(value);
			return price < 0 ? why('must be 0 or more', value) : cents(price) / 100;
		},
		same: (wanted, current) => cents(current) === cents(wanted),
	},
	stock: {
		type: 'number',
		read: (value) => {
			const stock = readNumber(value);
			return Number.isInteger(stock) && stock >= 0
				? stock
				: why('must be a whole number of 0 or more', value);
		},
		same: (wanted, current) => Number(current) === wanted,
	},
	currency: {
		type: 'string',
		read: (value) => {
			const code = readText(value).toUpperCase();
			return /^[A-Z]{3}$/.test(code) ? code : why('must be a three-letter code such as USD', value);
		},
		same: (wanted, current) => asText(current).toUpperCase() === wanted,
	},
	status: {
		type: 'options',
		read: (value) => {
			const status = readText(value).toLowerCase();
			return PRODUCT_STATUSES.some((s) => s.value === status)
				? status
				: why(`must be one of ${PRODUCT_STATUSES.map((s) => s.value).join(', ')}`, value);
		},
		same: (wanted, current) => current === wanted,
	},
	images: {
		type: 'string',
		read: readUrls,
		same: (wanted, current) =>
			Array.isArray(current) &&
			Array.isArray(wanted) &&
			current.length === wanted.length &&
			wanted.every((url, i) => current[i] === url),
	},
};

/** Read-only to the service: used to find a product, never sent. */
const ID_FIELD: ProductField = textField;

/** The reader of a field, the match fields included. */
export const fieldOf = (name: string): ProductField | undefined =>
	name === 'id' ? ID_FIELD : PRODUCT_FIELDS[name];

/** Empty values are not set: Create or Update leaves such a field as it is (it never clears one). */
export function isEmpty(value: unknown): boolean {
	return (
		value === undefined ||
		value === null ||
		(typeof value === 'string' && value.trim() === '') ||
		(Array.isArray(value) && value.length === 0)
	);
}

/** JSON with object keys sorted: two values of an extra field are the same when this is. */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as IDataObject).sort(([a], [b]) =>
			a < b ? -1 : a > b ? 1 : 0,
		);
		return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'undefined';
}

/**
 * The fields of `wanted` whose value the product does not have. An extra field the product does not show (a service
 * that takes it but does not list it back) cannot be compared: it is not counted as changed (see `unshown`).
 */
export function changedFields(wanted: IDataObject, product: IDataObject): string[] {
	return Object.keys(wanted).filter((key) => {
		const field = PRODUCT_FIELDS[key];
		if (field) return !field.same(wanted[key], product[key]);
		return key in product && canonical(wanted[key]) !== canonical(product[key]);
	});
}

/** Extra fields of `wanted` the product does not show: sent with the product's other changes, never alone. */
export const unshown = (wanted: IDataObject, product: IDataObject) =>
	Object.keys(wanted).filter((key) => !PRODUCT_FIELDS[key] && !(key in product));

const squeeze = (name: string) => name.replace(/\s+/g, '').toLowerCase();
const KNOWN = new Set([...Object.keys(PRODUCT_FIELDS), 'id']);

/**
 * The product fields of an input item (Map Automatically), whatever the case and spacing of its keys, as a
 * spreadsheet's headers write them (`SKU`, `Price `): a key spelled exactly as the field wins over the others.
 */
export function inputFields(json: IDataObject): IDataObject {
	const fields: IDataObject = {};
	for (const [key, value] of Object.entries(json)) {
		const name = squeeze(key);
		if (KNOWN.has(name) && (key === name || !(name in fields))) fields[name] = value;
	}
	return fields;
}

/** What the resource mapper lists: the match fields first, SKU matched by default; ID only when added or matched on. */
export function mapperFields(): ResourceMapperField[] {
	const field = (
		id: string,
		type: ProductField['type'],
		more: Partial<ResourceMapperField> = {},
	): ResourceMapperField => ({
		id,
		displayName: id,
		type,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		...(type === 'options'
			? { options: PRODUCT_STATUSES.map(({ name, value }) => ({ name, value })) }
			: {}),
		...more,
	});
	return [
		field('sku', 'string', { defaultMatch: true, canBeUsedToMatch: true }),
		field('name', 'string', { canBeUsedToMatch: true }),
		field('id', 'string', { canBeUsedToMatch: true, removed: true }),
		...Object.entries(PRODUCT_FIELDS)
			.filter(([id]) => id !== 'sku' && id !== 'name')
			.map(([id, { type }]) => field(id, type)),
	];
}

// The product fields (docs/api-contract.md row 1), read and compared one way by Create, Update and Create or Update,
// as a sheet or a CSV gives values: docs/storefront-node.md, "Product fields" and Create or Update's decisions.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { PRODUCT_STATUSES } from '../../../../shared/constants';
import { isObject } from '../../../../shared/transport';
import { itemError } from '../common';
import { readAmount } from './amounts';

export interface ProductField {
	/** The field's name in the editor. */
	label: string;
	type: 'string' | 'number' | 'options';
	/** The value to send; throws an Error saying why it cannot be sent. Only called for a value that is set. */
	read(value: unknown): string | number | string[];
	/** Whether the product's value equals the value read. */
	same(wanted: unknown, current: unknown): boolean;
}

/** Refuses a value: throws, saying why and what was given. */
const refuse = (text: string, value: unknown): never => {
	throw new Error(`${text}, got ${JSON.stringify(value)}`);
};

function readText(value: unknown, trim = true): string {
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	if (typeof value !== 'string') return refuse('must be text', value);
	return trim ? value.trim() : value;
}

const asText = (value: unknown) => (value === undefined || value === null ? '' : String(value));
/** A text field, trimmed where its spaces cannot be meant. */
const text = (label: string, trim = true): ProductField => ({
	label,
	type: 'string',
	read: (value) => readText(value, trim),
	same: (wanted, current) => (trim ? asText(current).trim() : asText(current)) === wanted,
});

/** A number as a sheet shows it (./amounts); a text with two readings fails naming both. */
function numberIn(value: unknown, whole: boolean, rule: string): number {
	const amount = readAmount(value, whole);
	if (Array.isArray(amount)) return refuse(`has two readings, ${amount[0]} or ${amount[1]}`, value);
	const fits = amount !== undefined && amount >= 0 && (!whole || Number.isInteger(amount));
	return fits ? amount : refuse(rule, value);
}

/** To the cent, as the contract keeps money. */
const cents = (amount: unknown) => Math.round(Number(amount) * 100);

function readUrls(value: unknown): string[] {
	const list = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(',')
			: refuse('must be a list of URLs or comma-separated URLs', value);
	return list.map((url) => readText(url)).filter((url) => url !== '');
}

/** Every product field the node writes, by the service's name for it, in the order they are listed and sent. */
export const PRODUCT_FIELDS: Record<string, ProductField> = {
	sku: text('SKU'),
	name: {
		...text('Name'),
		read: (value) => {
			const name = readText(value);
			return name.length > 200 ? refuse('must be at most 200 characters', value) : name;
		},
	},
	// Spaces and line breaks in a description can be meant.
	description: text('Description', false),
	category: text('Category'),
	price: {
		label: 'Price',
		type: 'number',
		// Sent as compared, so a run never rewrites a price it sees as the same.
		read: (value) => cents(numberIn(value, false, 'must be a number of 0 or more')) / 100,
		same: (wanted, current) => cents(current) === cents(wanted),
	},
	stock: {
		label: 'Inventory Quantity',
		type: 'number',
		read: (value) => numberIn(value, true, 'must be a whole number of 0 or more'),
		same: (wanted, current) => Number(current) === wanted,
	},
	currency: {
		label: 'Currency',
		type: 'string',
		read: (value) => {
			const code = readText(value).toUpperCase();
			return /^[A-Z]{3}$/.test(code)
				? code
				: refuse('must be a three-letter code such as USD', value);
		},
		same: (wanted, current) => asText(current).toUpperCase() === wanted,
	},
	status: {
		label: 'Status',
		type: 'options',
		read: (value) => {
			const status = readText(value).toLowerCase();
			return PRODUCT_STATUSES.some((s) => s.value === status)
				? status
				: refuse(`must be one of ${PRODUCT_STATUSES.map((s) => s.value).join(', ')}`, value);
		},
		same: (wanted, current) => current === wanted,
	},
	images: {
		label: 'Image URLs',
		type: 'string',
		read: readUrls,
		same: (wanted, current) => Array.isArray(current) && canonical(current) === canonical(wanted),
	},
};

/** Read-only to the service: Create or Update finds a product by it, and never sends it. */
export const ID_FIELD: ProductField = text('Product ID');

export const EXTRA_FIELDS_LABEL = 'Extra Fields (JSON)';

/** The fields a product can be found by, as a sentence names them. */
export const MATCH_NOUNS = { sku: 'SKU', name: 'name', id: 'ID' };
export type MatchField = keyof typeof MATCH_NOUNS;

export const fieldOf = (name: string): ProductField | undefined =>
	name === 'id' ? ID_FIELD : PRODUCT_FIELDS[name];

/** An empty value is not set: a blank cell never clears a field. */
export function isEmpty(value: unknown): boolean {
	return (
		value === undefined ||
		value === null ||
		(typeof value === 'string' && value.trim() === '') ||
		(Array.isArray(value) && value.length === 0)
	);
}

/** How Create and Update name a field in an item's failure: its parameter, in `collection` unless it is in `own`. */
export const parameterOf =
	(collection: string, own: string[] = []) =>
	(key: string) =>
		`The parameter "${PRODUCT_FIELDS[key].label}" (${own.includes(key) ? key : `${collection}.${key}`})`;

export const missingToCreate = (fields: IDataObject) =>
	['name', 'price'].filter((key) => fields[key] === undefined);

/** Extra Fields (JSON) under the product fields that are set; a value that cannot be sent fails the item. */
export function productBody(
	context: IExecuteFunctions,
	itemIndex: number,
	values: IDataObject,
	collection: string,
	where: (key: string) => string,
): IDataObject {
	const { extraFields } = values;
	const refuseExtra = (reason: string): never => {
		throw itemError(
			context,
			itemIndex,
			`The parameter "${EXTRA_FIELDS_LABEL}" (${collection}.extraFields) ${reason}`,
			'Enter a JSON object such as {"weight_grams": 250}.',
		);
	};
	let body: unknown = {};
	if (extraFields !== undefined && extraFields !== null && extraFields !== '') {
		try {
			body = typeof extraFields === 'string' ? jsonParse(extraFields) : extraFields;
		} catch {
			refuseExtra('is not valid JSON');
		}
	}
	if (!isObject(body)) return refuseExtra('must be a JSON object');
	const fields: IDataObject = { ...body };
	for (const [key, field] of Object.entries(PRODUCT_FIELDS)) {
		if (isEmpty(values[key])) continue;
		try {
			fields[key] = field.read(values[key]);
		} catch (error) {
			throw itemError(context, itemIndex, `${where(key)} ${(error as Error).message}`);
		}
	}
	return fields;
}

/** JSON with object keys sorted: key order means nothing in an extra field's value. */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		// Keys of one object are never equal.
		const entries = Object.entries(value as IDataObject).sort(([a], [b]) => (a < b ? -1 : 1));
		return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'undefined';
}

/** The fields of `wanted` whose value the product lacks; an extra field it does not show cannot be compared. */
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

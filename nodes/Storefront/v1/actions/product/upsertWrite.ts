// Create or Update's plan of one item (a pure function of its row and the run's catalog), then its one request. A
// create is claimed first (./createClaims) and never sent twice: docs/storefront-node.md, Create or Update.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { StorefrontClient } from '../../../../shared/transport';
import { gotNoAnswer, recordId } from '../../../../shared/transport';
import { asNodeError, itemError } from '../common';
import { CLAIM_MINUTES, type createClaims } from './createClaims';
import { changedFields, MATCH_NOUNS, missingToCreate, PRODUCT_FIELDS, unshown } from './fields';
import { lookUp, type Catalog } from './finder';
import type { Done } from './report';

/** An item's match value and the fields to set. */
export interface Row {
	match: string;
	fields: IDataObject;
	/** Whether the match value came as a number (a sheet's cell), which may have lost leading zeros. */
	numeric: boolean;
}

type Plan =
	| { write: 'none'; product: IDataObject }
	| { write: 'update'; product: IDataObject; id: string; changed: string[] }
	| { write: 'create' }
	| { write: 'refuse'; message: string; description?: string };

interface Shop {
	context: IExecuteFunctions;
	client: StorefrontClient;
	catalog: Catalog;
	claims: ReturnType<typeof createClaims>;
}

/** Waits before each look for a product another run claimed to create: that create may still be on its way. */
const CREATED_ELSEWHERE_WAITS_MS = [500, 1_500, 3_000];

const refuse = (message: string, description?: string): Plan => ({
	write: 'refuse',
	message,
	description,
});

function ambiguous(noun: string, match: string, products: IDataObject[]): Plan {
	const ids = products.map((product) => recordId(product, 'product') ?? '(no id)').join(', ');
	return refuse(
		`${products.length} products have the ${noun} "${match}" (${ids}); ` +
			'Create or Update changed none of them',
		`Give each product its own ${noun} (or delete the extra ones), or match on Product ID.`,
	);
}

/** The update of `product` to the row's fields: none where no field differs. */
function planUpdate(noun: string, product: IDataObject, row: Row): Plan {
	const compared = changedFields(row.fields, product);
	if (compared.length === 0) return { write: 'none', product };
	const id = recordId(product, 'product');
	if (id === undefined)
		return refuse(`The product with ${noun} "${row.match}" has no id the node can update it by`);
	return { write: 'update', product, id, changed: [...compared, ...unshown(row.fields, product)] };
}

/** What the row asks of the shop as the run now knows it (what it found and wrote). */
export function plan(catalog: Catalog, row: Row): Plan {
	const noun = MATCH_NOUNS[catalog.field];
	const { match } = row;
	// 1. A product whose create got no answer and was not found: no later item may create it again.
	if (catalog.unsettled.has(match)) {
		return refuse(
			`An earlier item's create of the product with ${noun} "${match}" got no usable answer, and ` +
				'the product was not found; this item was not sent',
			'Run the workflow again later: it then updates the product if it was created, or creates it.',
		);
	}
	// 2. The product is there: updated where a field differs.
	const found = catalog.find(match);
	if (found.length > 1) return ambiguous(noun, match, found);
	if (found.length === 1) return planUpdate(noun, found[0], row);
	// 3. It is not: created, unless the value cannot name a new product.
	if (catalog.field === 'id')
		return refuse(
			`No product has the ID "${match}"`,
			'Matching on Product ID only updates products; match on SKU or Name to create the missing ones.',
		);
	const [padded] = row.numeric ? catalog.withZeros(match) : [];
	if (padded) {
		const id = recordId(padded, 'product') ?? '';
		return refuse(
			`The ${noun} came as the number ${match}, and product ${id} has the ${noun} ` +
				`"${catalog.keyOf(padded)}": no product was created`,
			'A number loses leading zeros. Read that column as text (a sheet: format the column as plain text), ' +
				'or write the value with its zeros.',
		);
	}
	const missing = missingToCreate(row.fields);
	if (missing.length) {
		const names = missing.map((key) => `"${PRODUCT_FIELDS[key].label}"`).join(' and ');
		return refuse(
			`No product has the ${noun} "${match}", and creating one needs ${names} (Fields)`,
			'Map a name and a price, or leave out the rows of products that are not in the shop yet.',
		);
	}
	return { write: 'create' };
}

/** Carries out an item's plan: at most one write. */
export async function write(shop: Shop, planned: Plan, row: Row, itemIndex: number): Promise<Done> {
	const { client, catalog } = shop;
	switch (planned.write) {
		case 'refuse':
			throw itemError(shop.context, itemIndex, planned.message, planned.description);
		case 'none':
			return { outcome: 'unchanged', product: planned.product };
		case 'update': {
			const { id, changed } = planned;
			const body = Object.fromEntries(changed.map((key) => [key, row.fields[key]]));
			const target = { resourceLabel: 'Product', id, itemIndex };
			const updated = await client.requestRecord('PUT', ['products', id], 'product', target, body);
			catalog.put(updated);
			return { outcome: 'updated', product: updated, changed };
		}
		case 'create':
			return await create(shop, row, itemIndex);
	}
}

async function create(shop: Shop, row: Row, itemIndex: number): Promise<Done> {
	const { client, catalog, claims } = shop;
	// A catalog read while the list moved may have missed this product: it is looked up before it is created.
	if (catalog.moved && (await search(shop, row.match, itemIndex)).length > 0)
		return await write(shop, plan(catalog, row), row, itemIndex);
	const claim = await claims.claim(row.match);
	if (claim === false) return await createdElsewhere(shop, row, itemIndex);
	let answer;
	try {
		answer = await client.request('POST', ['products'], { body: row.fields }, { itemIndex });
		const product = client.single(answer, 'product', { itemIndex });
		catalog.put(product);
		return { outcome: 'created', product };
	} catch (error) {
		// A refused create gives its claim up; a 2xx without a product was taken, so it is looked for as a lost answer.
		if (answer === undefined && !gotNoAnswer(error)) {
			await claims.release(row.match, claim);
			throw asNodeError(shop.context, error, itemIndex);
		}
		return await recover(shop, row, error as Error, itemIndex);
	}
}

/** Another run claimed this create: its product is looked for while it may be on its way, never created here. */
async function createdElsewhere(shop: Shop, row: Row, itemIndex: number): Promise<Done> {
	for (const waitMs of CREATED_ELSEWHERE_WAITS_MS) {
		await sleep(waitMs);
		await search(shop, row.match, itemIndex);
		const planned = plan(shop.catalog, row);
		if (planned.write !== 'create') return await write(shop, planned, row, itemIndex);
	}
	const noun = MATCH_NOUNS[shop.catalog.field];
	throw itemError(
		shop.context,
		itemIndex,
		`Another run claimed the create of the product with ${noun} "${row.match}" in the last ` +
			`${CLAIM_MINUTES} minutes, and it is not in the shop; ` +
			'it was not created here, so that it is not created twice',
		'That run may still be waiting for the rate limit. Run the workflow again later: it then updates the ' +
			`product, or creates it once the claim is ${CLAIM_MINUTES} minutes old (a product deleted since, say).`,
	);
}

/** The products whose match value is `match`, by the product list's search, put in the run's catalog. */
async function search(shop: Shop, match: string, itemIndex: number): Promise<IDataObject[]> {
	const { client, catalog } = shop;
	const found = await lookUp(client, match, { itemIndex });
	const matches = found.filter((product) => catalog.keyOf(product) === match);
	for (const product of matches) catalog.put(product);
	return matches;
}

/** A create whose answer was lost may have reached the service, or still be running there: looked for, not resent. */
async function recover(shop: Shop, row: Row, lost: Error, itemIndex: number): Promise<Done> {
	const { catalog } = shop;
	const { match } = row;
	const matches = await search(shop, match, itemIndex).catch(() => undefined);
	if (matches?.length === 1)
		return { outcome: 'created', product: matches[0], recovered: { match, lost } };
	catalog.unsettled.add(match);
	if (matches === undefined) throw lost;
	const noun = MATCH_NOUNS[catalog.field];
	if (matches.length > 1) return await write(shop, ambiguous(noun, match, matches), row, itemIndex);
	throw itemError(
		shop.context,
		itemIndex,
		`The create of the product with ${noun} "${match}" got no usable answer ` +
			`(${lost.message}), and no such product is there yet; it was not sent again`,
		'The service may still create it. Run the workflow again later: it then updates the product if it was ' +
			'created, or creates it.',
	);
}

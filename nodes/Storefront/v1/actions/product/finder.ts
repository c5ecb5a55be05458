// How Create or Update finds its items' products: each value looked up, or the catalog read once, whichever costs
// fewer requests. The spec does not say what `search` matches, so a value no lookup found is new only once the run
// has seen the search find a product by that field. docs/storefront-node.md, "Finding the products".
import type { IDataObject } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../../../shared/constants';
import type { Page, RequestTarget, StorefrontClient } from '../../../../shared/transport';
import { recordId } from '../../../../shared/transport';
import { MATCH_NOUNS, type MatchField } from './fields';

/** The products the run found, by their match value, kept up to date with what the run writes. */
export class Catalog {
	private readonly byKey = new Map<string, IDataObject[]>();

	/** Keys whose create got no answer and whose product was not found: no later item may create it again. */
	readonly unsettled = new Set<string>();

	/** The list moved while it was read (readAll): a product not in the catalog may be one the read missed. */
	moved = false;

	constructor(
		readonly field: MatchField,
		products: IDataObject[],
	) {
		for (const product of products) this.put(product);
	}

	/** The product's value of the match field, as items are matched on it (trimmed); undefined when it has none. */
	keyOf(product: IDataObject): string | undefined {
		const value = this.field === 'id' ? recordId(product, 'product') : product[this.field];
		const key = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
		return key === '' ? undefined : key;
	}

	find(key: string): IDataObject[] {
		return this.byKey.get(key) ?? [];
	}

	/** Adds a product, or replaces the one with its id. Its key stays: an item's fields hold its match value. */
	put(product: IDataObject): void {
		const key = this.keyOf(product);
		if (key === undefined) return;
		const id = recordId(product, 'product');
		const others = this.find(key).filter((p) => id === undefined || recordId(p, 'product') !== id);
		this.byKey.set(key, [...others, product]);
	}

	/** Products whose value is `key` with leading zeros (000123 for 123): what a number read from a sheet lost. */
	withZeros(key: string): IDataObject[] {
		const bare = (value: string) => value.replace(/^0+/, '');
		const padded = [...this.byKey].filter(([other]) => other !== key && bare(other) === bare(key));
		return padded.flatMap(([, products]) => products);
	}
}

/** Find Products By. */
export type FindBy = 'auto' | 'lookup' | 'catalog';

/** What finding the run's products did, for the hints. */
export interface Found {
	catalog: Catalog;
	how: 'catalog' | 'lookup';
	/** API calls it took. */
	calls: number;
	pages?: number;
	/** Why a lookup was not used where it was asked for or expected. */
	fallback?: string;
}

// Per account and match field: the catalog's pages, and a value whose search proved the field is searched. A guess
// about cost only: each run that needs the proof asks again (docs/maintainers.md, What each n8n process keeps).
const learnt = new Map<string, { pages?: number; served?: number; sample?: string }>();

/** Whether a field's value shows `value`, in any case (as the contract's search compares). */
const holds = (inner: unknown, value: string) =>
	(JSON.stringify(inner ?? '') ?? '').toLowerCase().includes(value.toLowerCase());

/** Whether `value` shows in no field of the product but `field`: a search finding it matched that field. */
const onlyIn = (product: IDataObject, field: string, value: string) =>
	Object.entries(product).every(([key, inner]) => key === field || !holds(inner, value));

/**
 * The products the product list's `search` finds for `value` (every page): a value's lookup. `served`: how many items
 * a page of this service holds where more follow, if known; a page shorter than that is the last, whatever the list
 * says (a list that shows no end but an empty page would otherwise cost a second request a lookup).
 */
export async function lookUp(
	client: StorefrontClient,
	value: string,
	target: RequestTarget,
	served?: number,
): Promise<IDataObject[]> {
	const qs = { search: value };
	const first = await client.getPage('products', qs, 1, target);
	if (first.nextPage === undefined || (served !== undefined && first.items.length < served))
		return first.items;
	return await client.getMany('products', qs, undefined, target, first);
}

/** What the choice of a way is made from: only what is known before the next request. */
export interface LookupAsk {
	findBy: FindBy;
	field: MatchField;
	/** The run's distinct match values. */
	values: number;
	pages: number | undefined;
	firstRead: boolean;
}

/**
 * How many pages a list that does not say its length is taken to have past its first, until a run reads it whole
 * (docs/storefront-node.md, Finding the products): a run of fewer values looks them up.
 */
export const UNSIZED_PAGES = 50;

/** Automatic takes the fewer requests: a lookup a value plus one proving the search, or a read of every page. */
export function lookupChoice(ask: LookupAsk): 'catalog' | 'lookup' | 'first page' {
	const { findBy, field, values, pages, firstRead } = ask;
	// No GET /products/{id}, and search does not look at ids.
	if (findBy === 'catalog' || values === 0 || field === 'id') return 'catalog';
	if (findBy === 'lookup') return 'lookup';
	if (pages === undefined && !firstRead) return 'first page';
	const toRead = (pages ?? UNSIZED_PAGES) - (firstRead ? 1 : 0);
	return values + 1 >= toRead ? 'catalog' : 'lookup';
}

/** Finds the products of the run's distinct match values, at most `atOnce` lookups in flight (as its items). */
export async function findProducts(
	client: StorefrontClient,
	field: MatchField,
	{ values, findBy, atOnce }: { values: string[]; findBy: FindBy; atOnce: number },
	target: RequestTarget,
): Promise<Found> {
	const key = `${client.account}|${field}`;
	const memory = learnt.get(key) ?? {};
	learnt.set(key, memory);
	const startCalls = client.calls;
	const found = (catalog: Catalog, how: Found['how']): Found => {
		return { catalog, how, calls: client.calls - startCalls, pages: memory.pages };
	};
	const search = async (qs: IDataObject) => await client.getPage('products', qs, 1, target);
	const firstPage = async () => {
		const page = await search({});
		if (page.pages !== undefined) memory.pages = page.pages;
		if (page.nextPage !== undefined) memory.served = page.items.length;
		return page;
	};
	const readAll = async (first?: Page) => {
		const products = await client.getMany('products', {}, undefined, target, first);
		memory.pages = Math.max(1, Math.ceil(products.length / MAX_PAGE_SIZE));
		const catalog = new Catalog(field, products);
		// Most recently changed first (contract row 21): a product changed during the read moves onto a page already
		// read, and pushes that page's last product onto the next page, where the read sees it twice.
		const ids = products.map((product) => recordId(product, 'product')).filter(Boolean);
		catalog.moved = new Set(ids).size < ids.length;
		return found(catalog, 'catalog');
	};
	// Whether searching a value only the field holds finds its product, and only products that show it (a service
	// that ignores `search` lists everything).
	const probe = async (first: Page | undefined) => {
		let sample = memory.sample;
		if (sample === undefined) {
			const page = first ?? (await firstPage());
			const keyed = new Catalog(field, page.items);
			sample = page.items
				.map((product) => keyed.keyOf(product))
				.find((key, n) => key !== undefined && onlyIn(page.items[n], field, key));
		}
		if (sample === undefined) return false;
		const { items } = await search({ search: sample });
		const proven =
			new Catalog(field, items).find(sample).length > 0 &&
			items.every((product) => Object.values(product).some((inner) => holds(inner, sample)));
		memory.sample = proven ? sample : undefined;
		return proven;
	};

	const ask = { findBy, field, values: values.length, firstRead: false };
	let choice = lookupChoice({ ...ask, pages: memory.pages });
	let first: Page | undefined;
	if (choice === 'first page') {
		first = await firstPage();
		const pages = first.nextPage === undefined ? 1 : memory.pages;
		choice = lookupChoice({ ...ask, pages, firstRead: true });
	}
	if (choice !== 'lookup') return await readAll(first);

	const results: IDataObject[][] = [];
	let next = 0;
	const lookups = async () => {
		for (let i = next++; i < values.length; i = next++)
			results[i] = await lookUp(client, values[i], target, memory.served);
	};
	await Promise.all(Array.from({ length: Math.min(atOnce, values.length) }, lookups));
	const catalog = new Catalog(field, [...(first?.items ?? []), ...results.flat()]);

	// A value no lookup found is new only if this run saw the search look at the field: a product found by a value
	// only that field holds proves it.
	const evidence = values.find((value) =>
		catalog.find(value).some((product) => onlyIn(product, field, value)),
	);
	if (evidence !== undefined) memory.sample = evidence;
	const allFound = values.every((value) => catalog.find(value).length > 0);
	if (allFound || evidence !== undefined || (await probe(first))) return found(catalog, 'lookup');
	const fallback = `the service's search did not find a product by its ${MATCH_NOUNS[field]}`;
	return { ...(await readAll(first)), fallback };
}

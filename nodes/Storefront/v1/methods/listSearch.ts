// The locators' From List searches: the token is the next page number, a record's value its id (transport/identity.ts).
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ORDER_STATUSES } from '../../../shared/constants';
import {
	idFieldNames,
	nextPageNumber,
	recordId,
	StorefrontClient,
} from '../../../shared/transport';

/**
 * Where a search is in the list, as its token: the page to read, the first page's length and the items read so far
 * (a silently capped page size is not the end, row 6), and the first id of the page before (a service ignoring `page`
 * serves it again).
 */
interface Place {
	page: number;
	first: number;
	read: number;
	before?: string;
}

function placeOf(token?: string): Place {
	try {
		const place = JSON.parse(token ?? '') as Place;
		if (Number.isInteger(place.page) && place.page > 1) return place;
	} catch {
		// No token, or one from before: the first page.
	}
	return { page: 1, first: 0, read: 0 };
}

/** The token's page, its records with their ids; those without one cannot be picked, and a page of none is an error. */
async function pageWithIds(
	context: ILoadOptionsFunctions,
	resource: string,
	qs: IDataObject,
	token?: string,
) {
	const client = await StorefrontClient.create(context);
	const place = placeOf(token);
	const { items, meta } = await client.getPage(resource, qs, place.page);
	const firstId = items.length > 0 ? recordId(items[0], resource) : undefined;
	if (place.before !== undefined && firstId === place.before) return { records: [] };
	const records = items.flatMap((record) => {
		const id = recordId(record, resource);
		return id === undefined ? [] : [{ id, record }];
	});
	if (items.length > 0 && records.length === 0) {
		throw new NodeOperationError(
			context.getNode(),
			`Storefront's ${resource} have no id: none of the ${items.length} listed has ${idFieldNames(resource)}`,
			{
				description:
					'Choose "By ID" and enter the id, or ask the service which field holds a record\'s id.',
			},
		);
	}
	const first = place.page === 1 ? items.length : place.first;
	const read = place.read + items.length;
	const page = nextPageNumber(meta, place.page, items.length, first, read);
	const next: Place | undefined =
		page === undefined ? undefined : { page, first, read, before: firstId };
	return { records, paginationToken: next && JSON.stringify(next) };
}

/** @public n8n calls it by its name, from the Product parameter's From List. */
export async function searchProducts(
	this: ILoadOptionsFunctions,
	filter?: string,
	token?: string,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = filter?.trim() ? { search: filter.trim() } : {};
	const { records, ...next } = await pageWithIds(this, 'products', qs, token);
	return {
		results: records.map(({ id, record }) => ({
			name: [record.name ?? id, record.sku].filter(Boolean).join(' · '),
			value: id,
		})),
		...next,
	};
}

/** @public n8n calls it by its name, from the Order parameter's From List. */
export async function searchOrders(
	this: ILoadOptionsFunctions,
	filter?: string,
	token?: string,
): Promise<INodeListSearchResult> {
	const text = filter?.trim().toLowerCase() ?? '';
	// A filter naming a status lists that status server-side; other text matches IDs on the fetched page.
	const status = ORDER_STATUSES.find(({ value }) => value === text)?.value;
	const { records, ...next } = await pageWithIds(this, 'orders', status ? { status } : {}, token);
	const matches = (field: unknown) =>
		String(field ?? '')
			.toLowerCase()
			.includes(text);
	const matching = status
		? records
		: records.filter(({ id, record }) => matches(id) || matches(record.customer_id));
	return {
		results: matching.map(({ id, record }) => {
			const total =
				record.total === undefined
					? undefined
					: `${String(record.total)} ${String(record.currency ?? '')}`.trim();
			return { name: [id, record.status, total].filter(Boolean).join(' · '), value: id };
		}),
		...next,
	};
}

// "From List" searches of the resource locators. The pagination token is the next page number.
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { MAX_PAGE_SIZE, ORDER_STATUSES } from '../../../shared/constants';
import { StorefrontClient } from '../transport';

function pageOf(token?: string): number {
	const page = Number(token);
	return Number.isInteger(page) && page > 0 ? page : 1;
}

export async function searchProducts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const client = await StorefrontClient.create(this);
	const qs: IDataObject = filter?.trim() ? { search: filter.trim() } : {};
	const page = pageOf(paginationToken);
	const { items, nextPage } = await client.getPage(['products'], 'products', qs, page, MAX_PAGE_SIZE);
	return {
		results: items.map((product) => ({
			name: [product.name ?? product.id, product.sku].filter(Boolean).join(' · '),
			value: String(product.id),
		})),
		paginationToken: nextPage === undefined ? undefined : String(nextPage),
	};
}

export async function searchOrders(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const client = await StorefrontClient.create(this);
	const text = filter?.trim().toLowerCase() ?? '';
	// A filter naming a status lists that status server-side; other text matches IDs on the fetched page.
	const status = ORDER_STATUSES.find(({ value }) => value === text)?.value;
	const qs: IDataObject = status ? { status } : {};
	const page = pageOf(paginationToken);
	const { items, nextPage } = await client.getPage(['orders'], 'orders', qs, page, MAX_PAGE_SIZE);
	const matching = status || !text
		? items
		: items.filter((order) => [order.id, order.customer_id].some((field) => String(field ?? '').toLowerCase().includes(text)));
	return {
		results: matching.map((order) => ({
			name: [order.id, order.status, order.total !== undefined ? `${String(order.total)} ${String(order.currency ?? '')}`.trim() : undefined]
				.filter(Boolean)
				.join(' · '),
			value: String(order.id),
		})),
		paginationToken: nextPage === undefined ? undefined : String(nextPage),
	};
}

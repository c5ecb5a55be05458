// "From List" searches of the resource locators. The pagination token is the next page number. A record's value is
// its id under the package's one rule (transport/identity.ts): `id`, else `product_id` / `order_id`.
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ORDER_STATUSES } from '../../../shared/constants';
import { idFieldNames, recordId, StorefrontClient } from '../../../shared/transport';

function pageOf(token?: string): number {
	const page = Number(token);
	return Number.isInteger(page) && page > 0 ? page : 1;
}

/**
 * The page's records with their ids. Records without one cannot be picked, so they are left out; a page of records
 * none of which has one is an error saying so, never a list of `undefined` values.
 */
function withIds(context: ILoadOptionsFunctions, items: IDataObject[], resource: string) {
	const keyed = items.flatMap((record) => {
		const id = recordId(record, resource);
		return id === undefined ? [] : [{ id, record }];
	});
	if (items.length > 0 && keyed.length === 0) {
		throw new NodeOperationError(
			context.getNode(),
			`Storefront's ${resource} have no id: none of the ${items.length} listed has ${idFieldNames(resource)}`,
			{
				description:
					'Choose "By ID" and enter the id, or ask the service which field holds a record\'s id.',
			},
		);
	}
	return keyed;
}

/** @public n8n calls it by its name, from the Product parameter's From List. */
export async function searchProducts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const client = await StorefrontClient.create(this);
	const qs: IDataObject = filter?.trim() ? { search: filter.trim() } : {};
	const page = pageOf(paginationToken);
	const { items, nextPage } = await client.getPage(['products'], 'products', qs, page);
	return {
		results: withIds(this, items, 'products').map(({ id, record }) => ({
			name: [record.name ?? id, record.sku].filter(Boolean).join(' · '),
			value: id,
		})),
		paginationToken: nextPage === undefined ? undefined : String(nextPage),
	};
}

/** @public n8n calls it by its name, from the Order parameter's From List. */
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
	const { items, nextPage } = await client.getPage(['orders'], 'orders', qs, page);
	const orders = withIds(this, items, 'orders');
	const matching =
		status || !text
			? orders
			: orders.filter(({ id, record }) =>
					[id, record.customer_id].some((field) =>
						String(field ?? '')
							.toLowerCase()
							.includes(text),
					),
				);
	return {
		results: matching.map(({ id, record }) => ({
			name: [
				id,
				record.status,
				record.total !== undefined
					? `${String(record.total)} ${String(record.currency ?? '')}`.trim()
					: undefined,
			]
				.filter(Boolean)
				.join(' · '),
			value: id,
		})),
		paginationToken: nextPage === undefined ? undefined : String(nextPage),
	};
}

// "From List" searches of the resource locators. The pagination token is the next page number. A record's value is
// its id under the package's one rule (transport/identity.ts): `id`, else `product_id` / `order_id`.
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ORDER_STATUSES } from '../../../shared/constants';
import { idFieldNames, recordId, StorefrontClient } from '../../../shared/transport';

/**
 * The page the token names, its records with their ids. Records without one cannot be picked, so they are left out; a
 * page of records none of which has one is an error saying so, never a list of `undefined` values.
 */
async function pageWithIds(
	context: ILoadOptionsFunctions,
	resource: string,
	qs: IDataObject,
	token?: string,
) {
	const client = await StorefrontClient.create(context);
	const asked = Number(token);
	const page = Number.isInteger(asked) && asked > 0 ? asked : 1;
	const { items, nextPage } = await client.getPage([resource], resource, qs, page);
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
	return { records, paginationToken: nextPage === undefined ? undefined : String(nextPage) };
}

/** @public n8n calls it by its name, from the Product parameter's From List. */
export async function searchProducts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = filter?.trim() ? { search: filter.trim() } : {};
	const { records, ...next } = await pageWithIds(this, 'products', qs, paginationToken);
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
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const text = filter?.trim().toLowerCase() ?? '';
	// A filter naming a status lists that status server-side; other text matches IDs on the fetched page.
	const status = ORDER_STATUSES.find(({ value }) => value === text)?.value;
	const { records, ...next } = await pageWithIds(
		this,
		'orders',
		status ? { status } : {},
		paginationToken,
	);
	const matching =
		status || !text
			? records
			: records.filter(({ id, record }) =>
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
		...next,
	};
}

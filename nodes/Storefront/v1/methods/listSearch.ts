// The locators' From List searches: the token is the next page number, a record's value its id (transport/identity.ts).
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ORDER_STATUSES } from '../../../shared/constants';
import { idFieldNames, recordId, StorefrontClient } from '../../../shared/transport';

/** The token's page, its records with their ids; those without one cannot be picked, and a page of none is an error. */
async function pageWithIds(
	context: ILoadOptionsFunctions,
	resource: string,
	qs: IDataObject,
	token?: string,
) {
	const client = await StorefrontClient.create(context);
	const asked = Number(token);
	const page = Number.isInteger(asked) && asked > 0 ? asked : 1;
	const { items, nextPage } = await client.getPage(resource, qs, page);
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

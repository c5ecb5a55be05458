import type { INodeProperties } from 'n8n-workflow';

import { locatorId, productLocator, toolDescription, writeToolNotice } from '../common';
import { perItem } from '../eachItem';

export const properties: INodeProperties[] = [
	writeToolNotice('delete products from your store, for good'),
	toolDescription(
		'Delete one product of the Storefront shop by its id (like prod_00001), permanently. Returns {deleted: true, ' +
			'id}. An unknown id returns an error saying the product was not found.',
	),
	productLocator,
];

export const execute = perItem(async function (client, itemIndex) {
	const id = locatorId(this, 'productId', 'Product', itemIndex);
	const target = { resourceLabel: 'Product', id, itemIndex };
	const response = await client.request('DELETE', ['products', id], {}, target);
	const { body } = response;
	// The contract answers 204 without a body; a service that sends one has its body passed on.
	if (
		body === undefined ||
		body === null ||
		body === '' ||
		(typeof body === 'object' && Object.keys(body).length === 0)
	) {
		return { deleted: true, id };
	}
	return client.single(response, 'product', target);
}, 'productId');

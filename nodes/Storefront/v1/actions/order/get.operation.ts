import type { INodeProperties } from 'n8n-workflow';

import { locatorId, orderLocator, toolDescription } from '../common';
import { perItem } from '../eachItem';

export const properties: INodeProperties[] = [
	toolDescription(
		'Get one order of the Storefront shop by its id (like ord_00001). Returns the order: id, status (pending, ' +
			'processing, shipped, delivered, cancelled or refunded), total, currency, customer_id, items (product_id, ' +
			'name, quantity, price each), created_at, updated_at and paid_at (null until paid). An unknown id returns ' +
			'an error saying the order was not found.',
	),
	orderLocator,
];

export const execute = perItem(async function (client, itemIndex) {
	const id = locatorId(this, 'orderId', 'Order', itemIndex);
	const target = { resourceLabel: 'Order', id, itemIndex };
	return await client.requestRecord('GET', ['orders', id], 'order', target);
}, 'orderId');

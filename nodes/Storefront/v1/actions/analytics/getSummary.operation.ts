import type { INodeProperties } from 'n8n-workflow';

import { toolDescription } from '../common';
import { perItem } from '../eachItem';

export const properties: INodeProperties[] = [
	toolDescription(
		'Get live totals of the Storefront shop; needs no input. Returns one object: products_count, ' +
			'active_products_count, low_stock_products_count, orders_count, orders_by_status (count per status), revenue, ' +
			'average_order_value, customers_count, currency and generated_at.',
	),
	{
		displayName:
			'Returns one item with product, order and customer counts, orders by status, ' +
			'revenue and average order value, computed live',
		name: 'summaryNotice',
		type: 'notice',
		default: '',
	},
];

export const execute = perItem(async function (client, itemIndex) {
	return await client.requestRecord('GET', ['analytics', 'summary'], 'summary', { itemIndex });
});

import type { INodeProperties } from 'n8n-workflow';

import { itemError, toolDescription } from '../common';
import { perItem } from '../eachItem';

export const properties: INodeProperties[] = [
	toolDescription(
		"Get the Storefront shop's own settings by its store id (like store_001). Returns the store: id, name, domain, " +
			'currency, timezone and plan.',
	),
	{
		displayName: 'Store ID',
		name: 'storeId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. store_001',
		description:
			'ID of the store whose information (name, domain, currency, timezone, plan) to get',
		hint: 'Shown in the Storefront dashboard under Settings, e.g. store_001',
	},
];

export const execute = perItem(async function (client, itemIndex) {
	const id = String(this.getNodeParameter('storeId', itemIndex, '')).trim();
	if (!id) throw itemError(this, itemIndex, 'The parameter "Store ID" (storeId) is empty');
	const target = { resourceLabel: 'Store', id, itemIndex };
	return await client.requestRecord('GET', ['stores', id], 'store', target);
});

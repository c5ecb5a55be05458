import type { INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { toolDescription } from '../common';
import { perItem } from '../eachItem';

const properties: INodeProperties[] = [
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

export const description = updateDisplayOptions(
	{ show: { resource: ['store'], operation: ['get'] } },
	properties,
);

export const execute = perItem(async function (client, itemIndex) {
	const storeId = String(this.getNodeParameter('storeId', itemIndex, '')).trim();
	if (!storeId) {
		throw new NodeOperationError(this.getNode(), 'The parameter "Store ID" (storeId) is empty', {
			itemIndex,
		});
	}
	return await client.getOne(['stores', storeId], 'store', {
		resourceLabel: 'Store',
		id: storeId,
		itemIndex,
	});
});

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { StorefrontClient } from '../../transport';

const properties: INodeProperties[] = [
	{
		displayName:
			'Returns one item with product, order and customer counts, orders by status, revenue and average order value, computed live',
		name: 'summaryNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['analytics'], operation: ['getSummary'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, client: StorefrontClient, itemIndex: number): Promise<IDataObject> {
	return await client.getOne(['analytics', 'summary'], 'summary', { itemIndex });
}

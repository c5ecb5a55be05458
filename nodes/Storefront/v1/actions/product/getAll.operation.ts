import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { StorefrontClient } from '../../transport';
import { getManyItems, returnAllAndLimit } from '../common';

const properties: INodeProperties[] = [
	...returnAllAndLimit('product'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'Narrow the products returned; filters apply on every page',
		options: [
			{
				displayName: 'Category',
				name: 'category',
				type: 'string',
				default: '',
				description: 'Only products in this category (exact name, case-insensitive)',
			},
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				description: 'Only products whose name, SKU or description contains this text (case-insensitive)',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['product'], operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, client: StorefrontClient, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	return await getManyItems(this, client, 'products', filters, itemIndex);
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { StorefrontClient } from '../../transport';
import { getManyItems, returnAllAndLimit } from '../common';

const properties: INodeProperties[] = [
	...returnAllAndLimit('customer'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'Narrow the customers returned',
		options: [
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				description: 'Only customers whose name or email contains this text (case-insensitive)',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['customer'], operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, client: StorefrontClient, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	return await getManyItems(this, client, 'customers', filters, itemIndex);
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { ORDER_STATUSES } from '../../../../shared/constants';
import type { StorefrontClient } from '../../transport';
import { getManyItems, returnAllAndLimit } from '../common';

const properties: INodeProperties[] = [
	...returnAllAndLimit('order'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'Narrow the orders returned; filters apply on every page',
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: ORDER_STATUSES.map(({ name, value, description }) => ({ name, value, description })),
				default: 'pending',
				description: 'Only orders in this status. An expression may give a status not listed here.',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['order'], operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, client: StorefrontClient, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	return await getManyItems(this, client, 'orders', filters, itemIndex);
}

import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { ORDER_STATUSES } from '../../../../shared/constants';
import { getManyExecute, getManyProperties } from '../common';

const properties: INodeProperties[] = getManyProperties('order', [
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: ORDER_STATUSES.map(({ name, value, description }) => ({ name, value, description })),
		default: 'pending',
		description: 'Only orders in this status. An expression may give a status not listed here.',
	},
]);

export const description = updateDisplayOptions({ show: { resource: ['order'], operation: ['getAll'] } }, properties);

export const execute = getManyExecute('orders');

import type { INodeProperties } from 'n8n-workflow';

import { operationProperties } from '../common';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as updateStatus from './updateStatus.operation';

export { get, getAll, updateStatus };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['order'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get one order with its line items, total, status and payment time',
				action: 'Get order',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List orders, optionally only those in one status (e.g. pending)',
				action: 'Get many orders',
			},
			{
				name: 'Update Status',
				value: 'updateStatus',
				description: 'Move an order to a new status, e.g. mark it shipped or cancelled',
				action: 'Update order status',
			},
		],
		default: 'get',
	},
	...operationProperties('order', { get, getAll, updateStatus }),
];

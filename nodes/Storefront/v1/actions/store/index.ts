import type { INodeProperties } from 'n8n-workflow';

import { operationProperties } from '../common';
import * as get from './get.operation';

export { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['store'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: "Get a store's information: name, domain, currency, timezone and plan",
				action: 'Get store',
			},
		],
		default: 'get',
	},
	...operationProperties('store', { get }),
];

import type { INodeProperties } from 'n8n-workflow';

import { operationProperties } from '../common';
import * as getSummary from './getSummary.operation';

export { getSummary };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['analytics'] } },
		options: [
			{
				name: 'Get Summary',
				value: 'getSummary',
				description:
					'Get store totals: product, order and customer counts, orders by status, revenue and average order value',
				action: 'Get store analytics summary',
			},
		],
		default: 'getSummary',
	},
	...operationProperties('analytics', { getSummary }),
];

import type { INodeProperties } from 'n8n-workflow';

import { operationProperties } from '../common';
import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customer'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List customers (name, email, order count, total spent), optionally searched by name or email',
				action: 'Get many customers',
			},
		],
		default: 'getAll',
	},
	...operationProperties('customer', { getAll }),
];

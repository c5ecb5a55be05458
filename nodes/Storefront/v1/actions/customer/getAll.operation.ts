import type { INodeProperties } from 'n8n-workflow';

import type { ToolUse } from '../getMany';
import { getManyExecute, getManyProperties, pickWithId } from '../getMany';

const tool: ToolUse = {
	description:
		'List customers of the Storefront shop, optionally only those whose name or email contains a search text. ' +
		'Returns one entry per customer: id (like cus_00001), name, email, orders_count and total_spent; at most ' +
		'Limit customers (default 50), so a full page may mean more exist.',
	fields: 'ID, name, email, order count, total spent',
	simplify: (customer) =>
		pickWithId(customer, 'customer', ['name', 'email', 'orders_count', 'total_spent']),
};

export const properties: INodeProperties[] = getManyProperties(
	'customer',
	[
		{
			displayName: 'Search',
			name: 'search',
			type: 'string',
			default: '',
			description: 'Only customers whose name or email contains this text (case-insensitive)',
		},
	],
	tool,
);

export const execute = getManyExecute('customers', tool);

import type { INodeProperties } from 'n8n-workflow';

import { ORDER_STATUSES } from '../../../../shared/constants';
import type { ToolUse } from '../getMany';
import { getManyExecute, getManyProperties, pick, pickWithId } from '../getMany';

const tool: ToolUse = {
	description:
		'List orders of the Storefront shop, optionally only those in one status (pending, processing, shipped, ' +
		'delivered, cancelled or refunded). Returns one entry per order: id (like ord_00001), status, total, currency, ' +
		'customer_id, item_count, created_at and paid_at (null until paid); at most Limit orders (default 50), so a full ' +
		'page may mean more exist.',
	fields: 'ID, status, total, currency, customer ID, item count, created and paid times',
	simplify: (order) => ({
		...pickWithId(order, 'order', ['status', 'total', 'currency', 'customer_id']),
		...(Array.isArray(order.items) ? { item_count: order.items.length } : {}),
		...pick(order, ['created_at', 'paid_at']),
	}),
};

export const properties: INodeProperties[] = getManyProperties(
	'order',
	[
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: ORDER_STATUSES.map(({ name, value, description }) => ({ name, value, description })),
			default: 'pending',
			description: 'Only orders in this status. An expression may give a status not listed here.',
		},
	],
	tool,
);

export const execute = getManyExecute('orders', tool);

import type { INodeProperties } from 'n8n-workflow';

import { ORDER_MOVES, ORDER_STATUSES } from '../../../../shared/constants';
import { itemError, locatorId, orderLocator, toolDescription, writeToolNotice } from '../common';
import { perItem } from '../eachItem';

export const properties: INodeProperties[] = [
	writeToolNotice("change orders' statuses, which customers may be told about"),
	toolDescription(
		`Set the status of one order of the Storefront shop. Needs the order id (like ord_00001) and the new status. ` +
			`Allowed moves only: ${ORDER_MOVES}. Setting the current status again changes nothing. Any other move is ` +
			`refused with a 409 error naming the transition, and the order is left as it was. Returns the updated ` +
			`order (id, status, total, currency, customer_id, items, timestamps).`,
	),
	orderLocator,
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		required: true,
		allowArbitraryValues: true,
		options: ORDER_STATUSES.map(({ name, value, description }) => ({ name, value, description })),
		default: 'processing',
		description: `The new status. Allowed moves: ${ORDER_MOVES}. Setting the current status again changes nothing.`,
		hint: 'Use an expression for a status not listed here',
	},
];

export const execute = perItem(async function (client, itemIndex) {
	const id = locatorId(this, 'orderId', 'Order', itemIndex);
	const status = String(this.getNodeParameter('status', itemIndex, '')).trim();
	if (!status) throw itemError(this, itemIndex, 'The parameter "Status" (status) is empty');
	const target = { resourceLabel: 'Order', id, itemIndex };
	// Idempotent by contract (row 3), so the transport may safely retry this PUT.
	return await client.requestRecord('PUT', ['orders', id, 'status'], 'order', target, { status });
}, 'orderId');

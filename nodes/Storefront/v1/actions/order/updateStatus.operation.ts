import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { ORDER_STATUSES } from '../../../../shared/constants';
import type { StorefrontClient } from '../../transport';
import { locatorId, orderLocator } from '../common';

const properties: INodeProperties[] = [
	orderLocator,
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		required: true,
		allowArbitraryValues: true,
		options: ORDER_STATUSES.map(({ name, value, description }) => ({ name, value, description })),
		default: 'processing',
		description:
			'The new status. Allowed moves: pending → processing or cancelled; processing → shipped or cancelled; shipped → delivered; delivered → refunded. Setting the current status again changes nothing.',
		hint: 'Use an expression for a status not listed here',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['order'], operation: ['updateStatus'] } }, properties);

export async function execute(this: IExecuteFunctions, client: StorefrontClient, itemIndex: number): Promise<IDataObject> {
	const id = locatorId(this, 'orderId', 'Order', itemIndex);
	const status = String(this.getNodeParameter('status', itemIndex, '')).trim();
	if (!status) {
		throw new NodeOperationError(this.getNode(), 'The parameter "Status" (status) is empty', { itemIndex });
	}
	const target = { resourceLabel: 'Order', id, itemIndex };
	// Idempotent by contract (row 3), so the transport may safely retry this PUT.
	const response = await client.request('PUT', ['orders', id, 'status'], { body: { status } }, target);
	return client.single(response, 'order', target);
}

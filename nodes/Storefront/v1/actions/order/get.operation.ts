import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { StorefrontClient } from '../../transport';
import { locatorId, orderLocator } from '../common';

const properties: INodeProperties[] = [orderLocator];

export const description = updateDisplayOptions({ show: { resource: ['order'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, client: StorefrontClient, itemIndex: number): Promise<IDataObject> {
	const id = locatorId(this, 'orderId', 'Order', itemIndex);
	return await client.getOne(['orders', id], 'order', { resourceLabel: 'Order', id, itemIndex });
}

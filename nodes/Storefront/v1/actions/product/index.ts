import type { INodeProperties } from 'n8n-workflow';

import { operationProperties } from '../common';
import * as create from './create.operation';
import * as deleteProduct from './delete.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';
import * as upsert from './upsert.operation';

export { create, deleteProduct as delete, getAll, update, upsert };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['product'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Create a product from a name and price plus optional fields (SKU, stock, category…)',
				action: 'Create product',
			},
			{
				name: 'Create or Update',
				value: 'upsert',
				description: 'Create a new record, or update the current one if it already exists (upsert)',
				action: 'Create or update product',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a product permanently by its ID',
				action: 'Delete product',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List products, optionally filtered by category or a search text',
				action: 'Get many products',
			},
			{
				name: 'Update',
				value: 'update',
				description:
					'Change some fields of an existing product (price, stock, status…), keeping the others',
				action: 'Update product',
			},
		],
		default: 'getAll',
	},
	...operationProperties('product', { create, delete: deleteProduct, getAll, update, upsert }),
];

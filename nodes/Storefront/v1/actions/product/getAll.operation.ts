import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getManyExecute, getManyProperties } from '../common';

const properties: INodeProperties[] = getManyProperties('product', [
	{
		displayName: 'Category',
		name: 'category',
		type: 'string',
		default: '',
		description: 'Only products in this category (exact name, case-insensitive)',
	},
	{
		displayName: 'Search',
		name: 'search',
		type: 'string',
		default: '',
		description: 'Only products whose name, SKU or description contains this text (case-insensitive)',
	},
]);

export const description = updateDisplayOptions({ show: { resource: ['product'], operation: ['getAll'] } }, properties);

export const execute = getManyExecute('products');

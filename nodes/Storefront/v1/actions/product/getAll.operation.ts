import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ToolUse } from '../common';
import { getManyExecute, getManyProperties, pick } from '../common';

const tool: ToolUse = {
	description:
		'List products of the Storefront shop, optionally only one category or those whose name, SKU or description contains a search text. Returns one entry per product: id (like prod_00001), name, sku, category, price, currency, stock (units in stock) and status (active, draft or archived); at most Limit products (default 50), so a full page may mean more exist.',
	fields: 'ID, name, SKU, category, price, currency, stock, status',
	simplify: (product) => pick(product, ['id', 'name', 'sku', 'category', 'price', 'currency', 'stock', 'status']),
};

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
], tool);

export const description = updateDisplayOptions({ show: { resource: ['product'], operation: ['getAll'] } }, properties);

export const execute = getManyExecute('products', tool);

import type { INodeProperties } from 'n8n-workflow';

import type { ToolUse } from '../getMany';
import { getManyExecute, getManyProperties, pickWithId } from '../getMany';

/** A simplified product's fields beside its id. */
const SIMPLIFIED = ['name', 'sku', 'category', 'price', 'currency', 'stock', 'status'];

const tool: ToolUse = {
	description:
		'List products of the Storefront shop, optionally only one category or those whose name, SKU or description ' +
		'contains a search text. Returns one entry per product: id (like prod_00001), name, sku, category, price, ' +
		'currency, stock (units in stock) and status (active, draft or archived); at most Limit products (default 50), ' +
		'so a full page may mean more exist.',
	fields: 'ID, name, SKU, category, price, currency, stock, status',
	simplify: (product) => pickWithId(product, 'product', SIMPLIFIED),
};

export const properties: INodeProperties[] = getManyProperties(
	'product',
	[
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
			description:
				'Only products whose name, SKU or description contains this text (case-insensitive)',
		},
	],
	tool,
).concat(
	// n8n's UX guidelines want Simplify for records this large (docs/verification.md). Off by default: a listed
	// product goes on into Update, Create or Update or a sheet, which want every field. The tool's own is on.
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		description:
			'Whether to return a simplified version of the response instead of the raw data: ' +
			`${tool.fields} of each product`,
		displayOptions: { show: { '@tool': [false] } },
	},
);

export const execute = getManyExecute('products', tool);

import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { itemError, locatorId, productLocator, toolDescription, writeToolNotice } from '../common';
import { perItem } from '../eachItem';
import { productFieldOptions } from './editorFields';
import { parameterOf, productBody } from './fields';

/** A field of Update Fields, as an item's failure names it. */
const parameter = parameterOf('updateFields');

export const properties: INodeProperties[] = [
	writeToolNotice('change products in your store: prices, stock, status'),
	toolDescription(
		'Update one product of the Storefront shop. Needs the product id (like prod_00001) and the fields to ' +
			'change (name, price, stock, status active/draft/archived, sku, category, description, images); ' +
			'fields not given keep their value. Returns the updated product (id, name, sku, category, price, ' +
			'currency, stock, status, images, timestamps).',
	),
	productLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Fields to change; fields not set, or left empty, keep their current value',
		hint: 'Set at least one field',
		options: productFieldOptions(true),
	},
];

export const execute = perItem(async function (client, itemIndex) {
	const id = locatorId(this, 'productId', 'Product', itemIndex);
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body = productBody(this, itemIndex, fields, 'updateFields', parameter);
	if (Object.keys(body).length === 0) {
		throw itemError(
			this,
			itemIndex,
			'The parameter "Update Fields" (updateFields) sets no field to change',
			'Add at least one field with a value; an empty field keeps its current value.',
		);
	}
	const target = { resourceLabel: 'Product', id, itemIndex };
	return await client.requestRecord('PUT', ['products', id], 'product', target, body);
}, 'productId');

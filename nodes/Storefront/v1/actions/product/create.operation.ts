import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { itemError, toolDescription, writeToolNotice } from '../common';
import { perItem } from '../eachItem';
import { nameAndPrice, productFieldOptions } from './editorFields';
import { missingToCreate, parameterOf, productBody } from './fields';

/** A field of Create, as an item's failure names it: Name and Price are parameters of their own. */
const parameter = parameterOf('additionalFields', ['name', 'price']);

export const properties: INodeProperties[] = [
	writeToolNotice('add products to your store'),
	toolDescription(
		'Create a product in the Storefront shop. Needs a name (1–200 characters) and a price (0 or more, in ' +
			'the store currency unless a currency is set). Returns the new product with its id (like prod_00001), ' +
			'name, sku, category, price, currency, stock, status (active, draft or archived), images and ' +
			'timestamps. Each call creates one more product: do not repeat a call that succeeded.',
	),
	...nameAndPrice(false),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Optional product fields; Extra Fields (JSON) passes any other field unchanged',
		options: productFieldOptions(false),
	},
];

export const execute = perItem(async function (client, itemIndex) {
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const values = {
		...fields,
		name: this.getNodeParameter('name', itemIndex, ''),
		price: this.getNodeParameter('price', itemIndex, 0),
	};
	const body = productBody(this, itemIndex, values, 'additionalFields', parameter);
	const [missing] = missingToCreate(body);
	if (missing !== undefined)
		throw itemError(this, itemIndex, `${parameter(missing)} must not be empty`);
	return await client.requestRecord('POST', ['products'], 'product', { itemIndex }, body);
});

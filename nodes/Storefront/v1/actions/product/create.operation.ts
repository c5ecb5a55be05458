import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { StorefrontClient } from '../../../../shared/transport';
import { toolDescription, writeToolNotice } from '../common';
import { productFieldOptions } from './editorFields';
import { PRODUCT_FIELDS, productBody } from './fields';

const properties: INodeProperties[] = [
	writeToolNotice('add products to your store'),
	toolDescription(
		'Create a product in the Storefront shop. Needs a name (1–200 characters) and a price (0 or more, in ' +
			'the store currency unless a currency is set). Returns the new product with its id (like prod_00001), ' +
			'name, sku, category, price, currency, stock, status (active, draft or archived), images and ' +
			'timestamps. Each call creates one more product: do not repeat a call that succeeded.',
	),
	{
		displayName: PRODUCT_FIELDS.name.label,
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Linen Shirt',
		description: 'Product name shown to shoppers (1–200 characters)',
	},
	{
		displayName: PRODUCT_FIELDS.price.label,
		name: 'price',
		type: 'number',
		required: true,
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description:
			"Unit price, 0 or more, in the product's currency (the store's currency unless set below)",
	},
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

export const description = updateDisplayOptions(
	{ show: { resource: ['product'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: StorefrontClient,
	itemIndex: number,
): Promise<IDataObject> {
	const values = {
		name: this.getNodeParameter('name', itemIndex, ''),
		price: this.getNodeParameter('price', itemIndex, 0),
	};
	const required = productBody(this, values, '', itemIndex);
	for (const key of ['name', 'price'] as const) {
		if (required[key] === undefined) {
			throw new NodeOperationError(
				this.getNode(),
				`The parameter "${PRODUCT_FIELDS[key].label}" (${key}) must not be empty`,
				{ itemIndex },
			);
		}
	}
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const body = { ...productBody(this, fields, 'additionalFields', itemIndex), ...required };
	const response = await client.request('POST', ['products'], { body }, { itemIndex });
	return client.single(response, 'product', { itemIndex });
}

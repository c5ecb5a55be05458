import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RunSettings } from '../common';
import { itemError, toolDescription, writeToolNotice } from '../common';
import { eachItem } from '../eachItem';
import { productFieldOptions } from './editorFields';
import { missingToCreate, PRODUCT_FIELDS, productBody } from './fields';

/** A field of Create, as an item's failure names it: Name and Price are parameters of their own. */
const parameter = (key: string) =>
	`The parameter "${PRODUCT_FIELDS[key].label}" (${key === 'name' || key === 'price' ? key : `additionalFields.${key}`})`;

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
	items: INodeExecutionData[],
	run: RunSettings,
): Promise<INodeExecutionData[]> {
	return await eachItem.call(this, items, run, async (itemIndex) => {
		const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
		const values = {
			...fields,
			name: this.getNodeParameter('name', itemIndex, ''),
			price: this.getNodeParameter('price', itemIndex, 0),
		};
		const body = productBody(
			this,
			itemIndex,
			values,
			{ ...fields, collection: 'additionalFields' },
			parameter,
		);
		const [missing] = missingToCreate(body);
		if (missing !== undefined) {
			throw itemError(
				this,
				itemIndex,
				`The parameter "${PRODUCT_FIELDS[missing].label}" (${missing}) must not be empty`,
			);
		}
		const response = await run.client.request('POST', ['products'], { body }, { itemIndex });
		return run.client.single(response, 'product', { itemIndex });
	});
}

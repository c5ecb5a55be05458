import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as analytics from './actions/analytics';
import { DEFAULT_CONCURRENCY } from './actions/common';
import * as customer from './actions/customer';
import * as order from './actions/order';
import * as product from './actions/product';
import { mapperFields } from './actions/product/editorFields';
import { router } from './actions/router';
import * as store from './actions/store';
import * as listSearch from './methods/listSearch';
import { DEFAULT_RATE_LIMIT_WAIT_S, DEFAULT_TIMEOUT_S } from '../../shared/transport';

/** The canvas subtitle in the panel's names ("Update Status: Order"), not n8n's usual "updateStatus: order". */
function subtitleOf(properties: INodeProperties[]) {
	const resources = (properties.find((p) => p.name === 'resource')?.options ??
		[]) as INodePropertyOptions[];
	const labels: Record<string, string> = {};
	for (const operation of properties.filter((p) => p.name === 'operation')) {
		for (const resource of operation.displayOptions?.show?.resource ?? []) {
			const resourceName = resources.find((r) => r.value === resource)?.name;
			for (const option of (operation.options ?? []) as INodePropertyOptions[]) {
				labels[`${String(resource)}:${String(option.value)}`] = `${option.name}: ${resourceName}`;
			}
		}
	}
	const key = '$parameter["resource"] + ":" + $parameter["operation"]';
	const fallback = '$parameter["operation"] + ": " + $parameter["resource"]';
	return `={{ ${JSON.stringify(labels)}[${key}] || ${fallback} }}`;
}

export class StorefrontV1 implements INodeType {
	constructor(private readonly baseDescription: INodeTypeBaseDescription) {
		this.description.subtitle = subtitleOf(this.description.properties);
	}

	description: INodeTypeDescription = {
		...this.baseDescription,
		version: 1,
		defaults: { name: 'Storefront' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'storefrontApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Analytics',
						value: 'analytics',
						description: 'Store-wide totals: counts, revenue, average order value',
					},
					{
						name: 'Customer',
						value: 'customer',
						description: 'People who bought from the store',
					},
					{
						name: 'Order',
						value: 'order',
						description: 'Purchases: read them and move them through their statuses',
					},
					{
						name: 'Product',
						value: 'product',
						description: 'Items for sale: list, create, update, delete',
					},
					{
						name: 'Store',
						value: 'store',
						description: "The store's own settings: name, domain, currency, plan",
					},
				],
				default: 'product',
			},
			...analytics.description,
			...customer.description,
			...order.description,
			...product.description,
			...store.description,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				description:
					'How this node sends its requests: how many at once, how fast, and how often it tries again',
				options: [
					{
						displayName: 'Max Concurrent Requests',
						name: 'maxConcurrency',
						type: 'number',
						typeOptions: { minValue: 1, numberPrecision: 0 },
						default: DEFAULT_CONCURRENCY,
						description:
							'How many items of this run are sent at once. Items naming the same product or order always go one ' +
							'after another, in input order. 1 sends every item after the previous one.',
					},
					{
						displayName: 'Max Requests per Minute',
						name: 'maxRequestsPerMinute',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description:
							"A pace for this node below the plan's limit, e.g. to leave room for other workflows on the same API " +
							"key. 0 sets no pace of its own: runs on one key already keep to the plan's limit.",
					},
					{
						displayName: 'Max Retries',
						name: 'maxRetries',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 5,
						description:
							'How often to try a request again after a temporary error of the shop or the connection. A create is ' +
							'never tried again: it may have reached the shop.',
					},
					{
						displayName: 'Max Wait for Rate Limit (Seconds)',
						name: 'maxRateLimitWait',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: DEFAULT_RATE_LIMIT_WAIT_S,
						description:
							"How long a request may wait for the plan's rate limit (behind other runs on the same key, or when " +
							'the shop says it has had too many) before it fails. 15 minutes is about 1,500 requests on Starter.',
					},
					{
						displayName: 'Retry Delay (Ms)',
						name: 'retryDelay',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 1000,
						description:
							'How long to wait before the first retry when the service does not say how long. The wait doubles on ' +
							'each further retry.',
					},
					{
						displayName: 'Timeout (Seconds)',
						name: 'timeout',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: DEFAULT_TIMEOUT_S,
						description:
							'How long one try waits for an answer. Then it counts as a broken connection: tried again, except a ' +
							'Create, which may have reached the service.',
					},
				],
			},
		],
	};

	methods = {
		listSearch,
		// Create or Update's mapper (resourceMapperMethod): the contract's fields, as the service has no schema.
		resourceMapping: { getProductFields: async () => ({ fields: mapperFields() }) },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// "On Error: Continue" is handled in the operation's item loop (actions/eachItem.ts).
		return await router.call(this, this.continueOnFail());
	}
}

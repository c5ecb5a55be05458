// Deliveries (./receive) and readings of the changes no delivery brought (./missedEvents) both start runs whose first
// step claims what they bring (./claim), so whichever path brings a change first runs it (docs/maintainers.md, Layout).
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { DEFAULT_REMEMBER_HOURS } from '../shared/claims';
import { FIRST_WEBHOOK_NODE_VERSION } from '../shared/n8n';
import { eventsSubtitle, triggerProperties } from '../shared/triggerParameters';
import { webhookMethods } from './activation';
import { claimItems } from './claim';
import { DEFAULT_CHECK_MINUTES, type Options } from './options';
import { receive } from './receive';
import { startReading } from './missedEvents';
import { markSuperseded } from './superseded';

const ALL_EVENTS = [
	{
		name: 'All Events',
		value: '*',
		description: 'Any event type, including ones Storefront adds later',
	},
];

export class StorefrontTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Storefront Trigger',
		name: 'storefrontTrigger',
		icon: { light: 'file:storefront.svg', dark: 'file:storefront.dark.svg' },
		group: ['trigger'],
		// One version for the first publish, not 1 (n8n's legacy Webhook v1 handling: ../shared/n8n).
		version: FIRST_WEBHOOK_NODE_VERSION,
		subtitle: eventsSubtitle(ALL_EVENTS),
		description:
			'Starts the workflow when the Storefront shop reports an event: an order placed or updated, ' +
			'a payment completed, a product created or its stock running low',
		defaults: { name: 'Storefront Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'storefrontApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Not n8n's default 'firstEntryJson': empty, n8n answers with our `webhookResponse` ({received: true}).
				responseData: '',
				path: 'webhook',
			},
		],
		properties: triggerProperties(
			"Storefront has no API to register webhooks: paste the <b>Production URL</b> into its dashboard's webhook " +
				'settings, or the <b>Test URL</b> while you listen for a test event.',
			'The event types that start the workflow. Other verified events are acknowledged and ignored.',
			[
				{
					displayName: 'Catch Up After Downtime',
					name: 'catchUp',
					type: 'boolean',
					default: true,
					description:
						'Whether to run, once, the changes whose deliveries n8n missed while stopped or starting: ' +
						'read from the order and product lists at activation and start',
					displayOptions: { hide: { dropDuplicates: [false] } },
				},
				{
					displayName: 'Check for Missed Events Every (Minutes)',
					name: 'missedEventsCheckMinutes',
					type: 'number',
					typeOptions: { minValue: 0, maxValue: 60, numberPrecision: 0 },
					default: DEFAULT_CHECK_MINUTES,
					description:
						'How often, while the workflow is active, to look for changes whose event never arrived ' +
						'and run them (0: never)',
					displayOptions: { hide: { dropDuplicates: [false], catchUp: [false] } },
				},
				{
					displayName: 'Drop Duplicate Events',
					name: 'dropDuplicates',
					type: 'boolean',
					default: true,
					description:
						'Whether to acknowledge an event the shop sends again without running the workflow a second time, ' +
						'also after n8n restarts and when n8n runs on several servers',
				},
				{
					displayName: 'Include Headers',
					name: 'includeHeaders',
					type: 'boolean',
					default: true,
					description:
						'Whether to add the request headers to each item under "headers" (without the signature, cookie and ' +
						'authorization headers)',
				},
				{
					displayName: 'Leave Out Superseded Changes',
					name: 'leaveOutSuperseded',
					type: 'boolean',
					default: false,
					description:
						'Whether to drop a status change that arrives late, when its order has another status by now. Off: ' +
						"it runs, marked as superseded with the order's current status; a late new order always runs.",
					displayOptions: { hide: { dropDuplicates: [false], catchUp: [false] } },
				},
				{
					displayName: 'Reject Events Older Than (Minutes)',
					name: 'rejectOlderThanMinutes',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: 15,
					description:
						'Turn away events created longer ago than this, so that someone who captured an event cannot send ' +
						'it again later. Careful: events the shop sends again after n8n was down are turned away too.',
				},
				{
					displayName: 'Remember Events For (Hours)',
					name: 'rememberHours',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 720, numberPrecision: 0 },
					default: DEFAULT_REMEMBER_HOURS,
					description:
						"How long an event that ran is remembered, so that the service's late retries of it are dropped. At " +
						'least as long as the service retries a delivery.',
					displayOptions: { hide: { dropDuplicates: [false] } },
				},
			],
			ALL_EVENTS,
		),
	};

	webhookMethods = webhookMethods;

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receive(this);
	}

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await startReading(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const options = this.getNodeParameter('options', 0, {}) as Options;
		return [await markSuperseded(this, await claimItems(this, options), options)];
	}
}

import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class StorefrontApi implements ICredentialType {
	name = 'storefrontApi';

	displayName = 'Storefront API';

	icon: Icon = { light: 'file:storefront.svg', dark: 'file:storefront.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-storefront/n8n-nodes-storefront#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com/v1',
			description:
				'The address of the Storefront API, including its version at the end, for example ' +
				'https://api.example.com/v1',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The API key shown in the Storefront dashboard',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Only needed by the Storefront Trigger: the signing secret shown next to the webhook URL in the ' +
				'Storefront dashboard. While it is empty, the trigger turns every event away.',
		},
		{
			displayName: 'Previous Webhook Secret',
			name: 'previousWebhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Only while rotating the webhook secret: the old secret. Deliveries signed with either secret are accepted ' +
				'until this is cleared. Leave empty otherwise.',
		},
	];

	// A function, not n8n's generic `={{…}}` block: the trigger's catch-up sends requests outside the node's own calls,
	// where n8n lends no expression engine (docs/maintainers.md, "Expressions only during the node's own calls").
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.apiKey ?? '')}`,
			},
		};
	}

	// The cheapest authenticated read. The rules say what to fix for a bad key (401) or Base URL (404), where n8n
	// would say only "Unauthorized" or "Not Found"; an unreachable host keeps n8n's own message.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/products',
			qs: { limit: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'Storefront refused the API key (401 Unauthorized): check the API Key, or create a new one in the ' +
						'Storefront dashboard',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No Storefront API at this Base URL (404 Not Found): use the API base including its version, e.g. ' +
						'https://api.example.com/v1',
				},
			},
		],
	};
}

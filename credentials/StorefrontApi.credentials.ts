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

	// A function, not n8n's generic block: n8n resolves a generic block's `={{…}}` with the workflow's expression engine,
	// which n8n 2.x only lends inside a node's own call (execute(), poll(), trigger() until it returns). The Storefront
	// Trigger's reconciliation sends requests later, on n8n's schedule (docs/trigger.md, Check for Missed Events).
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

	// The cheapest authenticated read: one product. A bad key answers 401, a wrong base URL 404 or no answer. The
	// rules give the two usual mistakes a message saying what to fix (n8n would show only "Unauthorized" or
	// "Not Found"); an unreachable host keeps n8n's own message (ECONNREFUSED, ENOTFOUND, …).
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

// Storefront has no webhook-registration API (the URL is pasted into its dashboard), so n8n's webhook lifecycle only
// checks for a webhook secret: the trigger fails closed.
import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { COPY_SECRET } from './refusals';

async function assertSecretConfigured(context: IHookFunctions): Promise<void> {
	const credentials = await context.getCredentials('storefrontApi');
	if (typeof credentials.webhookSecret !== 'string' || credentials.webhookSecret === '') {
		throw new NodeOperationError(
			context.getNode(),
			'The Storefront credentials have no Webhook Secret, so no delivery could be verified',
			{ description: `${COPY_SECRET}. The trigger never accepts unsigned deliveries.` },
		);
	}
}

export const webhookMethods = {
	default: {
		// n8n asks at every activation, the test URL's too, and creates only what does not exist (its webhook service's
		// createWebhookIfNotExists, n8n 1.x and 2.x): with a secret there is nothing to create.
		async checkExists(this: IHookFunctions): Promise<boolean> {
			await assertSecretConfigured(this);
			return true;
		},
		create: async () => true,
		// Accepted and claimed ids stay: re-saving an active workflow re-activates it, and redeliveries must be known.
		delete: async () => true,
	},
};

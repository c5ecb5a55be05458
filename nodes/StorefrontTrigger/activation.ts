// Storefront has no webhook-registration API: the URL is pasted into its dashboard by hand (the node's notice). So
// n8n's webhook lifecycle only checks what activation needs (a webhook secret: the trigger fails closed) and keeps a
// note of the URL it was activated for; nothing is created or deleted on the service.
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
		async checkExists(this: IHookFunctions): Promise<boolean> {
			await assertSecretConfigured(this);
			const staticData = this.getWorkflowStaticData('node');
			return staticData.activatedUrl === this.getNodeWebhookUrl('default');
		},
		async create(this: IHookFunctions): Promise<boolean> {
			await assertSecretConfigured(this);
			const staticData = this.getWorkflowStaticData('node');
			staticData.activatedUrl = this.getNodeWebhookUrl('default');
			return true;
		},
		async delete(this: IHookFunctions): Promise<boolean> {
			// The accepted and claimed event ids stay (in memory and in n8n's database): re-saving an active
			// workflow deactivates and re-activates it, and a redelivery arriving across that must be recognised.
			const staticData = this.getWorkflowStaticData('node');
			delete staticData.activatedUrl;
			return true;
		},
	},
};

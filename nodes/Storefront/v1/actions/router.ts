import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ClientSettings } from '../transport';
import { StorefrontClient } from '../transport';
import * as analytics from './analytics';
import type { OperationExecute } from './common';
import * as customer from './customer';
import * as order from './order';
import * as product from './product';
import * as store from './store';

const resources: Record<string, Record<string, { execute?: OperationExecute } | unknown>> = {
	analytics,
	customer,
	order,
	product,
	store,
};

function settingsFrom(options: IDataObject): Partial<ClientSettings> {
	const settings: Partial<ClientSettings> = {};
	if (typeof options.maxRequestsPerMinute === 'number') settings.maxRequestsPerMinute = Math.max(0, options.maxRequestsPerMinute);
	if (typeof options.maxRetries === 'number') settings.maxRetries = Math.max(0, Math.floor(options.maxRetries));
	if (typeof options.retryDelay === 'number') settings.retryDelayMs = Math.max(0, options.retryDelay);
	return settings;
}

/**
 * Whether a failed call goes back to the AI model as the tool's result, `[{"error": "…"}]`, instead of failing the
 * node. n8n 2.x does this itself for tool nodes, but n8n 1.x stops the whole workflow on the first refused call
 * (a 409 for a move the model should not have tried), and the agent never hears why. From version 1.1 the tool
 * variant answers the model on every n8n line, unless the user chose "Stop Workflow" in the node's settings.
 */
function answersModelWithError(ctx: IExecuteFunctions): boolean {
	const node = ctx.getNode();
	return node.type.endsWith('Tool') && node.typeVersion >= 1.1 && node.onError !== 'stopWorkflow';
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = (resources[resource]?.[operation] as { execute?: OperationExecute } | undefined)?.execute;
	if (!handler) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not known for resource "${resource}"`);
	}
	// One client per run: credentials are read once and the pace cap spans every item.
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const client = await StorefrontClient.create(this, settingsFrom(options));

	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await handler.call(this, client, itemIndex);
			if (Array.isArray(result)) {
				for (const json of result) returnData.push({ json, pairedItem: { item: itemIndex } });
			} else {
				returnData.push({ json: result, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			if (answersModelWithError(this)) {
				// Details only where they add to the message (n8n's own tool wrapper does the same): a model pays per token.
				const { message, description } = error as { message: string; description?: string };
				const details = description && !message.includes(description) ? { details: description } : {};
				returnData.push({ json: { error: message, ...details }, pairedItem: { item: itemIndex } });
				continue;
			}
			if (this.continueOnFail()) {
				const { description } = error as { description?: string };
				returnData.push({
					json: description ? { error: (error as Error).message, details: description } : { error: (error as Error).message },
					pairedItem: { item: itemIndex },
				});
				continue;
			}
			// Both constructors hand back an error of their own class unchanged (item index included).
			if (error instanceof NodeApiError) throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		}
	}
	return [returnData];
}

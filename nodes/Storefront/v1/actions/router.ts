import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { duration, StorefrontClient } from '../../../shared/transport';
import * as analytics from './analytics';
import type { OperationExecute } from './common';
import { addHints } from './common';
import * as customer from './customer';
import * as order from './order';
import * as product from './product';
import * as store from './store';

/** Each resource's module of operations (its index.ts). */
type OperationModules = Record<string, Record<string, unknown>>;
const resources: OperationModules = { analytics, customer, order, product, store };

/** Runs the chosen operation on the run's items; `continueOnFail` is `this.continueOnFail()`, read in execute(). */
export async function router(
	this: IExecuteFunctions,
	continueOnFail: boolean,
): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const op = resources[resource]?.[operation] as { execute?: OperationExecute } | undefined;
	if (!op?.execute) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" is not known for resource "${resource}"`,
		);
	}
	// One client per run: credentials are read once and the pace cap spans every item.
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const client = await StorefrontClient.create(this, options);
	const returnData = await op.execute.call(this, this.getInputData(), { client, continueOnFail });
	// A run held back by the plan's limit says so, not a silent pause.
	if (client.waitedForLimitMs >= 1000)
		addHints(this, [`Waited ${duration(client.waitedForLimitMs)} for Storefront's rate limit`]);
	return [returnData];
}

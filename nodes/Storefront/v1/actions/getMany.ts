// Get Many, the same for products, orders and customers (Simplify on the tool variant).
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { recordId } from '../../../shared/transport';
import type { OperationExecute } from './common';
import { itemError, toolDescription } from './common';
import { perItem } from './eachItem';

/** A Get Many operation's tool description and its Simplify projection (the fields a model needs). */
export interface ToolUse {
	description: string;
	/** The simplified record's fields, as the Simplify option's description names them. */
	fields: string;
	simplify: (record: IDataObject) => IDataObject;
}

/** The named fields of a record that it has, in this order. */
export function pick(record: IDataObject, keys: string[]): IDataObject {
	const picked: IDataObject = {};
	for (const key of keys) if (record[key] !== undefined) picked[key] = record[key];
	return picked;
}

/** A tool's simplified record: its id (transport/identity.ts) as `id`, then the named fields. */
export function pickWithId(record: IDataObject, resource: string, keys: string[]): IDataObject {
	const id = recordId(record, resource);
	return { ...(id === undefined ? {} : { id }), ...pick(record, keys) };
}

/** A Get Many's parameters; Simplify is on by default: a model's context is small and paid per token. */
export function getManyProperties(
	noun: string,
	filters: INodeProperties[],
	tool: ToolUse,
): INodeProperties[] {
	return [
		toolDescription(tool.description),
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			hint: `On: every matching ${noun}, however many there are`,
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			hint: 'The node stops reading once it has this many',
			displayOptions: { show: { returnAll: [false] } },
		},
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			description: `Narrow the ${noun}s returned; filters apply on every page`,
			options: filters,
		},
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description:
				`Whether to return only the fields of each ${noun} an AI model needs (${tool.fields}) ` +
				'instead of the full record',
			displayOptions: { show: { '@tool': [true] } },
		},
	];
}

/** Get Many over `/<resourceKey>`, filters as query parameters, each record projected if Simplify is on. */
export function getManyExecute(resourceKey: string, tool: ToolUse): OperationExecute {
	return perItem(async function (client, itemIndex) {
		const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
		const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
		const limit = returnAll ? undefined : this.getNodeParameter('limit', itemIndex, 50);
		if (
			limit !== undefined &&
			(typeof limit !== 'number' || !Number.isFinite(limit) || limit < 1)
		) {
			const message = `The parameter "Limit" (limit) must be 1 or more, got ${JSON.stringify(limit)}`;
			throw itemError(this, itemIndex, message);
		}
		// Empty filters are dropped: the node never sends an empty filter (contract row 7).
		const qs: IDataObject = {};
		for (const [key, value] of Object.entries(filters)) {
			if (value !== '' && value !== undefined && value !== null)
				qs[key] = typeof value === 'string' ? value.trim() : value;
		}
		const records = await client.getMany(resourceKey, qs, limit, { itemIndex });
		// Off where Simplify is hidden: customers and orders outside a tool.
		const simplify = this.getNodeParameter('simplify', itemIndex, false) as boolean;
		return simplify ? records.map((record) => tool.simplify(record)) : records;
	});
}

// Parameters and input checks shared by several operations. Every check runs before any request and names
// the parameter, so a bad value never costs an API call.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { StorefrontClient } from '../../../shared/transport';

/** Max Concurrent Requests' default, a bound on sockets and memory (docs/storefront-node.md, Concurrent items). */
export const DEFAULT_CONCURRENCY = 50;

/** What the router hands every operation with its items: the run's one client, and "On Error: Continue". */
export interface RunSettings {
	client: StorefrontClient;
	continueOnFail: boolean;
}

/** What every operation file exports as `execute`: its output items, each paired with its input item. */
export type OperationExecute = (
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	run: RunSettings,
) => Promise<INodeExecutionData[]>;

/** A resource's operations' properties, each shown for its operation only: the resource's index names them. */
export function operationProperties(
	resource: string,
	operations: Record<string, { properties: INodeProperties[] }>,
): INodeProperties[] {
	return Object.entries(operations).flatMap(([operation, { properties }]) =>
		updateDisplayOptions({ show: { resource: [resource], operation: [operation] } }, properties),
	);
}

/** What the AI model is told about the tool variant (`@tool`), in place of what n8n's convertNodeToAiTool writes. */
export function toolDescription(text: string): INodeProperties {
	return {
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 4 },
		default: text,
		description:
			'What the AI model is told about this tool: what it does, what it needs and what it returns. The default is ' +
			'written for this operation; edit it to fit your agent.',
		displayOptions: { show: { '@tool': [true] } },
	};
}

/** A warning on the tool variant of an operation that changes the store (docs/ai-agent.md, "Write operations"). */
export function writeToolNotice(what: string): INodeProperties {
	return {
		displayName:
			`This tool lets the AI model ${what}. Connect it only to an agent that needs it; ` +
			"to approve each call, put n8n's human review before it (n8n 2.x).",
		name: 'writeToolNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { '@tool': [true] } },
	};
}

/** A record picked from a list (`searchListMethod`) or entered by its ID. */
function locator(
	noun: string,
	example: string,
	searchListMethod: string,
	pick: string,
): INodeProperties {
	return {
		displayName: noun,
		name: `${noun.toLowerCase()}Id`,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: `The ${noun.toLowerCase()} to act on: pick it from the list (${pick}) or enter its ID`,
		hint: `${noun} IDs look like ${example}`,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select ${noun === 'Order' ? 'an' : 'a'} ${noun.toLowerCase()}...`,
				typeOptions: { searchListMethod, searchable: true },
			},
			{ displayName: 'By ID', name: 'id', type: 'string', placeholder: `e.g. ${example}` },
		],
	};
}

export const productLocator = locator(
	'Product',
	'prod_00001',
	'searchProducts',
	'searchable by name, SKU or description',
);

export const orderLocator = locator(
	'Order',
	'ord_00001',
	'searchOrders',
	'type a status such as "pending" to list only those orders, or part of an ID',
);

/** An error as the node throws it: one of n8n's node errors as it is, anything else as the item's operation error. */
export function asNodeError(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/** An item's failure, with its message as written. */
export function itemError(
	context: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description?: string,
): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
	// n8n swaps a message that mentions a network code (ECONNRESET) for a generic sentence.
	error.message = message;
	return error;
}

/** Hints in the output panel, where the n8n line has addExecutionHints (docs/maintainers.md, Execution hints). */
export function addHints(context: IExecuteFunctions, messages: string[]): void {
	if (messages.length === 0 || typeof context.addExecutionHints !== 'function') return;
	context.addExecutionHints(
		...messages.map((message) => ({
			message,
			type: 'info' as const,
			location: 'outputPane' as const,
		})),
	);
}

/** The id in a resource locator (or a text parameter), trimmed; not text nor a number: `undefined`. */
export function locatorValue(context: IExecuteFunctions, name: string, itemIndex: number) {
	const value = context.getNodeParameter(name, itemIndex, '', { extractValue: true }) as unknown;
	return typeof value === 'string' || typeof value === 'number' ? String(value).trim() : undefined;
}

/** The id in a resource locator, checked non-empty. */
export function locatorId(
	context: IExecuteFunctions,
	name: string,
	label: string,
	itemIndex: number,
): string {
	const id = locatorValue(context, name, itemIndex);
	if (id) return id;
	throw itemError(
		context,
		itemIndex,
		`The parameter "${label}" (${name}) is empty`,
		`Select a ${label.toLowerCase()} or enter its ID.`,
	);
}

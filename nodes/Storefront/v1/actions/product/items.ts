// What one Create or Update item asks for: its match value and the fields to set, from the mapped fields (Map Each
// Column Below) or the input item's own keys (Map Automatically), read by the product fields' one reader (./fields),
// before any request of the item.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { inputFields, type InputFields } from './editorFields';
import {
	EXTRA_FIELDS_LABEL,
	fieldOf,
	isEmpty,
	MATCH_NOUNS,
	readExtraFields,
	readFields,
	type MatchField,
} from './fields';

/** The match value and the fields to set (mapped ones over Extra Fields). */
export interface Wanted {
	match: string;
	fields: IDataObject;
}

/** An item's failure, with its message as written. */
export function itemError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description?: string,
): NodeOperationError {
	const error = new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
	// n8n swaps a message that mentions a network code (ECONNRESET) for a generic sentence.
	error.message = message;
	return error;
}

export class ItemReader {
	/** Items whose match value came as a number (a sheet's cell): read as text, and said in the hints. */
	readonly numeric = new Set<number>();

	private readonly autoMap: boolean;

	private readonly inputs: INodeExecutionData[];

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly field: MatchField,
	) {
		this.autoMap =
			ctx.getNodeParameter('columns.mappingMode', 0, 'defineBelow') === 'autoMapInputData';
		this.inputs = ctx.getInputData();
	}

	/** The item's fields; the match value must be set. */
	wanted(itemIndex: number): Wanted {
		const source = this.source(itemIndex);
		const extra = this.ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
		const param = `"${EXTRA_FIELDS_LABEL}" (additionalFields.extraFields)`;
		const fields = readExtraFields(extra.extraFields, (reason) => {
			throw this.fail(
				itemIndex,
				`The parameter ${param} ${reason}`,
				'Enter a JSON object such as {"weight_grams": 250}.',
			);
		});
		const read = readFields(source.values, (key, reason) => {
			throw this.fail(itemIndex, `${this.where(key, source)} ${reason}`);
		});
		return { match: this.matchOf(itemIndex, source), fields: { ...fields, ...read } };
	}

	/** The value the item's product is found by. */
	matchOf(itemIndex: number, source = this.source(itemIndex)): string {
		const value = source.values[this.field];
		if (isEmpty(value)) {
			const where = this.where(this.field, source);
			throw this.fail(
				itemIndex,
				this.autoMap ? `${where} is empty or missing` : `${where} is empty`,
				`Create or Update finds the product by ${MATCH_NOUNS[this.field]} (Fields to Match On), ` +
					'so every item needs one.',
			);
		}
		if (typeof value === 'number') this.numeric.add(itemIndex);
		try {
			return fieldOf(this.field)!.read(value) as string;
		} catch (error) {
			throw this.fail(itemIndex, `${this.where(this.field, source)} ${(error as Error).message}`);
		}
	}

	/** Where an item's values are: the input item's product fields (Map Automatically) or the mapped fields. */
	private source(itemIndex: number): InputFields {
		if (this.autoMap) return inputFields(this.inputs[itemIndex].json);
		const mapped = this.ctx.getNodeParameter(
			'columns.value',
			itemIndex,
			{},
			{ skipValidation: true },
		);
		return { values: (mapped ?? {}) as IDataObject, keys: {} };
	}

	/** A field as the user set it: the input's key (Map Automatically), or the field in Fields. */
	private where(key: string, source: InputFields): string {
		const label = fieldOf(key)?.label ?? key;
		return this.autoMap
			? `The input field "${source.keys[key] ?? label}"`
			: `The field "${label}" (Fields)`;
	}

	private fail(itemIndex: number, message: string, description?: string): NodeOperationError {
		return itemError(this.ctx, itemIndex, message, description);
	}
}

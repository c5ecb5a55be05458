import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { realClock } from '../../../../shared/clock';
import { addHints, itemError, toolDescription, writeToolNotice, type RunSettings } from '../common';
import { concurrencyOf, eachItem, failureStops, turnOf, type Turn } from '../eachItem';
import { createClaims, TURN_WAIT_MS } from './createClaims';
import { extraFieldsOption, inputFields, type InputFields } from './editorFields';
import { fieldOf, isEmpty, MATCH_NOUNS, productBody, type MatchField } from './fields';
import { findProducts, type FindBy, type Found } from './finder';
import {
	badRowsText,
	countsOf,
	nothingWritten,
	report,
	summaryOf,
	type BadRow,
	type Done,
} from './report';
import { plan, write, type Row } from './upsertWrite';

export const properties: INodeProperties[] = [
	writeToolNotice('add products to your store and change them'),
	toolDescription(
		'Create a product in the Storefront shop, or update the one that has the same SKU. Needs the SKU and the ' +
			'fields to set: name, price (0 or more), stock (whole number), status (active, draft or archived), ' +
			'category, description, currency, images; a product that does not exist yet needs a name and a price. ' +
			'Only fields whose value differs are written, so calling it again with the same values changes nothing. ' +
			'Returns the product as it now is in the shop, whether it was created, updated or left as it was: its id ' +
			'(like prod_00001), name, sku, category, price, currency, stock, status, images and timestamps.',
	),
	{
		displayName: 'Fields',
		name: 'columns',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		description:
			'The product fields to set; empty ones are left as they are. Fields to Match On finds the product to update.',
		typeOptions: {
			resourceMapper: {
				resourceMapperMethod: 'getProductFields',
				mode: 'upsert',
				fieldWords: { singular: 'field', plural: 'fields' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: true,
				matchingFieldsLabels: {
					title: 'Fields to Match On',
					description:
						'The field that finds the product to update: SKU, Name or Product ID. Where no product has the ' +
						'value, one is created (except when matching on Product ID).',
					// Shown under the field; n8n's own default there ("Usually an ID") is wrong for a match on SKU.
					hint: 'The product with this value is updated where a field differs; with none, one is created',
				},
			},
		},
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'products',
		description: 'What the node outputs: the products, or one item that reports the whole file',
		options: [
			{
				name: "Each Row's Product",
				value: 'products',
				description: 'One item per row: the product as the shop now has it',
			},
			{
				name: 'A Summary of the Run',
				value: 'summary',
				description:
					"One item with the counts, each failed row and why, and a message for a form's last page. " +
					'Bad rows are listed there instead of failing the node.',
			},
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [extraFieldsOption('upsert')],
	},
	{
		displayName: 'Find Products By',
		name: 'findProductsBy',
		type: 'options',
		default: 'auto',
		description:
			'How the node finds the products its items name. Only the number of requests differs.',
		options: [
			{
				name: 'Automatic (Fewest Requests)',
				value: 'auto',
				description:
					'Looks each product up on its own when there are few items for the size of the catalog, and ' +
					'reads the whole catalog once when there are many',
			},
			{
				name: 'Looking Each Up',
				value: 'lookup',
				description:
					"Searches the shop for each value. Reads the whole catalog instead where the shop's search " +
					'does not find products by that field.',
			},
			{
				name: 'Reading the Whole Catalog',
				value: 'catalog',
				description: 'Reads every product once per run, however few the items',
			},
		],
	},
];

/**
 * Each account's turn of Create or Update runs in this n8n process (module scope, like the governor). Runs take turns
 * per account, so that two never both create a SKU neither saw (docs: "Two runs at once"). A run waits as long as a
 * create's claim is kept at most: a run that never ends then holds the later ones no longer, and their creates are
 * still claimed (./createClaims), so none is made twice.
 */
const writers = new Map<string, Turn>();
const TURN_BOUND = { clock: realClock, maxWaitMs: TURN_WAIT_MS };

function matchFieldOf(context: IExecuteFunctions): MatchField {
	const matching = context.getNodeParameter('columns.matchingColumns', 0, []) as unknown;
	const field = Array.isArray(matching) && matching.length ? String(matching[0]) : 'sku';
	if (Object.keys(MATCH_NOUNS).includes(field)) return field as MatchField;
	throw new NodeOperationError(
		context.getNode(),
		'The parameter "Fields to Match On" (columns.matchingColumns) ' +
			`must be SKU, Name or Product ID, got "${field}"`,
	);
}

/** An item's row, or why it cannot be read; its match value even so, so that items of one value keep their order. */
interface Read {
	row?: Row;
	match?: string;
	numeric?: boolean;
	error?: unknown;
	/** Every cell empty, as a sheet leaves rows below its data: skipped, not failed. */
	blank?: true;
}

/** Reads an item's row before any request, from Fields (Map Each Column Below) or the item (Map Automatically). */
function readRow(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	field: MatchField,
	itemIndex: number,
): Read {
	const autoMap =
		context.getNodeParameter('columns.mappingMode', 0, 'defineBelow') === 'autoMapInputData';
	let source: InputFields;
	try {
		const mapped = () =>
			context.getNodeParameter('columns.value', itemIndex, {}, { skipValidation: true });
		source = autoMap
			? inputFields(item.json)
			: { values: (mapped() ?? {}) as IDataObject, keys: {} };
	} catch (error) {
		return { error };
	}
	// Every cell of the row, or every field set below: all empty is a blank row.
	if (Object.values(autoMap ? item.json : source.values).every(isEmpty)) return { blank: true };
	// A field as the user set it: the input's key (Map Automatically), or the field in Fields.
	const where = (key: string) => {
		const label = fieldOf(key)?.label ?? key;
		return autoMap
			? `The input field "${source.keys[key] ?? label}"`
			: `The field "${label}" (Fields)`;
	};
	const value = source.values[field];
	const numeric = typeof value === 'number';
	let match: string | undefined;
	let matchError: unknown;
	if (isEmpty(value)) {
		// A file separated by ";" read as comma-separated: each row is one column named by the whole header line.
		const [only, ...others] = Object.keys(item.json);
		const oneColumn =
			autoMap && others.length === 0 && only?.includes(';')
				? `: each row is one column, "${only}", as when a file separated by ";" is read with the delimiter ","`
				: '';
		matchError = itemError(
			context,
			itemIndex,
			autoMap ? `${where(field)} is empty or missing${oneColumn}` : `${where(field)} is empty`,
			`Create or Update finds the product by ${MATCH_NOUNS[field]} (Fields to Match On), so every item needs one.`,
		);
	} else {
		try {
			match = fieldOf(field)!.read(value) as string;
		} catch (error) {
			matchError = itemError(context, itemIndex, `${where(field)} ${(error as Error).message}`);
		}
	}
	try {
		const { extraFields } = context.getNodeParameter(
			'additionalFields',
			itemIndex,
			{},
		) as IDataObject;
		const values = { ...source.values, extraFields };
		const fields = productBody(context, itemIndex, values, 'additionalFields', where);
		if (match === undefined) return { numeric, error: matchError };
		return { row: { match, fields, numeric }, match, numeric };
	} catch (error) {
		return { match, numeric, error };
	}
}

/** The rows that cannot be written, with why, as a failure or a summary names them. */
const badRowsOf = (rows: Read[]): BadRow[] =>
	rows.flatMap(({ error }, itemIndex) =>
		error === undefined ? [] : [{ row: itemIndex + 1, error: (error as Error).message }],
	);

/**
 * One run of Create or Update. Each item's output is its product, or with Output: Summary one item says what the run
 * did; the hints say it too (./report).
 */
export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	run: RunSettings,
): Promise<INodeExecutionData[]> {
	const field = matchFieldOf(this);
	const summary = this.getNodeParameter('output', 0, 'products') === 'summary';
	const pairedItem = items.map((_, item) => ({ item }));
	const { client } = run;
	const asked = Date.now();
	const release = await turnOf(writers, client.account, TURN_BOUND);
	const turnWaitedMs = Date.now() - asked;
	try {
		// 1. Every row is read before any request; blank ones are skipped.
		const rows = items.map((item, itemIndex) => readRow(this, item, field, itemIndex));
		const skipped = rows.filter((read) => read.blank).length;

		// 2. Where a failure stops the node, a bad row writes nothing, and every bad row is named at once.
		const bad = badRowsOf(rows);
		if (bad.length && failureStops(this, run)) {
			// One item's failure says it best itself.
			if (!summary && items.length === 1) throw rows[0].error;
			if (!summary) {
				throw new NodeOperationError(this.getNode(), nothingWritten(bad), {
					itemIndex: bad[0].row - 1,
					description:
						`${badRowsText(bad)}\n` +
						'Fix them and run again, or set On Error to Continue to write the other rows.',
				});
			}
			const counts = { created: 0, updated: 0, unchanged: 0, skipped, failed: bad.length };
			addHints(this, [nothingWritten(bad)]);
			return [{ json: summaryOf(counts, bad, true), pairedItem }];
		}

		// 3. Products are found once, for the distinct match values, where an item can be written at all.
		const firstRow = rows.findIndex((read) => read.row !== undefined);
		let found: Found | undefined;
		let notFound: unknown;
		if (firstRow >= 0) {
			const values = [...new Set(rows.flatMap((read) => read.match ?? []))];
			const findBy = this.getNodeParameter('findProductsBy', 0, 'auto') as FindBy;
			const atOnce = concurrencyOf(this);
			const target = { itemIndex: firstRow };
			try {
				found = await findProducts(client, field, { values, findBy, atOnce }, target);
			} catch (error) {
				notFound = error;
			}
		}

		// 4. Items of one match value are written in input order, each planned after the one before wrote.
		const shop = found && {
			context: this,
			client,
			catalog: found.catalog,
			claims: createClaims(this, client.account, field),
		};
		const done: Array<Done | undefined> = [];
		const output = await eachItem.call(
			this,
			items,
			run,
			async (itemIndex) => {
				const { row, error, blank } = rows[itemIndex];
				if (blank) return [];
				if (!row) throw error;
				if (!shop) throw notFound;
				done[itemIndex] = await write(shop, plan(shop.catalog, row), row, itemIndex);
				return done[itemIndex].product;
			},
			(itemIndex) => rows[itemIndex].match,
		);

		// 5. What the run did.
		const counts = countsOf(done, items.length, skipped);
		const numeric = rows.filter((read) => read.numeric).length;
		addHints(this, report({ field, counts, done, found, numeric, turnWaitedMs }));
		if (!summary) return output;
		const failed = output.flatMap(({ json, pairedItem: paired }) =>
			json.error === undefined
				? []
				: [{ row: (paired as IPairedItemData).item + 1, error: String(json.error) }],
		);
		return [{ json: summaryOf(counts, failed, false), pairedItem }];
	} finally {
		release();
	}
}

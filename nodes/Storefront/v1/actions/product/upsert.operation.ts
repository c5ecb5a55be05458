import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep, updateDisplayOptions } from 'n8n-workflow';

import type { StorefrontClient } from '../../../../shared/transport';
import { duration, gotNoAnswer, recordId } from '../../../../shared/transport';
import {
	asNodeError,
	DEFAULT_CONCURRENCY,
	productBody,
	toolDescription,
	writeToolNotice,
} from '../common';
import type { OpenSession, RunSession } from '../session';
import { Catalog, writerTurn } from './catalog';
import { CLAIM_MINUTES, CreateClaims } from './createClaims';
import {
	changedFields,
	fieldOf,
	inputFields,
	isEmpty,
	MATCH_FIELDS,
	PRODUCT_FIELDS,
	unshown,
	type FieldValue,
	type MatchField,
} from './fields';
import { Finder, type FindBy, type Found } from './finder';

const properties: INodeProperties[] = [
	writeToolNotice('add products to your store and change them'),
	toolDescription(
		'Create a product in the Storefront shop, or update the one that has the same SKU. Needs the SKU and the fields to set: name, price (0 or more), stock (whole number), status (active, draft or archived), category, description, currency, images; a product that does not exist yet needs a name and a price. Only fields whose value differs are written, so calling it again with the same values changes nothing. Returns {action: created, updated or unchanged; changed: the fields written; product: the product with its id, like prod_00001}.',
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
						'The field that finds the product to update: sku, name or id. No product with the value: one is created (not for id).',
					// Shown under the field; n8n's own default there ("Usually an ID") is wrong for a match on sku.
					hint: 'The product with this value is updated where a field differs; with none, one is created (not when matching on id)',
				},
			},
		},
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Extra Fields (JSON)',
				name: 'extraFields',
				type: 'json',
				default: '{}',
				description:
					'A JSON object of further product fields the node does not list, sent unchanged and compared like the others; mapped fields take precedence',
				hint: 'Must be a JSON object, e.g. {"weight_grams": 250}',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['product'], operation: ['upsert'] } },
	properties,
);

/** What one item asks for: the match value and the fields to set (mapped ones over Extra Fields). */
interface Wanted {
	match: string;
	fields: IDataObject;
}

type Action = 'created' | 'updated' | 'unchanged';

/** How long a run waits before each look for a product another run claimed to create (a create takes a second). */
const CREATED_ELSEWHERE_WAITS_MS = [500, 1_500, 3_000];

/**
 * One run of Create or Update: the run's products found once (./finder: looked up, or the catalog read), then each
 * item compared with its product and written only if it differs.
 */
class Sync implements RunSession {
	private readonly counts = { created: 0, updated: 0, unchanged: 0, failed: 0 };

	private finding: Promise<Found> | undefined;

	private found: Found | undefined;

	/** Items whose match value came as a number (a sheet's cell): read as text, and said in the hints. */
	private readonly numeric = new Set<number>();

	private readonly claims: CreateClaims;

	private readonly autoMap: boolean;

	private readonly inputs;

	private release = () => {};

	private turnWaitedMs = 0;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly client: StorefrontClient,
		private readonly field: MatchField,
	) {
		this.autoMap =
			ctx.getNodeParameter('columns.mappingMode', 0, 'defineBelow') === 'autoMapInputData';
		this.inputs = ctx.getInputData();
		this.claims = new CreateClaims(ctx, client.account, field);
	}

	/** Waits until the account's earlier Create or Update run in this process has finished (catalog.ts, writerTurn). */
	async begin(): Promise<void> {
		const asked = Date.now();
		this.release = await writerTurn(this.client.account);
		this.turnWaitedMs = Date.now() - asked;
	}

	async execute(itemIndex: number): Promise<IDataObject> {
		let outcome: Action | 'failed' = 'failed';
		try {
			const result = await this.write(itemIndex);
			outcome = result.action as Action;
			return result;
		} finally {
			this.counts[outcome]++;
		}
	}

	recordKey(itemIndex: number): string | undefined {
		try {
			return this.matchOf(this.source(itemIndex), itemIndex);
		} catch {
			return undefined;
		}
	}

	hints(): string[] {
		const { created, updated, unchanged, failed } = this.counts;
		const hints = [
			`Created ${created}, updated ${updated}, unchanged ${unchanged}${failed ? `, failed ${failed}` : ''}`,
		];
		if (this.found) hints.push(this.foundHint(this.found));
		if (this.numeric.size) {
			hints.push(
				`${this.numeric.size} ${this.field} value${this.numeric.size === 1 ? '' : 's'} came as a number and ${this.numeric.size === 1 ? 'was' : 'were'} read as text; a number loses leading zeros (000123 becomes 123): read that column as text`,
			);
		}
		if (this.turnWaitedMs >= 1000)
			hints.push(
				`Waited ${duration(this.turnWaitedMs)} for another Create or Update run on this API key to finish`,
			);
		return hints;
	}

	/** Which way the products were found, and what it cost. */
	private foundHint({ how, calls, pages, fallback }: Found): string {
		const requests = `${calls} request${calls === 1 ? '' : 's'}`;
		const catalog =
			pages === undefined ? 'the catalog' : `the catalog (${pages} page${pages === 1 ? '' : 's'})`;
		if (how === 'lookup') {
			return `Found the products by looking up each ${this.field} (${requests}) instead of reading ${catalog}`;
		}
		return `Found the products by reading ${catalog}: ${requests}${fallback ? `, as ${fallback}` : ''}`;
	}

	close(): void {
		this.release();
	}

	private async write(itemIndex: number): Promise<IDataObject> {
		const wanted = this.wanted(itemIndex);
		const catalog = await this.catalog(itemIndex);
		const { match } = wanted;
		if (catalog.isUnsettled(match)) {
			throw this.fail(
				itemIndex,
				`An earlier item's create of the product with ${this.field} "${match}" got no usable answer, and the product was not found; this item was not sent`,
				'Run the workflow again later: it then updates the product if it was created, or creates it.',
			);
		}
		const found = catalog.find(match);
		if (found.length > 1) throw this.ambiguous(match, found, itemIndex);
		if (found.length === 1) return await this.update(catalog, found[0], wanted, itemIndex);
		if (this.field === 'id') {
			throw this.fail(
				itemIndex,
				`No product has the id "${match}"`,
				'Matching on id only updates products; match on sku or name to create the missing ones.',
			);
		}
		const padded = this.numeric.has(itemIndex) ? catalog.withZeros(match) : [];
		if (padded.length) {
			const [product] = padded;
			throw this.fail(
				itemIndex,
				`The ${this.field} came as the number ${match}, and product ${recordId(product, 'product') ?? ''} has the ${this.field} "${catalog.keyOf(product)}": no product was created`,
				'A number loses leading zeros. Read that column as text (a sheet: format the column as plain text), or write the value with its zeros.',
			);
		}
		return await this.create(catalog, wanted, itemIndex);
	}

	/** The run's products, found once (./finder) by the first item that needs them. */
	private async catalog(itemIndex: number): Promise<Catalog> {
		if (!this.finding) {
			const findBy = this.ctx.getNodeParameter('options.findProductsBy', 0, 'auto') as FindBy;
			const atOnce = Number(
				this.ctx.getNodeParameter('options.maxConcurrency', 0, DEFAULT_CONCURRENCY),
			);
			const values = [
				...new Set(
					this.inputs.map((_, index) => this.recordKey(index)).filter((key) => key !== undefined),
				),
			];
			const finder = new Finder(this.client, this.field, { itemIndex });
			this.finding = finder.find(values, findBy, atOnce).then((found) => (this.found = found));
		}
		return (await this.finding).catalog;
	}

	private async update(
		catalog: Catalog,
		product: IDataObject,
		wanted: Wanted,
		itemIndex: number,
	): Promise<IDataObject> {
		const compared = changedFields(wanted.fields, product);
		if (compared.length === 0) return { action: 'unchanged', changed: compared, product };
		const changed = [...compared, ...unshown(wanted.fields, product)];
		const id = recordId(product, 'product');
		if (id === undefined)
			throw this.fail(
				itemIndex,
				`The product with ${this.field} "${wanted.match}" has no id the node can update it by`,
			);
		const body = Object.fromEntries(changed.map((key) => [key, wanted.fields[key]]));
		const target = { resourceLabel: 'Product', id, itemIndex };
		const updated = this.client.single(
			await this.client.request('PUT', ['products', id], { body }, target),
			'product',
			target,
		);
		catalog.put(updated);
		return { action: 'updated', changed, product: updated };
	}

	private async create(catalog: Catalog, wanted: Wanted, itemIndex: number): Promise<IDataObject> {
		const missing = ['name', 'price'].filter((key) => wanted.fields[key] === undefined);
		if (missing.length) {
			throw this.fail(
				itemIndex,
				`No product has the ${this.field} "${wanted.match}", and creating one needs ${missing.map((key) => `"${key}"`).join(' and ')} (Fields)`,
				'Map a name and a price, or leave out the rows of products that are not in the shop yet.',
			);
		}
		const claim = await this.claims.claim(wanted.match);
		if (claim === false) return await this.createdElsewhere(catalog, wanted, itemIndex);
		const body = wanted.fields;
		const changed = Object.keys(body);
		let answer;
		try {
			answer = await this.client.request('POST', ['products'], { body }, { itemIndex });
		} catch (error) {
			if (!gotNoAnswer(error)) {
				await this.claims.release(wanted.match, claim);
				throw asNodeError(this.ctx, error, itemIndex);
			}
			return await this.recover(catalog, wanted, changed, error as Error, itemIndex);
		}
		let product: IDataObject;
		try {
			product = this.client.single(answer, 'product', { itemIndex });
		} catch (error) {
			// A 2xx whose body holds no product: the service took the create, so it is found like a lost answer.
			return await this.recover(catalog, wanted, changed, error as Error, itemIndex);
		}
		catalog.put(product);
		return { action: 'created', changed, product };
	}

	/**
	 * Another run (on another queue worker, say) claimed the create of this value in the last minutes: its product is
	 * looked for a few times while that create may still be on its way, and compared when found; never created here.
	 */
	private async createdElsewhere(
		catalog: Catalog,
		wanted: Wanted,
		itemIndex: number,
	): Promise<IDataObject> {
		for (const waitMs of CREATED_ELSEWHERE_WAITS_MS) {
			await sleep(waitMs);
			const found = await this.search(catalog, wanted.match, itemIndex);
			if (found.length > 1) throw this.ambiguous(wanted.match, found, itemIndex);
			if (found.length === 1) return await this.update(catalog, found[0], wanted, itemIndex);
		}
		throw this.fail(
			itemIndex,
			`Another run claimed the create of the product with ${this.field} "${wanted.match}" in the last ${CLAIM_MINUTES} minutes, and it is not in the shop; it was not created here, so that it is not created twice`,
			`That run may still be waiting for the rate limit. Run the workflow again later: it then updates the product, or creates it once the claim is ${CLAIM_MINUTES} minutes old (a product deleted since, say).`,
		);
	}

	/** The products whose match value is `match`, by the product list's search; put in the run's catalog. */
	private async search(catalog: Catalog, match: string, itemIndex: number): Promise<IDataObject[]> {
		const found = await this.client.getMany(
			['products'],
			'products',
			{ search: match },
			undefined,
			{ itemIndex },
		);
		const matches = found.filter((product) => catalog.keyOf(product) === match);
		for (const product of matches) catalog.put(product);
		return matches;
	}

	/**
	 * A create whose answer was lost may have reached the service: the product is looked up by the match value, and
	 * the create is never sent again (a time-out may still be running at the service).
	 */
	private async recover(
		catalog: Catalog,
		wanted: Wanted,
		changed: string[],
		lost: Error,
		itemIndex: number,
	): Promise<IDataObject> {
		let matches: IDataObject[];
		try {
			matches = await this.search(catalog, wanted.match, itemIndex);
		} catch {
			catalog.markUnsettled(wanted.match);
			throw lost;
		}
		if (matches.length === 1) {
			const note = `The create got no usable answer (${lost.message}); the product was found by its ${this.field} and not created again.`;
			return { action: 'created', changed, product: matches[0], note };
		}
		catalog.markUnsettled(wanted.match);
		if (matches.length > 1) throw this.ambiguous(wanted.match, matches, itemIndex);
		throw this.fail(
			itemIndex,
			`The create of the product with ${this.field} "${wanted.match}" got no usable answer (${lost.message}), and no such product is there yet; it was not sent again`,
			'The service may still create it. Run the workflow again later: it then updates the product if it was created, or creates it.',
		);
	}

	/** The item's fields, read and checked before any request of the item; the match value must be set. */
	private wanted(itemIndex: number): Wanted {
		const source = this.source(itemIndex);
		const extra = this.ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
		const fields = productBody(
			this.ctx,
			{ extraFields: extra.extraFields },
			'additionalFields',
			itemIndex,
		);
		for (const name of Object.keys(PRODUCT_FIELDS)) {
			if (!isEmpty(source[name])) fields[name] = this.read(name, source[name], itemIndex);
		}
		return { match: this.matchOf(source, itemIndex), fields };
	}

	/** Where an item's values are: the input item's product fields (Map Automatically) or the mapped fields. */
	private source(itemIndex: number): IDataObject {
		if (this.autoMap) return inputFields(this.inputs[itemIndex].json);
		return (this.ctx.getNodeParameter('columns.value', itemIndex, {}, { skipValidation: true }) ??
			{}) as IDataObject;
	}

	private matchOf(source: IDataObject, itemIndex: number): string {
		const value = source[this.field];
		if (isEmpty(value)) {
			throw this.fail(
				itemIndex,
				this.autoMap
					? `The input field "${this.field}" is empty or missing`
					: `The field "${this.field}" (Fields) is empty`,
				`Create or Update finds the product by ${this.field} (Fields to Match On), so every item needs one.`,
			);
		}
		if (typeof value === 'number') this.numeric.add(itemIndex);
		return this.read(this.field, value, itemIndex) as string;
	}

	private read(name: string, value: unknown, itemIndex: number): FieldValue | undefined {
		try {
			return fieldOf(name)?.read(value);
		} catch (error) {
			const where = this.autoMap ? `The input field "${name}"` : `The field "${name}" (Fields)`;
			throw this.fail(itemIndex, `${where} ${(error as Error).message}`);
		}
	}

	private ambiguous(match: string, products: IDataObject[], itemIndex: number): NodeOperationError {
		const ids = products.map((product) => recordId(product, 'product') ?? '(no id)').join(', ');
		return this.fail(
			itemIndex,
			`${products.length} products have the ${this.field} "${match}" (${ids}); Create or Update changed none of them`,
			`Give each product its own ${this.field} (or delete the extra ones), or match on id.`,
		);
	}

	private fail(itemIndex: number, message: string, description?: string): NodeOperationError {
		const error = new NodeOperationError(this.ctx.getNode(), message, { itemIndex, description });
		// As written: n8n swaps a message that mentions a network code (ECONNRESET) for a generic sentence.
		error.message = message;
		return error;
	}
}

/** Items of one match value run in input order (RunSession.recordKey); a run waits for the account's earlier one. */
export const openSession: OpenSession = async function (
	this: IExecuteFunctions,
	client: StorefrontClient,
) {
	const matching = this.getNodeParameter('columns.matchingColumns', 0, []) as unknown;
	const field = (
		Array.isArray(matching) && matching.length ? String(matching[0]) : 'sku'
	) as MatchField;
	if (!MATCH_FIELDS.includes(field)) {
		throw new NodeOperationError(
			this.getNode(),
			`The parameter "Fields to Match On" (columns.matchingColumns) must be sku, name or id, got "${field}"`,
		);
	}
	const sync = new Sync(this, client, field);
	await sync.begin();
	return sync;
};

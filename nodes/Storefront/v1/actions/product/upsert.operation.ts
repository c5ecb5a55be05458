import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep, updateDisplayOptions } from 'n8n-workflow';

import type { StorefrontClient } from '../../../../shared/transport';
import { gotNoAnswer, recordId } from '../../../../shared/transport';
import { asNodeError, DEFAULT_CONCURRENCY, toolDescription, writeToolNotice } from '../common';
import type { OpenSession, RunSession } from '../session';
import { Catalog, writerTurn } from './catalog';
import { CLAIM_MINUTES, CreateClaims } from './createClaims';
import {
	changedFields,
	EXTRA_FIELDS_LABEL,
	MATCH_FIELDS,
	MATCH_NOUNS,
	PRODUCT_FIELDS,
	unshown,
	type MatchField,
} from './fields';
import { Finder, type FindBy, type Found } from './finder';
import { itemError, ItemReader, type Wanted } from './items';
import { RunReport, type Outcome } from './report';

const properties: INodeProperties[] = [
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
						'The field that finds the product to update: SKU, Name or Product ID. No product with the value: ' +
						'one is created (not for Product ID).',
					// Shown under the field; n8n's own default there ("Usually an ID") is wrong for a match on SKU.
					hint: 'The product with this value is updated where a field differs; with none, one is created',
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
				displayName: EXTRA_FIELDS_LABEL,
				name: 'extraFields',
				type: 'json',
				default: '{}',
				description:
					'A JSON object of further product fields the node does not list, sent unchanged and compared like ' +
					'the others; mapped fields take precedence',
				hint: 'Must be a JSON object, e.g. {"weight_grams": 250}',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['product'], operation: ['upsert'] } },
	properties,
);

/** What an item did to its product, and the product as the service now has it (the item's output). */
interface Done {
	outcome: Exclude<Outcome, 'failed'>;
	product: IDataObject;
	/** The fields an update wrote. */
	changed?: string[];
}

/** Waits before each look for a product another run claimed to create: that create may still be on its way. */
const CREATED_ELSEWHERE_WAITS_MS = [500, 1_500, 3_000];

/**
 * One run of Create or Update: the run's products found once (./finder: looked up, or the catalog read), then each
 * item compared with its product and written only if it differs. Each item's output is its product; what the run
 * did goes to the hints (./report).
 */
class Sync implements RunSession {
	private readonly report: RunReport;

	private readonly items: ItemReader;

	private readonly claims: CreateClaims;

	private readonly noun: string;

	private finding: Promise<Found> | undefined;

	private release = () => {};

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly client: StorefrontClient,
		private readonly field: MatchField,
	) {
		this.report = new RunReport(field);
		this.items = new ItemReader(ctx, field);
		this.claims = new CreateClaims(ctx, client.account, field);
		this.noun = MATCH_NOUNS[field];
	}

	/** Waits until the account's earlier Create or Update run in this process has finished (catalog.ts, writerTurn). */
	async begin(): Promise<void> {
		const asked = Date.now();
		this.release = await writerTurn(this.client.account);
		this.report.turnWaitedMs = Date.now() - asked;
	}

	async execute(itemIndex: number): Promise<IDataObject> {
		let done: Done | undefined;
		try {
			done = await this.write(itemIndex);
			return done.product;
		} finally {
			this.report.count(done?.outcome ?? 'failed', done?.changed);
		}
	}

	recordKey(itemIndex: number): string | undefined {
		try {
			return this.items.matchOf(itemIndex);
		} catch {
			return undefined;
		}
	}

	hints(): string[] {
		this.report.numeric = this.items.numeric.size;
		return this.report.hints();
	}

	close(): void {
		this.release();
	}

	private async write(itemIndex: number): Promise<Done> {
		const wanted = this.items.wanted(itemIndex);
		const catalog = await this.catalog(itemIndex);
		const { match } = wanted;
		if (catalog.isUnsettled(match)) {
			throw this.fail(
				itemIndex,
				`An earlier item's create of the product with ${this.noun} "${match}" got no usable answer, and ` +
					'the product was not found; this item was not sent',
				'Run the workflow again later: it then updates the product if it was created, or creates it.',
			);
		}
		const found = catalog.find(match);
		if (found.length > 1) throw this.ambiguous(match, found, itemIndex);
		if (found.length === 1) return await this.update(catalog, found[0], wanted, itemIndex);
		if (this.field === 'id') {
			throw this.fail(
				itemIndex,
				`No product has the ID "${match}"`,
				'Matching on Product ID only updates products; match on SKU or Name to create the missing ones.',
			);
		}
		const padded = this.items.numeric.has(itemIndex) ? catalog.withZeros(match) : [];
		if (padded.length) {
			const [product] = padded;
			const id = recordId(product, 'product') ?? '';
			throw this.fail(
				itemIndex,
				`The ${this.noun} came as the number ${match}, and product ${id} has the ${this.noun} ` +
					`"${catalog.keyOf(product)}": no product was created`,
				'A number loses leading zeros. Read that column as text (a sheet: format the column as plain text), ' +
					'or write the value with its zeros.',
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
			const inputs = this.ctx.getInputData();
			const keys = inputs.map((_, index) => this.recordKey(index));
			const values = [...new Set(keys.filter((key) => key !== undefined))];
			const finder = new Finder(this.client, this.field, { itemIndex });
			this.finding = finder
				.find(values, findBy, atOnce)
				.then((found) => (this.report.found = found));
		}
		return (await this.finding).catalog;
	}

	private async update(
		catalog: Catalog,
		product: IDataObject,
		wanted: Wanted,
		itemIndex: number,
	): Promise<Done> {
		const compared = changedFields(wanted.fields, product);
		if (compared.length === 0) return { outcome: 'unchanged', product };
		const changed = [...compared, ...unshown(wanted.fields, product)];
		const id = recordId(product, 'product');
		if (id === undefined)
			throw this.fail(
				itemIndex,
				`The product with ${this.noun} "${wanted.match}" has no id the node can update it by`,
			);
		const body = Object.fromEntries(changed.map((key) => [key, wanted.fields[key]]));
		const target = { resourceLabel: 'Product', id, itemIndex };
		const updated = this.client.single(
			await this.client.request('PUT', ['products', id], { body }, target),
			'product',
			target,
		);
		catalog.put(updated);
		return { outcome: 'updated', product: updated, changed };
	}

	private async create(catalog: Catalog, wanted: Wanted, itemIndex: number): Promise<Done> {
		const missing = ['name', 'price'].filter((key) => wanted.fields[key] === undefined);
		if (missing.length) {
			const names = missing.map((key) => `"${PRODUCT_FIELDS[key].label}"`).join(' and ');
			throw this.fail(
				itemIndex,
				`No product has the ${this.noun} "${wanted.match}", and creating one needs ${names} (Fields)`,
				'Map a name and a price, or leave out the rows of products that are not in the shop yet.',
			);
		}
		const claim = await this.claims.claim(wanted.match);
		if (claim === false) return await this.createdElsewhere(catalog, wanted, itemIndex);
		const body = wanted.fields;
		let answer;
		try {
			answer = await this.client.request('POST', ['products'], { body }, { itemIndex });
		} catch (error) {
			if (!gotNoAnswer(error)) {
				await this.claims.release(wanted.match, claim);
				throw asNodeError(this.ctx, error, itemIndex);
			}
			return await this.recover(catalog, wanted, error as Error, itemIndex);
		}
		let product: IDataObject;
		try {
			product = this.client.single(answer, 'product', { itemIndex });
		} catch (error) {
			// A 2xx whose body holds no product: the service took the create, so it is found like a lost answer.
			return await this.recover(catalog, wanted, error as Error, itemIndex);
		}
		catalog.put(product);
		return { outcome: 'created', product };
	}

	/**
	 * Another run (on another queue worker, say) claimed the create of this value in the last minutes: its product is
	 * looked for a few times while that create may still be on its way, and compared when found; never created here.
	 */
	private async createdElsewhere(
		catalog: Catalog,
		wanted: Wanted,
		itemIndex: number,
	): Promise<Done> {
		for (const waitMs of CREATED_ELSEWHERE_WAITS_MS) {
			await sleep(waitMs);
			const found = await this.search(catalog, wanted.match, itemIndex);
			if (found.length > 1) throw this.ambiguous(wanted.match, found, itemIndex);
			if (found.length === 1) return await this.update(catalog, found[0], wanted, itemIndex);
		}
		throw this.fail(
			itemIndex,
			`Another run claimed the create of the product with ${this.noun} "${wanted.match}" in the last ` +
				`${CLAIM_MINUTES} minutes, and it is not in the shop; it was not created here, so that it is not ` +
				'created twice',
			'That run may still be waiting for the rate limit. Run the workflow again later: it then updates the ' +
				`product, or creates it once the claim is ${CLAIM_MINUTES} minutes old (a product deleted since, say).`,
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
		lost: Error,
		itemIndex: number,
	): Promise<Done> {
		let matches: IDataObject[];
		try {
			matches = await this.search(catalog, wanted.match, itemIndex);
		} catch {
			catalog.markUnsettled(wanted.match);
			throw lost;
		}
		if (matches.length === 1) {
			this.report.recover(wanted.match, lost);
			return { outcome: 'created', product: matches[0] };
		}
		catalog.markUnsettled(wanted.match);
		if (matches.length > 1) throw this.ambiguous(wanted.match, matches, itemIndex);
		throw this.fail(
			itemIndex,
			`The create of the product with ${this.noun} "${wanted.match}" got no usable answer ` +
				`(${lost.message}), and no such product is there yet; it was not sent again`,
			'The service may still create it. Run the workflow again later: it then updates the product if it was ' +
				'created, or creates it.',
		);
	}

	private ambiguous(match: string, products: IDataObject[], itemIndex: number): NodeOperationError {
		const ids = products.map((product) => recordId(product, 'product') ?? '(no id)').join(', ');
		return this.fail(
			itemIndex,
			`${products.length} products have the ${this.noun} "${match}" (${ids}); Create or Update changed none ` +
				'of them',
			`Give each product its own ${this.noun} (or delete the extra ones), or match on Product ID.`,
		);
	}

	private fail(itemIndex: number, message: string, description?: string): NodeOperationError {
		return itemError(this.ctx, itemIndex, message, description);
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
			'The parameter "Fields to Match On" (columns.matchingColumns) must be SKU, Name or Product ID, ' +
				`got "${field}"`,
		);
	}
	const sync = new Sync(this, client, field);
	await sync.begin();
	return sync;
};

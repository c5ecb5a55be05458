// What Create or Update did, read from the service's side: its output items are the products (as Create's and
// Update's), so the suites check each create and update the sandbox received, with the fields it was sent. The
// sandbox runs in this process: its state's createProduct and updateProduct are watched as its API calls them (a
// watch only; they run unchanged), and only those that stored something count.
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { mapperFields } from '../../nodes/Storefront/v1/actions/product/editorFields';
import type { SandboxContext } from './context';

/** Create or Update as a CSV's rows reach it: Map Automatically, matched on sku; `options` its Options. */
export const upsertParameters = (settings: IDataObject = {}) =>
	({
		resource: 'product',
		operation: 'upsert',
		columns: {
			mappingMode: 'autoMapInputData',
			value: null,
			matchingColumns: ['sku'],
			schema: mapperFields(),
		},
		...settings,
	}) as unknown as INodeParameters;

export interface Write {
	method: 'POST' | 'PUT';
	/** The product's SKU (as stored), name and id. */
	sku: unknown;
	name: unknown;
	id: string;
	/** The fields the request sent, and their values. */
	fields: string[];
	sent: Record<string, unknown>;
}

type Stored = Record<string, unknown>;
interface Watched {
	createProduct(body: Stored, ...rest: unknown[]): Stored;
	updateProduct(id: string, body: Stored, ...rest: unknown[]): Stored;
}

/** Watches the sandbox's product writes in every test of the file; the returned function lists them, in order. */
export function watchWrites(ctx: SandboxContext): () => Write[] {
	let spies: {
		create: jest.SpyInstance<Stored, [Stored, ...unknown[]]>;
		update: jest.SpyInstance<Stored, [string, Stored, ...unknown[]]>;
	};
	beforeEach(() => {
		const state = ctx.sb.state as unknown as Watched;
		spies = {
			create: jest.spyOn(state, 'createProduct'),
			update: jest.spyOn(state, 'updateProduct'),
		};
	});
	afterEach(() => {
		spies.create.mockRestore();
		spies.update.mockRestore();
	});
	return () => {
		const writes: Array<[number, Write]> = [];
		const add = (
			method: Write['method'],
			spy: jest.SpyInstance,
			body: (args: unknown[]) => Stored,
		) => {
			spy.mock.calls.forEach((args, n) => {
				const result = spy.mock.results[n];
				if (result.type !== 'return') return;
				const product = result.value as Stored;
				writes.push([
					spy.mock.invocationCallOrder[n],
					{
						method,
						sku: product.sku,
						name: product.name,
						id: String(product.id),
						fields: Object.keys(body(args)),
						sent: body(args),
					},
				]);
			});
		};
		add('POST', spies.create, (args) => args[0] as Stored);
		add('PUT', spies.update, (args) => args[1] as Stored);
		return writes.sort(([a], [b]) => a - b).map(([, write]) => write);
	};
}

/**
 * What the writes did to the product of `key` (its SKU, or its name with `by: 'name'`): "created", "updated price"
 * (the fields sent), several joined by " + ", or "unchanged" where nothing was written.
 */
export function outcomeOf(writes: Write[], key: unknown, by: 'sku' | 'name' = 'sku'): string {
	const mine = writes.filter((write) => write[by] === key);
	if (mine.length === 0) return 'unchanged';
	return mine
		.map((write) => (write.method === 'POST' ? 'created' : `updated ${write.fields.join(',')}`))
		.join(' + ');
}

/** Outcomes counted by their first word: { created: 200, updated: 10, unchanged: 290 }. */
export function tally(outcomes: string[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const outcome of outcomes) {
		const word = outcome.split(' ')[0];
		counts[word] = (counts[word] ?? 0) + 1;
	}
	return counts;
}

// Create or Update's view of the shop: the products the run found (./finder), by the match field, kept up to date
// with what the run writes; and the one writer per account that keeps two runs in a process from creating one SKU
// twice (across processes: ./createClaims).
import type { IDataObject } from 'n8n-workflow';

import { recordId } from '../../../../shared/transport';
import type { MatchField } from './fields';

export class Catalog {
	private readonly byKey = new Map<string, IDataObject[]>();

	/** Keys whose create got no answer and whose product was not found: no later item may create it again. */
	readonly unsettled = new Set<string>();

	constructor(
		readonly field: MatchField,
		products: IDataObject[],
	) {
		for (const product of products) this.put(product);
	}

	/** The product's value of the match field, as items are matched on it (trimmed); undefined when it has none. */
	keyOf(product: IDataObject): string | undefined {
		const value = this.field === 'id' ? recordId(product, 'product') : product[this.field];
		const key = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
		return key === '' ? undefined : key;
	}

	find(key: string): IDataObject[] {
		return this.byKey.get(key) ?? [];
	}

	/**
	 * Adds a product, or replaces the one with its id (a product the run wrote, as the service answered). A product's
	 * key does not change: an item's fields hold its match value.
	 */
	put(product: IDataObject): void {
		const key = this.keyOf(product);
		if (key === undefined) return;
		const id = recordId(product, 'product');
		const others = this.find(key).filter((p) => id === undefined || recordId(p, 'product') !== id);
		this.byKey.set(key, [...others, product]);
	}

	/** Products whose value is `key` with leading zeros (000123 for 123): what a number read from a sheet lost. */
	withZeros(key: string): IDataObject[] {
		const bare = (value: string) => value.replace(/^0+/, '');
		const padded = [...this.byKey].filter(([other]) => other !== key && bare(other) === bare(key));
		return padded.flatMap(([, products]) => products);
	}
}

/** The tail of each account's queue of Create or Update runs in this n8n process (module scope, like the governor). */
const writers = new Map<string, Promise<void>>();

/**
 * Waits for this run's turn on the account and returns its release. A run reads the catalog after the run before it
 * wrote, so two runs at once never both create a SKU neither of them saw. Per process only: see
 * docs/storefront-node.md, "Two runs at once".
 */
export async function writerTurn(account: string): Promise<() => void> {
	const previous = writers.get(account) ?? Promise.resolve();
	let release = () => {};
	const done = new Promise<void>((resolve) => (release = resolve));
	const tail = previous.then(async () => await done);
	writers.set(account, tail);
	await previous;
	return () => {
		release();
		if (writers.get(account) === tail) writers.delete(account);
	};
}

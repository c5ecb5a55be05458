// What a Create or Update run did, said in the output panel's hints, n8n's place for facts about a run: the output
// items are the products, as Create and Update output them, so expressions after the node are the same for all
// three. The hints say how many products were created, updated and left unchanged, which fields were written, how
// the products were found, and what the user should know about the values read.
import { duration } from '../../../../shared/transport';
import { fieldOf, MATCH_NOUNS, PRODUCT_FIELDS, type MatchField } from './fields';
import type { Found } from './finder';

export type Outcome = 'created' | 'updated' | 'unchanged' | 'failed';

const plural = (count: number, one: string, many = `${one}s`) => (count === 1 ? one : many);

/** A few values quoted, and how many more there are. */
function someOf(values: string[], shown = 3): string {
	const quoted = values.slice(0, shown).map((value) => `"${value}"`);
	const more = values.length - shown;
	return more > 0 ? `${quoted.join(', ')} and ${more} more` : quoted.join(', ');
}

export class RunReport {
	private readonly counts: Record<Outcome, number> = {
		created: 0,
		updated: 0,
		unchanged: 0,
		failed: 0,
	};

	/** Per field, the products an update wrote it to. */
	private readonly written = new Map<string, number>();

	/** Creates whose answer was lost and whose product was found: never sent again. */
	private readonly recovered: Array<{ match: string; lost: Error }> = [];

	found: Found | undefined;

	/** Match values that came as a number. */
	numeric = 0;

	turnWaitedMs = 0;

	private readonly noun: string;

	constructor(field: MatchField) {
		this.noun = MATCH_NOUNS[field];
	}

	/** One item's outcome, and for an update the fields it wrote. */
	count(outcome: Outcome, changed: string[] = []): void {
		this.counts[outcome]++;
		if (outcome !== 'updated') return;
		for (const key of changed) this.written.set(key, (this.written.get(key) ?? 0) + 1);
	}

	recover(match: string, lost: Error): void {
		this.recovered.push({ match, lost });
	}

	hints(): string[] {
		const { created, updated, unchanged, failed } = this.counts;
		const hints = [
			`Created ${created}, updated ${updated}, left ${unchanged} unchanged` +
				(failed ? `, failed ${failed}` : ''),
		];
		if (this.written.size) hints.push(this.writtenHint());
		if (this.recovered.length) hints.push(this.recoveredHint());
		if (this.found) hints.push(this.foundHint(this.found));
		if (this.numeric) {
			const [was, values] = this.numeric === 1 ? ['was', 'value'] : ['were', 'values'];
			hints.push(
				`${this.numeric} ${this.noun} ${values} came as a number and ${was} read as text; a number loses ` +
					'leading zeros (000123 becomes 123): read that column as text',
			);
		}
		if (this.turnWaitedMs >= 1000)
			hints.push(
				`Waited ${duration(this.turnWaitedMs)} for another Create or Update run on this API key to finish`,
			);
		return hints;
	}

	/** "Updated Price on 10 products, Inventory Quantity on 3": the product fields first, in the editor's names. */
	private writtenHint(): string {
		const order = Object.keys(PRODUCT_FIELDS);
		const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
		const keys = [...this.written.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
		const parts = keys.map((key, n) => {
			const count = this.written.get(key)!;
			return `${fieldOf(key)?.label ?? key} on ${count}${n === 0 ? ` ${plural(count, 'product')}` : ''}`;
		});
		return `Updated ${parts.join(', ')}`;
	}

	private recoveredHint(): string {
		const [{ lost }] = this.recovered;
		const matches = this.recovered.map(({ match }) => match);
		const count = matches.length;
		return (
			`${count} ${plural(count, 'create')} got no usable answer (${lost.message}); ` +
			`${plural(count, 'its product was', 'their products were')} found by ${this.noun} and not ` +
			`created again: ${someOf(matches)}`
		);
	}

	/** Which way the products were found, and what it cost. */
	private foundHint({ how, calls, pages, fallback }: Found): string {
		const requests = `${calls} ${plural(calls, 'request')}`;
		const catalog =
			pages === undefined ? 'the catalog' : `the catalog (${pages} ${plural(pages, 'page')})`;
		if (how === 'lookup') {
			return `Found the products by looking up each ${this.noun} (${requests}) instead of reading ${catalog}`;
		}
		return `Found the products by reading ${catalog}: ${requests}${fallback ? `, as ${fallback}` : ''}`;
	}
}

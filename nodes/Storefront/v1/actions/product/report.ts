// What a Create or Update run did goes to the output panel's hints, so that its output items are the products, as
// Create's and Update's are (docs/storefront-node.md, What the run did: the hints).
import type { IDataObject } from 'n8n-workflow';

import { duration } from '../../../../shared/transport';
import { fieldOf, MATCH_NOUNS, PRODUCT_FIELDS, type MatchField } from './fields';
import { TURN_WAIT_MS } from './createClaims';
import type { Found } from './finder';

const plural = (count: number, one: string, many = `${one}s`) => (count === 1 ? one : many);

/** What one item did to its product, and the product as the service now has it (the item's output). */
export interface Done {
	outcome: 'created' | 'updated' | 'unchanged';
	product: IDataObject;
	changed?: string[];
	/** A create whose answer was lost, and whose product was then found: never sent again. */
	recovered?: { match: string; lost: Error };
}

/** A row that cannot be written: its number (the item's position, from 1) and why. */
export interface BadRow {
	row: number;
	error: string;
}

/** How many rows did what: the first hint, and Output: Summary's counts. */
type Counts = Record<Done['outcome'] | 'skipped' | 'failed', number>;

export function countsOf(done: Array<Done | undefined>, items: number, skipped: number): Counts {
	const count = (outcome: Done['outcome']) => done.filter((r) => r?.outcome === outcome).length;
	const written = done.filter((result) => result !== undefined).length;
	const [created, updated, unchanged] = [count('created'), count('updated'), count('unchanged')];
	return { created, updated, unchanged, skipped, failed: items - skipped - written };
}

/** "Created 2, updated 5, left 3 unchanged, skipped 2 blank rows, failed 1". */
function countsText({ created, updated, unchanged, skipped, failed }: Counts): string {
	return (
		`Created ${created}, updated ${updated}, left ${unchanged} unchanged` +
		(skipped ? `, skipped ${skipped} blank ${plural(skipped, 'row')}` : '') +
		(failed ? `, failed ${failed}` : '')
	);
}

/** Bad rows as a failure lists them: one a line, at most 20, then how many more. */
export function badRowsText(bad: BadRow[]): string {
	const shown = bad.slice(0, 20).map(({ row, error }) => `Row ${row}: ${error}`);
	const more = bad.length - shown.length;
	return [...shown, ...(more ? [`… and ${more} more ${plural(more, 'row')}`] : [])].join('\n');
}

/** Nothing written, as the failure or the summary says it. */
export const nothingWritten = (bad: BadRow[]) =>
	bad.length === 1
		? `Nothing was written: row ${bad[0].row} can't be written`
		: `Nothing was written: ${bad.length} rows can't be written`;

/**
 * Output: Summary's one item: the counts, each failed row, and a message to show a person (a form's last page): what
 * the hints start with, then the failed rows, one a line.
 */
export function summaryOf(counts: Counts, bad: BadRow[], wroteNothing: boolean): IDataObject {
	const head = wroteNothing ? nothingWritten(bad) : countsText(counts);
	const message = bad.length ? `${head}\n${badRowsText(bad)}` : head;
	return { ...counts, message, failedRows: bad.map((b) => ({ ...b })) };
}

interface RunResult {
	field: MatchField;
	counts: Counts;
	/** Each item's result, by item index; none for an item that failed or was skipped. */
	done: Array<Done | undefined>;
	/** How the products were found; none when they were not (no item could be read, or the finding failed). */
	found?: Found;
	/** Items whose match value came as a number. */
	numeric: number;
	/** How long the run waited for the account's earlier Create or Update run in this process to end. */
	turnWaitedMs: number;
}

export function report(result: RunResult): string[] {
	const { field, counts, done, found, numeric, turnWaitedMs } = result;
	const noun = MATCH_NOUNS[field];
	const results = done.filter((result) => result !== undefined);
	const hints = [countsText(counts)];
	const written = results.flatMap((result) =>
		result.outcome === 'updated' ? (result.changed ?? []) : [],
	);
	if (written.length) hints.push(writtenHint(written));
	const recovered = results.filter((result) => result.recovered !== undefined);
	if (recovered.length) hints.push(recoveredHint(recovered, field));
	if (found) hints.push(foundHint(found, noun));
	if (numeric)
		hints.push(
			`${numeric} ${noun} ${plural(numeric, 'value')} came as a number and ${plural(numeric, 'was', 'were')} ` +
				'read as text; a number loses leading zeros (000123 becomes 123): read that column as text',
		);
	if (turnWaitedMs >= TURN_WAIT_MS)
		hints.push(
			`Waited ${duration(turnWaitedMs)} for another Create or Update run on this API key, which has not finished: ` +
				'went on beside it (a product it creates is still created once)',
		);
	else if (turnWaitedMs >= 1000)
		hints.push(
			`Waited ${duration(turnWaitedMs)} for another Create or Update run on this API key to finish`,
		);
	return hints;
}

/** "Updated Price on 10 products, Inventory Quantity on 3": the product fields first, in the editor's names. */
function writtenHint(written: string[]): string {
	const counts = new Map<string, number>();
	for (const key of written) counts.set(key, (counts.get(key) ?? 0) + 1);
	const order = Object.keys(PRODUCT_FIELDS);
	const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
	const keys = [...counts.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
	const parts = keys.map((key, n) => {
		const count = counts.get(key)!;
		return `${fieldOf(key)?.label ?? key} on ${count}${n === 0 ? ` ${plural(count, 'product')}` : ''}`;
	});
	return `Updated ${parts.join(', ')}`;
}

function recoveredHint(recovered: Done[], field: MatchField): string {
	const { lost } = recovered[0].recovered!;
	const matches = recovered.map((result) => result.recovered!.match);
	const count = matches.length;
	const some = matches.slice(0, 3).map((match) => `"${match}"`);
	return (
		`${count} ${plural(count, 'create')} got no usable answer (${lost.message}); ` +
		`${plural(count, 'its product was', 'their products were')} found by ${MATCH_NOUNS[field]} and not ` +
		`created again: ${some.join(', ')}${count > 3 ? ` and ${count - 3} more` : ''}`
	);
}

function foundHint({ how, calls, pages, fallback }: Found, noun: string): string {
	const requests = `${calls} ${plural(calls, 'request')}`;
	const catalog =
		pages === undefined ? 'the catalog' : `the catalog (${pages} ${plural(pages, 'page')})`;
	if (how === 'lookup')
		return `Found the products by looking up each ${noun} (${requests}) instead of reading ${catalog}`;
	return `Found the products by reading ${catalog}: ${requests}${fallback ? `, as ${fallback}` : ''}`;
}

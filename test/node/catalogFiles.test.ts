// Create or Update fed a file as spreadsheets export it, through n8n-core's WorkflowExecute against the sandbox: rows
// as n8n's Extract from File gives them (the file's own headers, every value text), blank rows below the data, money
// as a sheet formats it, and bad rows. With On Error: Stop Workflow every row is checked before any write; with
// Continue the bad rows are error items paired to their rows; Output: Summary says all of it in one item.
import type { IRun } from 'n8n-workflow';

import { NODE_NAME } from '../helpers/n8n';
import { useSandbox } from './context';
import { upsertParameters as upsert, watchWrites } from './writes';

const ctx = useSandbox({ products: 20, orders: 5, customers: 5 });
const written = watchWrites(ctx);

let serial = 0;
/** Ten rows of new products as a CSV export has them; `bad` rows (by number, from 1) carry a price no one can read. */
function file(bad: number[] = []) {
	const run = ++serial;
	return Array.from({ length: 10 }, (_, n) => ({
		SKU: `FILE-${run}-${n + 1}`,
		Name: `Filed Product ${n + 1}`,
		Price: bad.includes(n + 1) ? '12,3,4' : `${n + 1}.50`,
		Stock: '5',
	}));
}
const BLANK = { SKU: '', Name: '', Price: '', Stock: '' };
const priceError = (row: number) =>
	`Row ${row}: The input field "Price" must be a number of 0 or more, got "12,3,4"`;

const hintsOf = (run: IRun) =>
	(run.data.resultData.runData[NODE_NAME]?.[0]?.hints ?? []).map((h) => h.message);
const skus = () => new Set([...ctx.sb.state.products.values()].map((p) => p.sku));

describe('rows as files have them', () => {
	test('blank rows below the data (",,," and spaces only) are skipped and counted; a row with a value but no SKU still fails', async () => {
		const rows = [
			{ SKU: 'BLANKS-1', Name: 'Sencha', Price: '8.90', Stock: '60' },
			BLANK,
			{ SKU: ' ', Name: '  ', Price: '', Stock: '' },
		];
		const { items, error, run } = await ctx.run({ items: rows, parameters: upsert() });
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.sku, item.pairedItem])).toEqual([
			['BLANKS-1', { item: 0 }],
		]);
		expect(hintsOf(run)[0]).toBe('Created 1, updated 0, left 0 unchanged, skipped 2 blank rows');
		expect(written()).toHaveLength(1);

		const orphan = await ctx.run({
			items: [BLANK, { ...BLANK, Name: 'No SKU' }],
			parameters: upsert(),
		});
		expect(orphan.error?.message).toBe("Nothing was written: row 2 can't be written");
		expect(orphan.error?.description).toContain('Row 2: The input field "SKU" is empty or missing');
	});

	test('sheets money: "$19.90" is 19.9, "$1,299.00" 1299, a stock of "1,200" 1200', async () => {
		const rows = [
			{ SKU: 'MONEY-1', Name: 'Tea', Price: '$19.90', Stock: '1,200' },
			{ SKU: 'MONEY-2', Name: 'Kettle', Price: '$1,299.00', Stock: '3' },
		];
		const { error } = await ctx.run({ items: rows, parameters: upsert() });
		expect(error).toBeUndefined();
		const bySku = (sku: string) => [...ctx.sb.state.products.values()].find((p) => p.sku === sku);
		expect(bySku('MONEY-1')).toMatchObject({ price: 19.9, stock: 1200 });
		expect(bySku('MONEY-2')).toMatchObject({ price: 1299, stock: 3 });
	});
});

describe('a file separated by semicolons, read as comma-separated', () => {
	test('each row is one column: the failure says so, nothing is written', async () => {
		const rows = [
			{ 'SKU;Name;Price;Stock': 'SEMI-1;Tea;19,90;5' },
			{ 'SKU;Name;Price;Stock': 'SEMI-2;Mug;7,50;2' },
		];
		const { error } = await ctx.run({ items: rows, parameters: upsert() });
		expect(error?.description).toContain(
			'Row 1: The input field "SKU" is empty or missing: each row is one column, "SKU;Name;Price;Stock", as when a file separated by ";" is read with the delimiter ","',
		);
		expect(await ctx.requests()).toEqual([]);
	});
});

describe('every bad row named before any write (On Error: Stop Workflow)', () => {
	test('a bad price in row 7 of 10: nothing written, not one request; the failure names row 7, its column and value; fixed, all 10 are created', async () => {
		const rows = file([7]);
		const { error } = await ctx.run({ items: rows, parameters: upsert() });
		expect(error?.message).toBe("Nothing was written: row 7 can't be written");
		expect(error?.description).toBe(
			`${priceError(7)}\nFix them and run again, or set On Error to Continue to write the other rows.`,
		);
		expect(await ctx.requests()).toEqual([]);

		rows[6].Price = '7.50';
		const fixed = await ctx.run({ items: rows, parameters: upsert() });
		expect(fixed.error).toBeUndefined();
		expect(fixed.items).toHaveLength(10);
		for (const row of rows) expect(skus().has(row.SKU)).toBe(true);
	});

	test('every bad row is listed, 20 at most, then how many more', async () => {
		const many = [
			...file([3, 7]),
			...Array.from({ length: 3 }, () => file([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).flat(),
		];
		const { error } = await ctx.run({ items: many, parameters: upsert() });
		expect(error?.message).toBe("Nothing was written: 32 rows can't be written");
		const lines = String(error?.description).split('\n');
		expect(lines.slice(0, 2)).toEqual([priceError(3), priceError(7)]);
		expect(lines[20]).toBe('… and 12 more rows');
		expect(lines).toHaveLength(22);
		expect(await ctx.requests()).toEqual([]);
	});
});

describe('On Error: Continue (using error output)', () => {
	test('10 rows, rows 3 and 7 bad: 8 written, 2 error items paired to rows 3 and 7', async () => {
		const rows = file([3, 7]);
		const { items, errorItems, error, run } = await ctx.run({
			items: rows,
			parameters: upsert(),
			onError: 'continueErrorOutput',
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual(
			[0, 1, 3, 4, 5, 7, 8, 9].map((item) => ({ item })),
		);
		expect(errorItems.map((item) => [item.pairedItem, item.json.error])).toEqual([
			[{ item: 2 }, priceError(3).replace('Row 3: ', '')],
			[{ item: 6 }, priceError(7).replace('Row 7: ', '')],
		]);
		expect(written().map((w) => w.method)).toEqual(Array(8).fill('POST'));
		expect(hintsOf(run)[0]).toBe('Created 8, updated 0, left 0 unchanged, failed 2');
	});
});

describe('Output: Summary, one item a form or a chat can show', () => {
	test('a good file with blank rows: the counts and their message', async () => {
		const rows = [...file(), BLANK, BLANK];
		const { items, error } = await ctx.run({
			items: rows,
			parameters: upsert({ output: 'summary' }),
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([
			{
				created: 10,
				updated: 0,
				unchanged: 0,
				skipped: 2,
				failed: 0,
				message: 'Created 10, updated 0, left 0 unchanged, skipped 2 blank rows',
				failedRows: [],
			},
		]);
		expect(items[0].pairedItem).toEqual(rows.map((_, item) => ({ item })));
	});

	test('a bad row with Stop Workflow: nothing written, the run goes on with the summary naming the row', async () => {
		const { items, error } = await ctx.run({
			items: file([7]),
			parameters: upsert({ output: 'summary' }),
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([
			{
				created: 0,
				updated: 0,
				unchanged: 0,
				skipped: 0,
				failed: 1,
				message: `Nothing was written: row 7 can't be written\n${priceError(7)}`,
				failedRows: [{ row: 7, error: priceError(7).replace('Row 7: ', '') }],
			},
		]);
		expect(await ctx.requests()).toEqual([]);
	});

	test('bad rows with Continue: the others written, the failed ones in the summary', async () => {
		const { items, errorItems } = await ctx.run({
			items: file([3, 7]),
			parameters: upsert({ output: 'summary' }),
			onError: 'continueErrorOutput',
		});
		expect(errorItems).toEqual([]);
		expect(items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				created: 8,
				failed: 2,
				failedRows: [
					{ row: 3, error: priceError(3).replace('Row 3: ', '') },
					{ row: 7, error: priceError(7).replace('Row 7: ', '') },
				],
			}),
		]);
		expect(written()).toHaveLength(8);
	});
});

/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- n8n's internal REST API answers untyped JSON; test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The catalog-sync example (examples/catalog-sync.json) in a real n8n, used as a person uses it: its form is sent a
// file as spreadsheets export it, and the page the form ends on is read, as n8n's form page reads it (the answer's
// formWaitingUrl, its execution status, then the page). What was written is read at the sandbox. The community-package
// cells of both n8n lines run it.
import * as fs from 'fs';
import * as path from 'path';

import {
	CELL,
	createWorkflow,
	eventually,
	instance,
	rest,
	startEnvironment,
	TYPES,
	type Environment,
} from './environment';

jest.setTimeout(120_000);

let env: Environment;
let formUrl: string;
let workflowId: string;

beforeAll(async () => {
	env = await startEnvironment('e2e');
	const sync = await createWorkflow(env, instance.loadExample('catalog-sync.json'));
	workflowId = sync.id;
	const stored = await env.client.getWorkflow(sync.id);
	formUrl = `${env.webhookUrl}/form/${stored.nodes[0].parameters.options.path}`;
	// n8n 2.x registers a published workflow's form shortly after the activation call returns.
	await eventually(
		async () => ((await fetch(formUrl)).status === 200 ? true : undefined),
		'the catalog form to be served',
	);
}, 300_000);

afterAll(async () => {
	await env?.stop();
}, 60_000);

const COMMA = 'Comma (,)';
const SEMICOLON = 'Semicolon (;) as Excel saves CSV in many European languages';
const ENDED = ['form-waiting', 'success', 'error', 'crashed', 'canceled'];

/** The text of an HTML fragment as a browser shows it: tags dropped, line breaks kept, entities read. */
const textOf = (html: string) =>
	html
		.replace(/<br\s*\/?>/g, '\n')
		.replace(/<[^>]+>/g, '')
		.replace(/&quot;/g, '"')
		.replace(/&#x27;|&#39;/g, "'")
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&amp;/g, '&')
		.trim();

/**
 * Sends the form a file, as n8n's form page does, and reads the page it ends on: the form answers with the URL the
 * page waits on; the page asks for the execution's status until it waits at a form page, shows that page, and posts
 * back that it did.
 */
async function submit(csv: string, separator = COMMA) {
	const before = (await env.client.listExecutions({ workflowId, limit: 100 })).results.length;
	await env.sandbox.admin('DELETE', '/requests');
	const form = new FormData();
	form.append('field-0', new Blob([csv], { type: 'text/csv' }), 'catalog.csv');
	form.append('field-1', separator);
	const answer = await fetch(formUrl, { method: 'POST', body: form });
	expect(answer.status).toBe(200);
	const { formWaitingUrl } = (await answer.json()) as { formWaitingUrl: string };
	const statusUrl = new URL(formWaitingUrl);
	statusUrl.pathname += '/n8n-execution-status';
	const status = await eventually(async () => {
		const text = (await (await fetch(statusUrl)).text()).trim();
		return ENDED.includes(text) ? text : undefined;
	}, 'the run to reach its last page');
	expect(status).toBe('form-waiting');
	const html = await (await fetch(formWaitingUrl)).text();
	const title = textOf(/<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? '');
	const message = textOf(/<h1>[\s\S]*?<\/h1>\s*<p[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '');
	// Shown, the page tells n8n so (a POST to its own address), and the execution ends.
	const authToken = /const authToken = '([^']*)'/.exec(html)?.[1];
	const shown = await fetch(formWaitingUrl, {
		method: 'POST',
		headers: authToken ? { 'x-auth-token': authToken } : {},
	});
	expect(shown.status).toBe(200);
	const executions = await instance.waitForExecutions(
		env.client,
		workflowId,
		(list: any[]) =>
			list.length === before + 1 &&
			list.every((e) => e.status !== 'running' && e.status !== 'waiting'),
	);
	const newest = executions.reduce((a: any, b: any) => (Number(b.id) > Number(a.id) ? b : a));
	const execution = await env.client.getExecution(newest.id);
	const writes = ((await env.sandbox.admin('GET', '/requests')).body as any[]).filter(
		(r) => r.path.startsWith('/v1/products') && r.method !== 'GET',
	);
	return { title, message, execution, writes };
}

const product = (sku: string) =>
	[...env.sandbox.state.products.values()].filter((p) => p.sku === sku);
const valuesOf = (sku: string) =>
	product(sku).map((p) => ({ price: Number(p.price), stock: Number(p.stock) }));

describe('the catalog form, given files as spreadsheets export them', () => {
	it('Excel "CSV UTF-8" (a byte order mark, CRLF): both rows created; the page shows the counts', async () => {
		const page = await submit(
			'\uFEFFSKU,Name,Price,Stock\r\nXL-1,Sencha,8.90,60\r\nXL-2,Stoneware Mug,14.00,30\r\n',
		);
		expect(page.execution.status).toBe('success');
		expect(page.title).toBe('Catalog synced');
		expect(page.message).toBe('Created 2, updated 0, left 0 unchanged');
		expect(valuesOf('XL-1')).toEqual([{ price: 8.9, stock: 60 }]);
		expect(valuesOf('XL-2')).toEqual([{ price: 14, stock: 30 }]);
	});

	it('a row, then a blank line and two ",,," rows (what Excel leaves below the data): created, the blank rows skipped, the run succeeds', async () => {
		const page = await submit('SKU,Name,Price,Stock\nBLANKS-1,Earl Grey,7.50,45\n\n,,,\n,,,\n');
		expect(page.execution.status).toBe('success');
		// Extract from File drops the blank line; n8n 2.x hands on the ",,," rows, n8n 1.x drops them too.
		const blanks = CELL.line === '2' ? 2 : 0;
		const [read]: any[] = rest.runData(page.execution)['Read Rows'];
		expect(read.data.main[0]).toHaveLength(1 + blanks);
		const counts = `Created 1, updated 0, left 0 unchanged${blanks ? `, skipped ${blanks} blank rows` : ''}`;
		expect(page.message).toBe(counts);
		const [run]: any[] = rest.runData(page.execution)['Create or Update Products'];
		expect(run.hints.map((hint: any) => hint.message)).toContain(counts);
		expect(valuesOf('BLANKS-1')).toEqual([{ price: 7.5, stock: 45 }]);
	});

	it('Google Sheets with formatted cells: $19.90 is 19.9, "$1,299.00" 1299, a stock of "1,200" 1200', async () => {
		const page = await submit(
			'SKU,Name,Price,Stock\nSHEETS-1,Matcha,$19.90,5\nSHEETS-2,Kettle,"$1,299.00","1,200"\n',
		);
		expect(page.message).toBe('Created 2, updated 0, left 0 unchanged');
		expect(valuesOf('SHEETS-1')).toEqual([{ price: 19.9, stock: 5 }]);
		expect(valuesOf('SHEETS-2')).toEqual([{ price: 1299, stock: 1200 }]);
	});

	it('Excel in a European language (";" between columns, 19,90 and 1.299,00): read with Semicolon; with Comma the page says what to do and nothing is written', async () => {
		const csv = 'SKU;Name;Price;Stock\nEU-1;Rooibos;19,90;12\nEU-2;Teekanne;1.299,00;3\n';
		const wrong = await submit(csv, COMMA);
		expect(wrong.execution.status).toBe('success');
		expect(wrong.writes).toEqual([]);
		expect(wrong.title).toBe('The file could not be read: nothing was written');
		expect(wrong.message).toContain('choose Column Separator: Semicolon and upload it again');
		expect(product('EU-1')).toEqual([]);

		const read = await submit(csv, SEMICOLON);
		expect(read.message).toBe('Created 2, updated 0, left 0 unchanged');
		expect(valuesOf('EU-1')).toEqual([{ price: 19.9, stock: 12 }]);
		expect(valuesOf('EU-2')).toEqual([{ price: 1299, stock: 3 }]);
	});

	it('a bad price in row 7 of 10: nothing written; the page names row 7, its column and value; fixed, all 10 created', async () => {
		const rows = Array.from(
			{ length: 10 },
			(_, n) => `BAD-${n + 1},Tea ${n + 1},${n === 6 ? '9.9.9' : `${n + 1}.25`},4`,
		);
		const bad = await submit(`SKU,Name,Price,Stock\n${rows.join('\n')}\n`);
		expect(bad.execution.status).toBe('success');
		expect(bad.writes).toEqual([]);
		expect(bad.title).toBe('Nothing was written');
		expect(bad.message).toBe(
			`Nothing was written: row 7 can't be written\nRow 7: The input field "Price" must be a number of 0 or more, got "9.9.9"`,
		);
		for (let n = 1; n <= 10; n++) expect(product(`BAD-${n}`)).toEqual([]);

		rows[6] = 'BAD-7,Tea 7,7.25,4';
		const fixed = await submit(`SKU,Name,Price,Stock\n${rows.join('\n')}\n`);
		expect(fixed.message).toBe('Created 10, updated 0, left 0 unchanged');
		expect(fixed.writes.map((w: any) => w.method)).toEqual(Array(10).fill('POST'));
		for (let n = 1; n <= 10; n++)
			expect(valuesOf(`BAD-${n}`)).toEqual([{ price: n + 0.25, stock: 4 }]);
	});

	it('the sample file (examples/catalog-sync.csv): each row created, updated or left as the shop has it; the same file again writes nothing', async () => {
		const csv = fs.readFileSync(
			path.join(__dirname, '..', '..', 'examples', 'catalog-sync.csv'),
			'utf8',
		);
		const rows = csv
			.trim()
			.split('\n')
			.slice(1)
			.map((line) => {
				const [sku, name, price, stock] = line.split(',');
				return { sku, name, price: Number(price), stock: Number(stock) };
			});
		// What the rows should do, from the shop as it is.
		const expected = { created: 0, updated: 0, unchanged: 0 };
		for (const row of rows) {
			const [p] = product(row.sku);
			if (!p) expected.created++;
			else if (
				p.name !== row.name ||
				Number(p.price) !== row.price ||
				Number(p.stock) !== row.stock
			)
				expected.updated++;
			else expected.unchanged++;
		}
		expect(expected.created).toBeGreaterThan(0);

		const first = await submit(csv);
		const counts = `Created ${expected.created}, updated ${expected.updated}, left ${expected.unchanged} unchanged`;
		expect(first.message).toBe(counts);
		expect(first.writes.map((w: any) => w.method).sort()).toEqual([
			...Array(expected.created).fill('POST'),
			...Array(expected.updated).fill('PUT'),
		]);
		for (const row of rows)
			expect(
				product(row.sku).map((p) => ({
					sku: p.sku,
					name: p.name,
					price: Number(p.price),
					stock: Number(p.stock),
				})),
			).toEqual([row]);

		const again = await submit(csv);
		expect(again.message).toBe(`Created 0, updated 0, left ${rows.length} unchanged`);
		expect(again.writes).toEqual([]);
	});

	it('the example is a form, Extract from File and Create or Update with Output: Summary, ending on a form page', async () => {
		const stored = await env.client.getWorkflow(workflowId);
		expect(stored.nodes.map((n: any) => n.type)).toEqual([
			'n8n-nodes-base.formTrigger',
			'n8n-nodes-base.extractFromFile',
			'n8n-nodes-base.if',
			TYPES.action,
			'n8n-nodes-base.form',
			'n8n-nodes-base.form',
		]);
		expect(stored.nodes[3].parameters).toMatchObject({
			resource: 'product',
			operation: 'upsert',
			columns: { mappingMode: 'autoMapInputData', matchingColumns: ['sku'] },
			output: 'summary',
		});
	});
});

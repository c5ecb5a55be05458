/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The local lint rules of dev/eslint-rules (checks of n8n's community-nodes lint rules that its published tooling does
// not run, kept where a change to this package could break them): each rule against code it must accept and code it
// must report, through ESLint's RuleTester; then the configuration `npm run lint` runs with them, over this package's
// own nodes and credentials.
import { readFileSync, readdirSync } from 'fs';
import path from 'path';

import { Linter, RuleTester, type Rule } from 'eslint';

import local from '../../dev/eslint-rules';

// typescript-eslint's parser, the one `n8n-node lint` parses with. Required rather than imported: its package declares
// its types through `exports` only, which this repository's `moduleResolution: node` does not read.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tsParser: Linter.Parser = require('@typescript-eslint/parser');
const root = path.resolve(__dirname, '../..');
const ruleOf = (name: keyof typeof local.rules) => local.rules[name] as unknown as Rule.RuleModule;
const tested = new Set<string>();
const ruleTester = new RuleTester({ languageOptions: { parser: tsParser, sourceType: 'module' } });
const run = (name: keyof typeof local.rules, tests: Parameters<RuleTester['run']>[2]) => {
	tested.add(name);
	ruleTester.run(name, ruleOf(name), tests);
};

const NODE_FILE = 'nodes/Example/Example.node.ts';
const CODEX_FILE = 'nodes/Example/Example.node.json';

/** A node class of `Example.node.ts` with the given description fields and class body. */
const nodeClass = (descriptionFields: string, body = '') => `
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
export class Example implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Example',
		name: 'example',
		group: ['transform'],
		version: 1,
		description: 'An example',
		defaults: { name: 'Example' },
		inputs: ['main'],
		outputs: ['main'],
		${descriptionFields}
	};
	${body}
}`;

/** A node class whose execute() has the given body. */
const withExecute = (executeBody: string) =>
	nodeClass('properties: [],', `async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {\n${executeBody}\n}`);

run('require-continue-on-fail', {
	valid: [
		{
			name: 'continueOnFail checked in the catch block of the item loop',
			code: withExecute(`
				const items = this.getInputData();
				const out: INodeExecutionData[] = [];
				for (let i = 0; i < items.length; i++) {
					try { out.push({ json: {} }); } catch (error) {
						if (this.continueOnFail()) { out.push({ json: { error: error.message }, pairedItem: { item: i } }); continue; }
						throw error;
					}
				}
				return [out];`),
		},
		{
			name: 'continueOnFail read in execute and handed to the code that runs the items (the Storefront node)',
			code: withExecute('return await router.call(this, { continueOnFail: this.continueOnFail() });'),
		},
		{
			name: 'continueOnFail called in a function nested in execute',
			code: withExecute('const run = async () => { if (this.continueOnFail()) return [[]]; throw new Error("x"); }; return await run();'),
		},
		{ name: 'a class that is not a node', code: 'export class Helper { async execute() { return [[]]; } }' },
		{ name: 'a node class without execute()', code: nodeClass('properties: [],') },
	],
	invalid: [
		{
			name: 'execute only delegates (the Storefront node before this check)',
			code: withExecute('return await router.call(this);'),
			errors: [{ messageId: 'missingContinueOnFail' }],
		},
		{
			name: 'try/catch that never asks continueOnFail',
			code: withExecute('try { return [[]]; } catch (error) { throw error; }'),
			errors: [{ messageId: 'missingContinueOnFail' }],
		},
		{
			name: 'a class extending Node, in a file of any name',
			filename: 'nodes/Example/v1/ExampleV1.ts',
			code: 'import { Node } from "n8n-workflow";\nexport class ExampleV1 extends Node { async execute() { return [[]]; } }',
			errors: [{ messageId: 'missingContinueOnFail', line: 2 }],
		},
		{
			name: 'continueOnFail of another object does not count',
			code: withExecute('return other.continueOnFail() ? [[]] : [[]];'),
			errors: [{ messageId: 'missingContinueOnFail' }],
		},
	],
});

const hint = (length: number) => `'${'h'.repeat(length)}'`;

run('hint-max-length', {
	valid: [
		{ name: 'a hint of 120 characters', filename: NODE_FILE, code: nodeClass(`properties: [{ displayName: 'A', name: 'a', type: 'string', default: '', hint: ${hint(120)} }],`) },
		{ name: 'a long hint outside a .node.ts file', filename: 'nodes/Example/v1/ExampleV1.ts', code: nodeClass(`properties: [{ displayName: 'A', name: 'a', type: 'string', default: '', hint: ${hint(200)} }],`) },
		{ name: 'a long description is fine', filename: NODE_FILE, code: nodeClass(`properties: [{ displayName: 'A', name: 'a', type: 'string', default: '', description: ${hint(300)} }],`) },
	],
	invalid: [
		{
			name: 'a hint of 121 characters in a collection option',
			filename: NODE_FILE,
			code: nodeClass(
				`properties: [{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [{ displayName: 'B', name: 'b', type: 'string', default: '', hint: ${hint(121)} }] }],`,
			),
			errors: [{ messageId: 'hintTooLong', data: { length: 121, max: 120 } }],
		},
	],
});

run('open-ended-node-fields', {
	valid: [
		{ name: 'a required JSON field', filename: NODE_FILE, code: nodeClass(`properties: [{ displayName: 'Body', name: 'body', type: 'json', required: true, default: '{}' }],`) },
		{
			name: 'an optional JSON field inside a collection',
			filename: NODE_FILE,
			code: nodeClass(`properties: [{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [{ displayName: 'Extra', name: 'extra', type: 'json', default: '{}' }] }],`),
		},
		{ name: 'not a .node.ts file', filename: 'nodes/Example/actions/common.ts', code: nodeClass(`properties: [{ displayName: 'Body', name: 'body', type: 'json', default: '{}' }],`) },
	],
	invalid: [
		{
			name: 'an optional top-level JSON field',
			filename: NODE_FILE,
			code: nodeClass(`properties: [{ displayName: 'Configuration', name: 'configuration', type: 'json', default: '{}' }],`),
			errors: [{ messageId: 'optionalJson' }],
		},
	],
});

run('non-required-fields-in-collection', {
	valid: [
		{
			name: 'required fields, selectors, notices and collections at the top level',
			filename: NODE_FILE,
			code: nodeClass(`properties: [
				{ displayName: 'Notice', name: 'notice', type: 'notice', default: '' },
				{ displayName: 'Resource', name: 'resource', type: 'options', options: [], default: 'a' },
				{ displayName: 'Operation', name: 'operation', type: 'options', options: [], default: 'b' },
				{ displayName: 'Email', name: 'email', type: 'string', required: true, default: '' },
				{ displayName: 'Flag', name: 'flag', type: 'boolean', required: isRequired, default: false },
				{ displayName: 'Additional Fields', name: 'additionalFields', type: 'collection', default: {}, options: [{ displayName: 'Limit', name: 'limit', type: 'number', default: 50 }] },
			],`),
		},
	],
	invalid: [
		{
			name: 'an optional field at the top level',
			filename: NODE_FILE,
			code: nodeClass(`properties: [{ displayName: 'Limit', name: 'limit', type: 'number', default: 50 }, { displayName: 'Tag', name: 'tag', type: 'string', required: false, default: '' }],`),
			errors: [
				{ messageId: 'nonRequiredFieldAtTopLevel', data: { field: 'limit' } },
				{ messageId: 'nonRequiredFieldAtTopLevel', data: { field: 'tag' } },
			],
		},
	],
});

const json = (value: unknown) => JSON.stringify(value, null, '\t');
const jsonOptions = { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } };

run('valid-node-categories', {
	valid: [
		{ name: 'the Storefront node categories', filename: CODEX_FILE, languageOptions: jsonOptions, code: json({ node: 'n8n-nodes-x.x', categories: ['Sales', 'Data & Storage'] }) },
		{ name: 'a codex without categories', filename: CODEX_FILE, languageOptions: jsonOptions, code: json({ node: 'n8n-nodes-x.x' }) },
		{ name: 'categories nested elsewhere do not count', filename: CODEX_FILE, languageOptions: jsonOptions, code: json({ resources: { categories: ['Bananas'] } }) },
		{ name: 'not a codex file', filename: 'package.json', languageOptions: jsonOptions, code: json({ categories: ['Bananas'] }) },
	],
	invalid: [
		{
			name: 'an unknown category, the old Marketing, a non-string and AI (these nodes have no AI subcategories)',
			filename: CODEX_FILE,
			languageOptions: jsonOptions,
			code: json({ categories: ['Development', 'Bananas', 'Marketing', 12, 'AI'] }),
			errors: [
				{ messageId: 'invalidCategory', data: { category: 'Bananas' } },
				{ messageId: 'marketingCategory' },
				{ messageId: 'invalidCategoryType' },
				{ messageId: 'invalidCategory', data: { category: 'AI' } },
			],
		},
		{
			name: 'an empty categories array',
			filename: CODEX_FILE,
			languageOptions: jsonOptions,
			code: json({ node: 'n8n-nodes-x.x', categories: [] }),
			errors: [{ messageId: 'invalidCategories' }],
		},
		{
			name: 'categories that are not an array',
			filename: CODEX_FILE,
			languageOptions: jsonOptions,
			code: json({ categories: 'Sales' }),
			errors: [{ messageId: 'invalidCategories' }],
		},
	],
});

describe('the local lint rules', () => {
	test('every rule has RuleTester cases above', () => {
		expect([...tested].sort()).toEqual(Object.keys(local.rules).sort());
	});

	test('`npm run lint` runs them after n8n-node lint, warnings included, over nodes and credentials', () => {
		const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
		expect(manifest.scripts.lint).toBe(
			'n8n-node lint && eslint --no-config-lookup -c dev/eslint-rules/lint.config.mjs --max-warnings 0 nodes credentials',
		);
	});

	test("this package's nodes, credentials and codex files pass every local rule", () => {
		const files = (dir: string): string[] =>
			readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) =>
				entry.isDirectory() ? files(path.posix.join(dir, entry.name)) : [path.posix.join(dir, entry.name)],
			);
		const linted = [...files('nodes'), ...files('credentials')].filter((file) => /(\.ts|\.node\.json)$/.test(file));
		expect(linted).toEqual(expect.arrayContaining(['nodes/Storefront/v1/StorefrontV1.ts', 'nodes/StorefrontTrigger/StorefrontTrigger.node.ts', 'nodes/Storefront/Storefront.node.json']));

		const linter = new Linter({ cwd: root });
		const config = local.configs(tsParser) as Linter.Config[];
		const problems = linted.flatMap((file) =>
			linter
				.verify(readFileSync(path.join(root, file), 'utf8'), config, { filename: path.join(root, file) })
				.map((m) => `${file}:${m.line}:${m.column} ${m.ruleId ?? 'parse'} ${m.message}`),
		);
		expect(problems).toEqual([]);
	});
});

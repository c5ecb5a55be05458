/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The local lint rules of dev/eslint-rules (checks of n8n's community-nodes lint plugin that its published version
// 0.32.0 does not run): each rule against code it must accept and code it must report, through ESLint's RuleTester;
// then the configuration `npm run lint` runs with them, over this package's own nodes, credentials and package.json.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
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

run('no-hardcoded-ids', {
	valid: [
		{ name: 'an id read from a parameter', filename: NODE_FILE, code: "const qs = { partner_id: this.getNodeParameter('partnerId', 0) };" },
		{ name: 'a name that is not an account id', filename: NODE_FILE, code: "const productId = 'prod_00001';" },
		{ name: 'not a node file', filename: 'nodes/Example/transport.ts', code: "const partnerId = 'fixed';" },
	],
	invalid: [
		{
			name: 'fixed ids in a variable, a property, a class field and assignments',
			filename: NODE_FILE,
			code: "const partnerId = 'p1';\nconst qs = { 'customer-id': 'c1' };\nclass A { tenantId = 't1'; }\nthis.accountId = 'a1';\nclientId = 'x';",
			errors: [
				{ messageId: 'hardcodedId', data: { name: 'partnerId' } },
				{ messageId: 'hardcodedId', data: { name: 'customer-id' } },
				{ messageId: 'hardcodedId', data: { name: 'tenantId' } },
				{ messageId: 'hardcodedId', data: { name: 'accountId' } },
				{ messageId: 'hardcodedId', data: { name: 'clientId' } },
			],
		},
	],
});

const json = (value: unknown) => JSON.stringify(value, null, '\t');
const jsonOptions = { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } };

run('no-monorepo', {
	valid: [
		{ name: 'a repository of its own', filename: 'package.json', languageOptions: jsonOptions, code: json({ name: 'n8n-nodes-x', repository: { type: 'git', url: 'https://github.com/x/n8n-nodes-x.git' } }) },
		{ name: 'a repository given as a string', filename: 'package.json', languageOptions: jsonOptions, code: json({ repository: 'github:x/n8n-nodes-x' }) },
	],
	invalid: [
		{
			name: 'repository.directory (a package in a monorepo)',
			filename: 'package.json',
			languageOptions: jsonOptions,
			code: json({ name: 'n8n-nodes-x', repository: { type: 'git', url: 'https://github.com/x/all.git', directory: 'packages/n8n-nodes-x' } }),
			errors: [{ messageId: 'monorepoNotSupported' }],
		},
	],
});

run('no-logic-or-flow-nodes', {
	valid: [
		{ name: 'other categories', filename: CODEX_FILE, languageOptions: jsonOptions, code: json({ categories: ['Sales', 'Data & Storage'] }) },
		{ name: 'not a codex file', filename: 'package.json', languageOptions: jsonOptions, code: json({ categories: ['Logic'] }) },
	],
	invalid: [
		{
			name: 'Logic in categories and Flow in subcategories',
			filename: CODEX_FILE,
			languageOptions: jsonOptions,
			code: json({ categories: ['Logic', 'Sales'], subcategories: { 'Core Nodes': ['Flow'] } }),
			errors: [{ messageId: 'logicOrFlowNode' }, { messageId: 'logicOrFlowNode' }],
		},
	],
});

run('valid-node-categories', {
	valid: [
		{ name: 'the Storefront node categories', filename: CODEX_FILE, languageOptions: jsonOptions, code: json({ node: 'n8n-nodes-x.x', categories: ['Sales', 'Data & Storage'] }) },
		{ name: 'AI with AI subcategories', filename: CODEX_FILE, languageOptions: jsonOptions, code: json({ categories: ['AI'], subcategories: { AI: ['Agents', 'Root Nodes'] } }) },
		{ name: 'a codex without categories', filename: CODEX_FILE, languageOptions: jsonOptions, code: json({ node: 'n8n-nodes-x.x' }) },
		{ name: 'categories nested elsewhere do not count', filename: CODEX_FILE, languageOptions: jsonOptions, code: json({ resources: { categories: ['Bananas'] } }) },
		{ name: 'an inline codex in a node class', filename: NODE_FILE, code: nodeClass("codex: { categories: ['Sales'] }, properties: [],") },
	],
	invalid: [
		{
			name: 'an unknown category and the old Marketing',
			filename: CODEX_FILE,
			languageOptions: jsonOptions,
			code: json({ categories: ['Development', 'Bananas', 'Marketing', 12] }),
			errors: [
				{ messageId: 'invalidCategory', data: { category: 'Bananas' } },
				{ messageId: 'marketingCategory' },
				{ messageId: 'invalidCategoryType' },
			],
		},
		{
			name: 'subcategories of a non-AI category (Storefront.node.json at HEAD)',
			filename: CODEX_FILE,
			languageOptions: jsonOptions,
			code: json({ categories: ['Sales', 'Data & Storage'], subcategories: { Sales: ['E-commerce'] } }),
			errors: [{ messageId: 'invalidSubcategories' }],
		},
		{
			name: 'AI without subcategories, and empty categories in a node class',
			filename: CODEX_FILE,
			languageOptions: jsonOptions,
			code: json({ categories: ['AI'] }),
			errors: [{ messageId: 'missingAiSubcategories' }],
		},
		{
			name: 'an empty categories array in an inline codex',
			filename: NODE_FILE,
			code: nodeClass('codex: { categories: [] }, properties: [],'),
			errors: [{ messageId: 'invalidCategories' }],
		},
		{
			name: 'an unknown AI subcategory',
			filename: CODEX_FILE,
			languageOptions: jsonOptions,
			code: json({ categories: ['AI'], subcategories: { AI: ['Agents & Tools'] } }),
			errors: [{ messageId: 'invalidAiSubcategory', data: { subcategory: 'Agents & Tools' } }],
		},
	],
});

run('single-credential-per-node', {
	valid: [
		{ name: 'one credential', filename: NODE_FILE, code: nodeClass("credentials: [{ name: 'exampleApi', required: true }], properties: [],") },
		{
			name: 'alternatives shown for different values of one single-value property (literals and a local enum)',
			filename: NODE_FILE,
			code:
				"enum Auth { Key = 'apiKey', OAuth = 'oAuth2' }\n" +
				nodeClass(`credentials: [
					{ name: 'exampleApi', required: true, displayOptions: { show: { authentication: [Auth.Key] } } },
					{ name: 'exampleOAuth2Api', required: true, displayOptions: { show: { authentication: ['oAuth2', 'legacyOAuth'] } } },
				],
				properties: [{ displayName: 'Authentication', name: 'authentication', type: 'options', options: [], default: 'apiKey' }],`),
		},
	],
	invalid: [
		{
			name: 'two credentials at once',
			filename: NODE_FILE,
			code: nodeClass("credentials: [{ name: 'exampleApi', required: true }, { name: 'senderProfile', required: true }], properties: [],"),
			errors: [{ messageId: 'multipleCredentials' }],
		},
		{
			name: 'different values of a multiOptions property can be chosen together',
			filename: NODE_FILE,
			code: nodeClass(`credentials: [
					{ name: 'aApi', displayOptions: { show: { auth: ['a'] } } },
					{ name: 'bApi', displayOptions: { show: { auth: ['b'] } } },
				],
				properties: [{ displayName: 'Auth', name: 'auth', type: 'multiOptions', options: [], default: [] }],`),
			errors: [{ messageId: 'multipleCredentials' }],
		},
		{
			name: 'a value that cannot be compared',
			filename: NODE_FILE,
			code: nodeClass(`credentials: [
					{ name: 'aApi', displayOptions: { show: { auth: [pick()] } } },
					{ name: 'bApi', displayOptions: { show: { auth: ['b'] } } },
				], properties: [],`),
			errors: [{ messageId: 'multipleCredentials' }],
		},
	],
});

const perItemRequest = (extra = '') =>
	withExecute(`
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const id = this.getNodeParameter('id', i) as string;
			${extra}
			const response = await this.helpers.httpRequestWithAuthentication.call(this, 'exampleApi', { url: 'https://example.com/' + id });
			out.push({ json: response });
		}
		return [out];`);

run('prefer-declarative-style', {
	valid: [
		{ name: 'pagination is an escape hatch', filename: NODE_FILE, code: perItemRequest("const returnAll = this.getNodeParameter('returnAll', i);") },
		{ name: 'other work in the loop is an escape hatch', filename: NODE_FILE, code: perItemRequest('transform(id);') },
		{ name: 'not a .node.ts file', filename: 'nodes/Example/v1/ExampleV1.ts', code: perItemRequest() },
		{
			name: 'a trigger node',
			filename: 'nodes/ExampleTrigger/ExampleTrigger.node.ts',
			code: perItemRequest().replace('export class Example ', 'export class ExampleTrigger '),
		},
	],
	invalid: [
		{ name: 'one request per input item and nothing else', filename: NODE_FILE, code: perItemRequest(), errors: [{ messageId: 'preferDeclarativeStyle' }] },
	],
});

// icon-contrast reads the SVG files: the package's own icons, and fixtures written to a temporary directory.
const fixtures = mkdtempSync(path.join(tmpdir(), 'storefront-lint-icons-'));
writeFileSync(path.join(fixtures, 'black.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0h10v10H0z"/></svg>');
writeFileSync(path.join(fixtures, 'white.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10" style="fill: #fff"/></svg>');
writeFileSync(
	path.join(fixtures, 'styled.svg'),
	'<svg xmlns="http://www.w3.org/2000/svg"><style>.a { fill: #eeeeee; }</style><rect class="a" fill="none" width="9" height="9"/></svg>',
);
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));
const iconNode = (icon: string) => nodeClass(`icon: ${icon}, properties: [],`);
const credentialWithIcon = (icon: string) =>
	`import type { ICredentialType, Icon } from 'n8n-workflow';\nexport class ExampleApi implements ICredentialType { name = 'exampleApi'; icon: Icon = ${icon}; properties = []; }`;

run('icon-contrast', {
	valid: [
		{
			name: "the Storefront credential's own light and dark icons",
			filename: path.join(root, 'credentials/StorefrontApi.credentials.ts'),
			code: credentialWithIcon("{ light: 'file:storefront.svg', dark: 'file:storefront.dark.svg' }"),
		},
		{
			name: 'black for the light theme, white for the dark one',
			filename: path.join(fixtures, 'Example.node.ts'),
			code: iconNode("{ light: 'file:black.svg', dark: 'file:white.svg' }"),
		},
		{ name: 'a missing file is not this rule’s to report', filename: path.join(fixtures, 'Example.node.ts'), code: iconNode("'file:missing.svg'") },
	],
	invalid: [
		{
			name: 'one black icon for both themes (1.48:1 on the dark background)',
			filename: path.join(fixtures, 'Example.node.ts'),
			code: iconNode("'file:black.svg'"),
			errors: [{ messageId: 'lowContrast', data: { theme: 'dark', ratio: '1.48', minimum: '1.5' } }],
		},
		{
			name: 'a near-white fill from a <style> block on the light theme',
			filename: path.join(fixtures, 'ExampleApi.credentials.ts'),
			code: credentialWithIcon("{ light: 'file:styled.svg', dark: 'file:white.svg' }"),
			errors: [{ messageId: 'lowContrast', data: { theme: 'light', ratio: '1.16', minimum: '1.5' } }],
		},
		{
			name: 'the WCAG 3:1 target for graphics as the minimum',
			filename: path.join(root, 'credentials/StorefrontApi.credentials.ts'),
			options: [{ minimum: 20 }],
			code: credentialWithIcon("'file:storefront.svg'"),
			errors: [
				{ messageId: 'lowContrast', data: { theme: 'light', ratio: '6.29', minimum: '20' } },
				{ messageId: 'lowContrast', data: { theme: 'dark', ratio: '14.16', minimum: '20' } },
			],
		},
	],
});

describe('the local lint rules', () => {
	test('every rule has RuleTester cases above', () => {
		expect([...tested].sort()).toEqual(Object.keys(local.rules).sort());
	});

	test('`npm run lint` runs them after n8n-node lint, warnings included, over nodes, credentials and package.json', () => {
		const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
		expect(manifest.scripts.lint).toBe(
			'n8n-node lint && eslint --no-config-lookup -c dev/eslint-rules/lint.config.mjs --max-warnings 0 nodes credentials package.json',
		);
	});

	test("this package's nodes, credentials, codex files and package.json pass every local rule", () => {
		const files = (dir: string): string[] =>
			readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) =>
				entry.isDirectory() ? files(path.posix.join(dir, entry.name)) : [path.posix.join(dir, entry.name)],
			);
		const linted = [...files('nodes'), ...files('credentials'), 'package.json'].filter((file) => /(\.ts|\.node\.json|^package\.json)$/.test(file));
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

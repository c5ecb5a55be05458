/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The local lint rule of dev/eslint-rules (a check of n8n's that its published tooling does not run in a form that
// sees this package's execute()): against code it must accept and code it must report, through ESLint's RuleTester;
// then the configuration `npm run lint` runs with it, over this package's own nodes and credentials.
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
	nodeClass(
		'properties: [],',
		`async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {\n${executeBody}\n}`,
	);

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
			code: withExecute('return await router.call(this, this.continueOnFail());'),
		},
		{
			name: 'continueOnFail called in a function nested in execute',
			code: withExecute(
				'const run = async () => { if (this.continueOnFail()) return [[]]; throw new Error("x"); }; return await run();',
			),
		},
		{
			name: 'a class that is not a node',
			code: 'export class Helper { async execute() { return [[]]; } }',
		},
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

describe('the local lint rule', () => {
	test('every rule has RuleTester cases above', () => {
		expect([...tested].sort()).toEqual(Object.keys(local.rules).sort());
	});

	test('`npm run lint` runs them after n8n-node lint, warnings included, over nodes and credentials, then Prettier and knip (no unused export or file in nodes/ and credentials/)', () => {
		const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
		expect(manifest.scripts.lint).toBe(
			'n8n-node lint && eslint --no-config-lookup -c dev/eslint-rules/lint.config.mjs --max-warnings 0 nodes credentials && prettier --check . && knip --include exports,types,files',
		);
	});

	test("this package's nodes and credentials pass it", () => {
		const files = (dir: string): string[] =>
			readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) =>
				entry.isDirectory()
					? files(path.posix.join(dir, entry.name))
					: [path.posix.join(dir, entry.name)],
			);
		const linted = [...files('nodes'), ...files('credentials')].filter((file) =>
			file.endsWith('.ts'),
		);
		expect(linted).toEqual(
			expect.arrayContaining([
				'nodes/Storefront/v1/StorefrontV1.ts',
				'nodes/StorefrontTrigger/StorefrontTrigger.node.ts',
			]),
		);

		const linter = new Linter({ cwd: root });
		const config = local.configs(tsParser) as Linter.Config[];
		const problems = linted.flatMap((file) =>
			linter
				.verify(readFileSync(path.join(root, file), 'utf8'), config, {
					filename: path.join(root, file),
				})
				.map((m) => `${file}:${m.line}:${m.column} ${m.ruleId ?? 'parse'} ${m.message}`),
		);
		expect(problems).toEqual([]);
	});
});

/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The rows of docs/verification.md that a program can check: n8n's written rules for verified community nodes
// (verification guidelines, codex files, UX guidelines, the n8n-node scaffold's package.json), checked on the source
// of both nodes (every version) and the credentials. Each test names the checklist row it proves.
import { readdirSync, readFileSync } from 'fs';
import type {
	INodeProperties,
	INodePropertyCollection,
	INodePropertyOptions,
	INodeTypeDescription,
} from 'n8n-workflow';
import path from 'path';

import { StorefrontApi } from '../../credentials/StorefrontApi.credentials';
import { Storefront } from '../../nodes/Storefront/Storefront.node';
import { StorefrontPollingTrigger } from '../../nodes/StorefrontPollingTrigger/StorefrontPollingTrigger.node';
import { StorefrontTrigger } from '../../nodes/StorefrontTrigger/StorefrontTrigger.node';
import { assertDocTargetExists, REPO_ROOT, REPO_URL } from '../helpers/docLinks';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json'));

/** Every version's description of every node. */
const descriptions: INodeTypeDescription[] = [
	...Object.values(new Storefront().nodeVersions).map((node) => node.description),
	new StorefrontTrigger().description,
	new StorefrontPollingTrigger().description,
];

/** The codex files next to each node, as n8n reads them (`<Node>.node.json`). */
const codexFiles = [
	'nodes/Storefront/Storefront.node.json',
	'nodes/StorefrontPollingTrigger/StorefrontPollingTrigger.node.json',
	'nodes/StorefrontTrigger/StorefrontTrigger.node.json',
];
const codexes = codexFiles.map((file) => ({ file, codex: JSON.parse(read(file)) }));

/** Every parameter of a description, those inside collections and fixed collections included. */
function allProperties(
	properties: Array<INodeProperties | INodePropertyCollection | INodePropertyOptions>,
): INodeProperties[] {
	const found: INodeProperties[] = [];
	for (const property of properties) {
		if ('type' in property && 'default' in property) found.push(property);
		if ('options' in property && Array.isArray(property.options))
			found.push(...allProperties(property.options));
		if ('values' in property && Array.isArray(property.values))
			found.push(...allProperties(property.values));
	}
	return found;
}

test("Codex files: one per node, named after it, for this package, categories from n8n's list and no subcategories", () => {
	// n8n docs, "Node codex files": the categories to choose from. Subcategories are n8n's own (Core Nodes, HITL,
	// Helpers, AI); of n8n 2.41.1's 436 built-in codex files, no app node has any.
	const categories = [
		'Data & Storage',
		'Finance & Accounting',
		'Marketing & Content',
		'Productivity',
		'Miscellaneous',
		'Sales',
		'Development',
		'Analytics',
		'Communication',
		'Utility',
	];
	const nodeFiles = pkg.n8n.nodes.map((file: string) =>
		file.replace(/^dist\//, '').replace(/\.js$/, '.json'),
	);
	expect(nodeFiles.sort()).toEqual([...codexFiles].sort());
	for (const { file, codex } of codexes) {
		const name = path.basename(file, '.node.json');
		expect(codex.node).toBe(`${pkg.name}.${name.charAt(0).toLowerCase()}${name.slice(1)}`);
		expect(codex.codexVersion).toBe('1.0');
		expect(codex.categories.length).toBeGreaterThan(0);
		for (const category of codex.categories) expect(categories).toContain(category);
		expect(codex).not.toHaveProperty('subcategories');
	}
});

test('Docs links: every documentation URL of codex files, credentials and nodes opens an existing page and heading here', () => {
	const urls = [
		...codexes.flatMap(({ codex }) =>
			[...codex.resources.primaryDocumentation, ...codex.resources.credentialDocumentation].map(
				(r: { url: string }) => r.url,
			),
		),
		new StorefrontApi().documentationUrl,
		...descriptions
			.map((d) => d.documentationUrl)
			.filter((url): url is string => typeof url === 'string'),
	];
	expect(urls.length).toBeGreaterThanOrEqual(5);
	for (const url of urls) {
		expect(url.startsWith(REPO_URL)).toBe(true);
		expect(() => assertDocTargetExists(url)).not.toThrow();
	}
	// Each node opens its own page, not the README's top.
	expect(codexes.map(({ codex }) => codex.resources.primaryDocumentation[0].url)).toEqual([
		`${REPO_URL}/blob/main/docs/storefront-node.md`,
		`${REPO_URL}/blob/main/docs/polling-trigger.md`,
		`${REPO_URL}/blob/main/docs/trigger.md`,
	]);
	// And the check is real: a heading that does not exist fails it.
	expect(() => assertDocTargetExists(`${REPO_URL}#storefront-node`)).toThrow();
});

test('No external dependencies: nothing at run time but n8n-workflow, a peer', () => {
	expect(pkg.dependencies ?? {}).toEqual({});
	expect(pkg.optionalDependencies ?? {}).toEqual({});
	expect(pkg.bundleDependencies ?? pkg.bundledDependencies ?? []).toEqual([]);
	expect(Object.keys(pkg.peerDependencies)).toEqual(['n8n-workflow']);
});

test('Package source: MIT, the GitHub repository in every link, provenance and the n8n-node guard on publish', () => {
	expect(pkg.license).toBe('MIT');
	expect(read('LICENSE.md')).toMatch(/^MIT License/m);
	expect(pkg.repository.url).toBe(`git+${REPO_URL}.git`);
	expect(pkg.homepage.startsWith(REPO_URL)).toBe(true);
	expect(pkg.keywords).toContain('n8n-community-node-package');
	expect(pkg.publishConfig).toEqual({ provenance: true });
	expect(pkg.scripts.prepublishOnly).toBe('n8n-node prerelease');
});

test('The n8n-node tool: lint is n8n-node lint (strict), and npm run dev is there', () => {
	expect(pkg.n8n.strict).toBe(true);
	expect(pkg.scripts.lint).toMatch(/^n8n-node lint( |$)/);
	expect(pkg.scripts.dev).toBeDefined();
	expect(pkg.scripts.build).toBeDefined();
});

test("Documentation: the README has the sections of n8n's template, usage examples and example workflows", () => {
	const readme = read('README.md');
	const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1].trim());
	for (const section of ['Installation', 'Operations', 'Credentials', 'Compatibility', 'Resources'])
		expect(sections).toContain(section);
	// n8n's optional "Usage" section: the quick start.
	expect(sections.some((s) => /^Quick start/.test(s))).toBe(true);
	const examples = readdirSync(path.join(REPO_ROOT, 'examples')).filter((f) => f.endsWith('.json'));
	expect(examples.length).toBeGreaterThan(0);
	expect(readme).toContain('examples/');
});

test('UX: action names in sentence case without articles; placeholders start with "e.g."; booleans start with "Whether"', () => {
	const actions: string[] = [];
	const placeholders: string[] = [];
	const booleans: string[] = [];
	for (const description of descriptions) {
		for (const property of allProperties(description.properties)) {
			for (const option of (property.options ?? []) as INodePropertyOptions[])
				if (typeof option.action === 'string') actions.push(option.action);
			// A collection's placeholder is its button ("Add Option"); a list's is n8n's "Select …": neither is an example.
			if (
				property.placeholder &&
				!['collection', 'fixedCollection', 'resourceLocator'].includes(property.type)
			)
				placeholders.push(property.placeholder);
			if (property.type === 'boolean' && property.description) booleans.push(property.description);
		}
	}
	expect(actions.length).toBeGreaterThanOrEqual(10);
	for (const action of new Set(actions)) {
		expect(action).not.toMatch(/\b(a|an|the)\b/i);
		expect(action).toMatch(/^[A-Z][a-z]+( [a-z]+)*$/);
	}
	expect(placeholders.length).toBeGreaterThan(0);
	for (const placeholder of placeholders) expect(placeholder).toMatch(/^e\.g\. /);
	const credential = new StorefrontApi().properties.filter((p) => p.placeholder);
	for (const property of credential) expect(property.placeholder).toMatch(/^e\.g\. /);
	for (const text of booleans) expect(text).toMatch(/^Whether /);
});

test("UX: hints are short nudges (at most 120 characters, n8n's hint-max-length), longer text goes in the description", () => {
	const hinted = descriptions.flatMap((d) =>
		allProperties(d.properties)
			.filter((p) => p.hint)
			.map((p) => ({ where: `${d.name}.${p.name}`, hint: String(p.hint) })),
	);
	expect(hinted.length).toBeGreaterThan(5);
	expect(hinted.filter(({ hint }) => hint.length > 120)).toEqual([]);
});

test("UX: every description, hint and notice the editor shows is one or two short sentences (at most 200 characters); the AI tools' descriptions, written for the model, are exempt", () => {
	const shown: Array<{ where: string; text: string }> = [];
	const collect = (where: string, options: unknown[]) => {
		for (const option of options as Array<Record<string, unknown>>) {
			const at = `${where}.${String(option.name ?? option.value)}`;
			// A notice shows its displayName as its text; a tool description's default is the model's, not the user's.
			if (option.type === 'notice') shown.push({ where: at, text: String(option.displayName) });
			for (const key of ['description', 'hint', 'action'])
				if (typeof option[key] === 'string')
					shown.push({ where: `${at}.${key}`, text: option[key] as string });
			// A resource mapper's match field shows its own description (tooltip) and hint.
			const labels =
				(
					option.typeOptions as
						| { resourceMapper?: { matchingFieldsLabels?: Record<string, unknown> } }
						| undefined
				)?.resourceMapper?.matchingFieldsLabels ?? {};
			for (const key of ['description', 'hint'])
				if (typeof labels[key] === 'string')
					shown.push({ where: `${at}.matchingFields.${key}`, text: labels[key] as string });
			for (const nested of ['options', 'values'])
				if (Array.isArray(option[nested])) collect(at, option[nested] as unknown[]);
		}
	};
	for (const description of descriptions) {
		shown.push({ where: `${description.name}.description`, text: description.description });
		collect(description.name, description.properties);
	}
	collect('credentials', new StorefrontApi().properties);
	expect(
		shown.filter(({ where }) => where.includes('.notice') || where.endsWith('Notice')),
	).not.toHaveLength(0);
	expect(shown.length).toBeGreaterThan(100);
	expect(shown.filter(({ text }) => text.length > 200)).toEqual([]);
	// In a no-code user's words: no node version, no figure of CI, no n8n internal; a dependency between options is
	// shown by the editor (displayOptions), not written out.
	const names = (options: unknown[]): string[] =>
		(options as Array<Record<string, unknown>>).flatMap((option) => [
			String(option.displayName ?? option.name),
			...['options', 'values'].flatMap((nested) =>
				Array.isArray(option[nested]) ? names(option[nested] as unknown[]) : [],
			),
		]);
	const words = [
		...shown.map(({ text }) => text),
		...descriptions.flatMap((description) => [
			String(description.subtitle ?? ''),
			...names(description.properties),
		]),
	];
	const unknownToUsers =
		/\bversion \d|\bv\d+\.\d|\bCI\b|\bsuite\b|static data|isolate|WorkflowRunner|N8N_[A-Z_]+|processed.data|expression engine|\bNeeds [A-Z]/;
	expect(words.filter((text) => unknownToUsers.test(text))).toEqual([]);
});

test("UX: a JSON parameter at the top level is required (n8n's open-ended-node-fields); optional JSON lives in a collection", () => {
	const json = descriptions.flatMap((d) =>
		d.properties
			.filter((p) => p.type === 'json')
			.map((p) => ({ node: d.name, name: p.name, required: p.required === true })),
	);
	expect(json.filter((p) => !p.required)).toEqual([]);
	const nested = descriptions.flatMap((d) =>
		allProperties(d.properties).filter((p) => p.type === 'json'),
	);
	expect(nested.map((p) => p.name)).toContain('extraFields');
});

test('UX: every resource locator offers From list first and by default', () => {
	const locators = descriptions
		.flatMap((d) => allProperties(d.properties))
		.filter((p) => p.type === 'resourceLocator');
	expect(locators.length).toBeGreaterThanOrEqual(2);
	for (const locator of locators) {
		expect((locator.default as { mode: string }).mode).toBe('list');
		expect((locator.modes ?? [])[0]?.name).toBe('list');
	}
});

test('UX: API key is a password field; Get Many of products (13 fields a record) offers Simplify', () => {
	const apiKey = new StorefrontApi().properties.find((p) => p.name === 'apiKey')!;
	expect(apiKey.typeOptions?.password).toBe(true);
	for (const description of Object.values(new Storefront().nodeVersions).map(
		(node) => node.description,
	)) {
		const simplify = description.properties.filter(
			(p) =>
				p.name === 'simplify' &&
				p.displayOptions?.show?.resource?.includes('product') &&
				p.displayOptions?.show?.operation?.includes('getAll'),
		);
		// One for the node, one or two for the tool variant (its default depends on the version).
		expect(
			simplify.some((p) => JSON.stringify(p.displayOptions?.show?.['@tool']) === '[false]'),
		).toBe(true);
		for (const p of simplify) expect(p.displayName).toBe('Simplify');
	}
});

test('English and no file system or environment in node code (the analyser checks the built files too)', () => {
	const sources = ['nodes', 'credentials'].flatMap((dir) =>
		(readdirSync(path.join(REPO_ROOT, dir), { recursive: true }) as string[])
			.filter((f) => f.endsWith('.ts'))
			.map((f) => path.join(dir, f)),
	);
	expect(sources.length).toBeGreaterThan(10);
	for (const file of sources) {
		const text = read(file);
		expect(
			`${file}: ${/\bprocess\.|\brequire\(['"]fs['"]\)|from ['"](node:)?fs['"]/.test(text)}`,
		).toBe(`${file}: false`);
	}
});

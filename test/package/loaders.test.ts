/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The built package through both of n8n's loaders, as n8n runs them at start (n8n-core's own classes):
// - the custom-folder loader (N8N_CUSTOM_EXTENSIONS, ~/.n8n/custom) globs EVERY `*.node.js` and `*.credentials.js`
//   below the folder and constructs the class named like the file with no arguments; one failure stops n8n;
// - the community-package loader (~/.n8n/nodes/node_modules/<name>) reads the lists in package.json.
// Needs `npm run build` (npm test does it).
import { readdirSync } from 'fs';
import path from 'path';

import { core } from '../helpers/core';

const root = path.resolve(__dirname, '../..');
const dist = path.join(root, 'dist');

/** Every file below dist/ that the custom-folder loader picks up (its globs, written out). */
function customLoaderFiles(dir = dist): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory()) return customLoaderFiles(file);
		return /\.(node|credentials)\.js$/.test(entry.name) ? [file] : [];
	});
}

describe("n8n's custom-folder loader (N8N_CUSTOM_EXTENSIONS) on dist/", () => {
	it('constructs every *.node.js and *.credentials.js it finds, with no arguments, by the class named like the file', () => {
		const files = customLoaderFiles();
		expect(files.length).toBeGreaterThanOrEqual(3);
		for (const file of files) {
			const className = path.basename(file).split('.')[0];
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const exported = require(file)[className];
			expect({ file: path.relative(root, file), type: typeof exported }).toEqual({
				file: path.relative(root, file),
				type: 'function',
			});
			const instance = new exported();
			expect(instance.description?.name ?? instance.name).toEqual(expect.any(String));
		}
	});

	it('loads the package as n8n does and registers exactly our three nodes and one credential', async () => {
		const loader = new core.CustomDirectoryLoader(dist);
		await loader.loadAll();
		expect(Object.keys(loader.known.nodes).sort()).toEqual([
			'storefront',
			'storefrontPollingTrigger',
			'storefrontTrigger',
		]);
		expect(Object.keys(loader.known.credentials)).toEqual(['storefrontApi']);
		// The versioned action node, not a bare version class, is what is registered.
		const action = loader.getNode('storefront').type;
		expect('nodeVersions' in action).toBe(true);
		// One version per node, as first published (a behaviour change from here on is a new version).
		const names = loader.types.nodes.map((d) => `${d.name}@${JSON.stringify(d.version)}`);
		expect(names.sort()).toEqual([
			'storefront@1',
			'storefrontPollingTrigger@1',
			'storefrontTrigger@2',
		]);
	});
});

describe("n8n's community-package loader (package.json lists)", () => {
	it('loads the same nodes and credential from the package root', async () => {
		const loader = new core.PackageDirectoryLoader(root);
		await loader.loadAll();
		expect(Object.keys(loader.known.nodes).sort()).toEqual([
			'storefront',
			'storefrontPollingTrigger',
			'storefrontTrigger',
		]);
		expect(Object.keys(loader.known.credentials)).toEqual(['storefrontApi']);
	});
});

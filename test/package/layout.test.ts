/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The layout docs/development.md describes, held against the code: each node imports only its own folder and
// nodes/shared/ (what more than one node uses), nodes/shared/ imports no node, and every file reads in a sitting.
import { readdirSync, readFileSync } from 'fs';
import path from 'path';

const nodesDir = path.resolve(__dirname, '../../nodes');

function sourceFiles(dir = nodesDir): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(file);
		return entry.name.endsWith('.ts') ? [file] : [];
	});
}

/** The top folder under nodes/ a file or an import lands in: a node's name, or "shared". */
const homeOf = (file: string) => path.relative(nodesDir, file).split(path.sep)[0];

/** Every relative module a file imports or re-exports, resolved to a path. */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const specifiers = [...text.matchAll(/\b(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
	return specifiers.map((specifier) => path.resolve(path.dirname(file), specifier));
}

const files = sourceFiles();

test('a node imports only its own folder and nodes/shared/; nodes/shared/ imports no node', () => {
	expect(files.length).toBeGreaterThan(30);
	const crossings: string[] = [];
	for (const file of files) {
		const home = homeOf(file);
		for (const target of importsOf(file)) {
			const where = homeOf(target);
			const allowed = home === 'shared' ? where === 'shared' : where === home || where === 'shared';
			if (!allowed)
				crossings.push(`${path.relative(nodesDir, file)} → ${path.relative(nodesDir, target)}`);
		}
	}
	expect(crossings).toEqual([]);
	// The parts more than one node uses live there: the transport, the change reader, the lists, the clock.
	const shared = files
		.filter((file) => homeOf(file) === 'shared')
		.map((file) => path.relative(nodesDir, file));
	expect(shared).toEqual(
		expect.arrayContaining([
			'shared/transport/client.ts',
			'shared/changes/read.ts',
			'shared/constants.ts',
			'shared/clock.ts',
		]),
	);
});

test("the webhook trigger's node file reads in one screen (at most 250 lines); no file in nodes/ is over 400 lines", () => {
	const lines = (file: string) => readFileSync(file, 'utf8').split('\n').length;
	expect(
		lines(path.join(nodesDir, 'StorefrontTrigger/StorefrontTrigger.node.ts')),
	).toBeLessThanOrEqual(250);
	expect(
		files.filter((file) => lines(file) > 400).map((file) => path.relative(nodesDir, file)),
	).toEqual([]);
});

test("no code under nodes/ branches on a node's version: each node has one, and it holds every behaviour", () => {
	const branching = files.filter((file) => /typeVersion|@version/.test(readFileSync(file, 'utf8')));
	expect(branching.map((file) => path.relative(nodesDir, file))).toEqual([]);
});

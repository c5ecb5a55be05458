/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; the scripts are plain CommonJS */
// README's "Compatibility" table is what the matrix measured: it is generated from docs/compatibility.json, and that
// record must cover every cell the matrix runs, green, for exactly the pinned n8n versions.
import { readFileSync } from 'fs';
import path from 'path';

const root = path.resolve(__dirname, '../..');
const compatibility = require('../../scripts/compatibility') as {
	CELLS: string[];
	projectsOf(mode: string, install: string, profile?: string, line?: string): string[];
	RECORD: string;
	README: string;
	render(record: unknown): string;
	section(readme: string): string;
};
const prepare = require('../../dev/n8n/prepare') as {
	LINES: Record<string, unknown>;
	describe(line: string): { version: string };
};
const runtime = require('../../dev/n8n/runtime') as { INSTALLS: string[] };

interface Row {
	cell: string;
	line: string;
	install: string;
	mode?: string;
	profile?: string;
	projects: string[];
	n8n: string;
	passed: number;
	failed: number;
	startupSeconds: number;
}
const record = JSON.parse(readFileSync(compatibility.RECORD, 'utf8')) as { rows: Row[] };

test('the record is a run of every cell the matrix has, each with the suites the matrix gives it, green', () => {
	// A new cell or suite makes this fail until `node scripts/matrix.js --record` (every .ci/run) measured it.
	expect(record.rows.map((r) => r.cell)).toEqual(compatibility.CELLS);
	for (const row of record.rows) {
		expect({ cell: row.cell, projects: row.projects }).toEqual({
			cell: row.cell,
			projects: compatibility.projectsOf(row.mode ?? 'single', row.install, row.profile, row.line),
		});
		expect({ cell: row.cell, failed: row.failed, passed: row.passed > 0 }).toEqual({
			cell: row.cell,
			failed: 0,
			passed: true,
		});
	}
});

test('the README table is generated from docs/compatibility.json', () => {
	const readme = readFileSync(compatibility.README, 'utf8');
	expect(compatibility.section(readme)).toBe(compatibility.render(record));
});

test('the record covers every n8n line x install path, green, at the pinned versions', () => {
	const cells = Object.keys(prepare.LINES).flatMap((line) =>
		runtime.INSTALLS.map((install) => `${line}/${install}`),
	);
	expect(record.rows.map((r) => `${r.line}/${r.install}`).sort()).toEqual(
		expect.arrayContaining(cells.sort()),
	);
	for (const row of record.rows.filter((r) => cells.includes(`${r.line}/${r.install}`))) {
		expect({ cell: `${row.line}/${row.install}`, n8n: row.n8n }).toEqual({
			cell: `${row.line}/${row.install}`,
			n8n: prepare.describe(row.line).version,
		});
		expect(row.failed).toBe(0);
		expect(row.passed).toBeGreaterThan(0);
	}
});

test('the oldest supported n8n the README and package.json state is the oldest version the matrix ran', () => {
	const versions = record.rows.map((r) => r.n8n.split('.').map(Number));
	versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
	const oldest = versions[0].join('.');
	expect(readFileSync(compatibility.README, 'utf8')).toContain(
		`**Oldest supported n8n: ${oldest}**`,
	);
	const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
	expect(manifest.description).toContain(`n8n ${oldest}`);
});

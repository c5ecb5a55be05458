#!/usr/bin/env node
// @ts-check
// The compatibility matrix: the whole e2e suite (test/e2e, the same assertions in every cell) and the AI Agent suite
// (test/ai: an agent with Storefront tools and a scripted model) in a real n8n for each n8n line × install path, each
// cell in its own n8n process with its own user folder and database; plus the queue-mode cell 2/community/queue: the
// same two suites on n8n's distributed engine (main + webhook processor + 2 workers, Postgres, Redis:
// dev/n8n/queue.js) and the queue suite (test/queue: workers, volume, duplicates); plus the registry cells, where n8n
// installs the package by name from a local npm registry (test/registry; 2/registry/queue: every process does). Prints
// a summary table (cell, n8n and Node versions, tests passed/failed, n8n start-up time, wall time) and the queue
// cell's counts, and writes them to artifacts/matrix.json.
//   node scripts/matrix.js [--cells 2/community,1/custom,2/community/queue] [--json-dir DIR] [--record]
// --json-dir  also keep each cell's jest JSON there (.ci/run counts them)
// --record    after a green run, write docs/compatibility.json and regenerate README's "Compatibility" table
//             from it (scripts/compatibility.js): the README states what was measured, not a claim.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const { prepare, LINES } = require('../dev/n8n/prepare');
const { INSTALLS } = require('../dev/n8n/runtime');
const { INSTALL_LABELS, projectsOf, writeRecord } = require('./compatibility');

/** Execution modes: one n8n process on SQLite, or queue mode. */
const MODES = ['single', 'queue'];
/** Every cell: each n8n line (newest first) × each install path, then queue mode on the pinned 2.x, copied and from a registry. */
const ALL = Object.keys(LINES)
	.sort()
	.reverse()
	.flatMap((line) => INSTALLS.map((install) => `${line}/${install}`))
	.concat('2/community/queue', '2/registry/queue');

function option(/** @type {string} */ name) {
	const at = process.argv.indexOf(name);
	return at >= 0 ? process.argv[at + 1] : undefined;
}

function main() {
	const cells = (option('--cells') || ALL.join(',')).split(',');
	const jsonDir = option('--json-dir') || fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-matrix-'));
	fs.mkdirSync(jsonDir, { recursive: true });
	/** @type {any[]} */
	const rows = [];
	/** @type {string[]} what the AI suite measured per cell (printed, not recorded) */
	const aiFigures = [];
	/** @type {string[]} what the registry suite counted per cell: the update during deliveries, the uninstalled answer */
	const registryFigures = [];
	for (const cell of cells) {
		const [line, install, mode = 'single'] = cell.split('/');
		if (!(line in LINES) || !INSTALLS.includes(install) || !MODES.includes(mode)) throw new Error(`unknown cell ${cell} (known: ${ALL.join(', ')})`);
		const rt = prepare({ line, log: (text) => console.log(`[matrix ${cell}] ${text}`) });
		const id = `e2e-n8n${line}-${install}${mode === 'single' ? '' : `-${mode}`}`;
		const outputFile = path.join(jsonDir, `${id}.json`);
		const report = path.join(jsonDir, `${id}.report.json`);
		fs.rmSync(report, { force: true });
		console.log(`\n=== matrix cell ${cell}: n8n ${rt.version} on Node ${rt.nodeVersion}, ${INSTALL_LABELS[install]}${mode === 'queue' ? ', queue mode' : ''}`);
		const started = Date.now();
		const r = spawnSync(
			process.execPath,
			[require.resolve('jest/bin/jest'), '--selectProjects', ...projectsOf(mode, install), '--runInBand', '--ci', '--json', `--outputFile=${outputFile}`],
			{ cwd: ROOT, stdio: 'inherit', env: { ...process.env, E2E_N8N_LINE: line, E2E_INSTALL: install, E2E_N8N_MODE: mode, E2E_REPORT: report } },
		);
		const seconds = (Date.now() - started) / 1000;
		let passed = 0;
		let failed = 0;
		try {
			const result = JSON.parse(fs.readFileSync(outputFile, 'utf8'));
			passed = result.numPassedTests;
			failed = result.numFailedTests + result.numRuntimeErrorTestSuites;
		} catch {
			failed = 1; // jest died before writing results
		}
		if (r.status !== 0 && failed === 0) failed = 1;
		/** @type {{startupMs?: number, version?: string, volume?: any, duplicates?: any, [key: string]: any}} */
		let info = {};
		try {
			info = JSON.parse(fs.readFileSync(report, 'utf8'));
		} catch {}
		for (const format of ['chat', 'responses']) {
			const list = info[`aiListBytes_${format}`];
			if (list) aiFigures.push(`  ${cell} (${format} API): ${list.orders} orders in ${list.bytes} bytes; as full records ${list.fullBytes} bytes`);
		}
		const update = info.registryUpdate;
		if (update) {
			const line = (/** @type {any} */ c) => `sent ${c.sent}, acknowledged ${c.acknowledged}, run ${c.run}, run twice ${c.runTwice}, lost ${c.lost}, retried by the sender ${c.retried}`;
			const again = update.redeliveredAfter;
			registryFigures.push(
				`  ${cell}: update ${info.registryVersions} took ${(update.updateMs / 1000).toFixed(1)} s; all deliveries: ${line(update.all)}`,
				`    sent during the update: ${line(update.during)}; attempts refused: ${update.refusedAttempts}`,
				`    redelivered after it (ran before it): ${again.sent}, answered 200: ${again.answered200}, dropped on arrival ${again.droppedAtArrival}, ran again ${again.ranAgain}`,
			);
		}
		if (info.registryUninstalled) registryFigures.push(`    a delivery to a workflow of the uninstalled package: ${info.registryUninstalled.status} ${info.registryUninstalled.body}`);
		rows.push({
			cell,
			line,
			install,
			...(mode === 'single' ? {} : { mode }),
			projects: projectsOf(mode, install),
			...(projectsOf(mode, install).includes('queue') ? { counts: { volume: info.volume, duplicates: info.duplicates } } : {}),
			n8n: info.version || rt.version,
			node: rt.nodeVersion,
			passed,
			failed,
			startupSeconds: info.startupMs === undefined ? null : Math.round(info.startupMs / 100) / 10,
			seconds: Math.round(seconds),
		});
	}

	console.log('\nCompatibility matrix (per cell: e2e and AI Agent suites; queue and registry suites where named)\n');
	console.log('| n8n | Node | install path | passed | failed | n8n start-up | cell wall time |');
	console.log('|---|---|---|---|---|---|---|');
	for (const row of rows) {
		const startup = row.startupSeconds === null ? '—' : `${row.startupSeconds} s`;
		const label = `${INSTALL_LABELS[row.install]}${row.mode === 'queue' ? ', queue mode' : ''} (${projectsOf(row.mode || 'single', row.install).join(', ')})`;
		console.log(`| ${row.n8n} | ${row.node} | ${label} | ${row.passed} | ${row.failed} | ${startup} | ${row.seconds} s |`);
	}
	for (const row of rows.filter((r) => r.counts)) {
		const { volume, duplicates } = row.counts;
		console.log(`\nQueue mode (${row.cell}) counts:`);
		if (volume) {
			const split = Object.entries(volume.perWorker).map(([worker, n]) => `${worker} ${n}`).join(', ');
			const resent = volume.retried ? ` (${volume.retried} resent by the sandbox after a late answer, dropped as duplicates)` : '';
			console.log(`  ${volume.deliveries} signed deliveries${resent} → ${volume.executions} executions, each event id once; run by ${split}`);
		}
		if (duplicates) {
			console.log(`  ${duplicates.events} events, each delivered to both webhook processors — duplicates that got through:`);
			for (const [how, n] of Object.entries(duplicates.through)) console.log(`    ${how}: ${n}`);
		}
		if (!volume) console.log('  volume: no figures (its test failed; see above)');
		if (!duplicates) console.log('  duplicates: no figures (those tests did not run; see above)');
	}
	if (registryFigures.length) console.log(`\nRegistry cells: Community Nodes install, update while deliveries flow, uninstall\n${registryFigures.join('\n')}`);
	if (aiFigures.length) console.log(`\nAI Agent suite: what a List Orders tool (default settings) returned to the model\n${aiFigures.join('\n')}`);
	const record = { measuredAt: new Date().toISOString().slice(0, 10), platform: `${process.platform}-${process.arch}`, rows };
	fs.mkdirSync(path.join(ROOT, 'artifacts'), { recursive: true });
	fs.writeFileSync(path.join(ROOT, 'artifacts', 'matrix.json'), `${JSON.stringify(record, null, 2)}\n`);
	const green = rows.every((row) => row.failed === 0 && row.passed > 0);
	if (process.argv.includes('--record')) {
		if (!green) throw new Error('not recording a matrix with failures');
		writeRecord(record);
		console.log('\nrecorded: docs/compatibility.json and README "Compatibility"');
	}
	process.exit(green ? 0 : 1);
}

try {
	main();
} catch (error) {
	console.error(`[matrix] ${/** @type {Error} */ (error).message}`);
	process.exit(1);
}

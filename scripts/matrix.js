#!/usr/bin/env node
// @ts-check
// The compatibility matrix: a real n8n for each n8n line × install path, each cell in its own n8n process with its
// own user folder and database (a cell's catch-up and last-word suites each in a jest process and n8n of its own,
// beside the cell's other suites). The community-package cells run the e2e suite (test/e2e) and the AI Agent suite
// (test/ai: an agent with Storefront tools and a scripted model), and once per n8n line the polling and catch-up
// suites (on 2.x the last-word suite too); the custom-folder and registry cells, whose install path is what they
// test, run the e2e suite's install checks (the `install` project), and the registry cells the registry suite (n8n
// installs the package by name from a local npm registry; 2/registry/queue: every process does). 2/community/queue
// runs e2e and AI Agent on n8n's distributed engine (main + webhook processor + 2 workers, Postgres, Redis:
// dev/n8n/queue.js) and the queue suite (test/queue: workers, volume, duplicates); 2/community/spec-literal runs e2e,
// AI Agent, polling, catch-up and last word against the sandbox's spec-literal profile (a service that read every
// "not shown" point of the spec the other way: docs/api-contract.md). Prints a summary table (cell, n8n and Node
// versions, tests passed/failed, n8n start-up time, wall time) and the queue cell's counts, and writes them to
// artifacts/matrix.json.
//   node scripts/matrix.js [--cells 2/community,1/custom,2/community/queue] [--parallel N] [--with SUITES] [--then SUITES] [--json-dir DIR] [--record]
// --with      other jest projects that start their own n8n (e.g. reliability), run in the same lanes as the cells,
//             first in the queue (reliability and browser: alone, see ALONE). Printed, not recorded
// --then      the same, last in the queue (e.g. dev), and ahead of the cells still waiting once the --with
//             suites have ended. `a+b`: projects a and b in one jest process, side by side (WORKERS), in one lane
// --parallel  run N cells at once (default 1). Cells share nothing (each its own ports, folders, n8n, database); the
//             reliability and browser suites run alone. Two lanes kept two cores 75–87 % busy, mostly waiting
//             cells beside the heavy queue-mode cell and reliability suite (.ci/run prints the share; it runs three);
//             the longest cells (by the last recorded wall times) start first. A cell's output is printed whole when it ends.
// --json-dir  also keep each cell's jest JSON there (.ci/run counts them)
// --record    after a green run, write docs/compatibility.json and regenerate README's "Compatibility" table
//             from it (scripts/compatibility.js): the README states what was measured, not a claim.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const { prepare, LINES } = require('../dev/n8n/prepare');
const { INSTALLS } = require('../dev/n8n/runtime');
const {
	CELLS: ALL,
	MODES,
	PROFILES,
	RECORD,
	projectsOf,
	cellLabel,
	writeRecord,
} = require('./compatibility');

/** `2/community/queue` → its parts; a part after the install path is a mode or a profile. @param {string} cell */
function parseCell(cell) {
	const [line, install, ...rest] = cell.split('/');
	const mode = rest.find((part) => MODES.includes(part)) ?? 'single';
	const profile = rest.find((part) => PROFILES.includes(part)) ?? 'contract';
	const known =
		line in LINES &&
		INSTALLS.includes(install) &&
		rest.every((part) => MODES.includes(part) || PROFILES.includes(part));
	if (!known) throw new Error(`unknown cell ${cell} (known: ${ALL.join(', ')})`);
	return { line, install, mode, profile };
}

/** The last recorded wall time of each cell (docs/compatibility.json), to start the longest first. */
function lastSeconds() {
	try {
		return new Map(
			JSON.parse(fs.readFileSync(RECORD, 'utf8')).rows.map((/** @type {any} */ row) => [
				row.cell,
				row.seconds,
			]),
		);
	} catch {
		return new Map();
	}
}

function option(/** @type {string} */ name) {
	const at = process.argv.indexOf(name);
	return at >= 0 ? process.argv[at + 1] : undefined;
}

/**
 * Runs jest `projects` in a process of its own, its output kept in `<id>.log` and its results in `<id>.json` of
 * `jsonDir`; resolves with its exit code and wall time.
 * @param {string[]} projects @param {string} id @param {string} jsonDir @param {Record<string, string>} env
 */
async function runJest(projects, id, jsonDir, env) {
	const outputFile = path.join(jsonDir, `${id}.json`);
	const logFile = path.join(jsonDir, `${id}.log`);
	const started = Date.now();
	const log = fs.openSync(logFile, 'w');
	const status = await new Promise((resolve) => {
		const child = spawn(
			process.execPath,
			[
				require.resolve('jest/bin/jest'),
				'--selectProjects',
				...projects,
				...(WORKERS[projects.join()]
					? [`--maxWorkers=${WORKERS[projects.join()]}`]
					: ['--runInBand']),
				'--ci',
				'--json',
				`--outputFile=${outputFile}`,
			],
			{ cwd: ROOT, stdio: ['ignore', log, log], env: { ...process.env, FORCE_COLOR: '0', ...env } },
		);
		child.on('error', () => resolve(null));
		child.on('exit', (code) => resolve(code));
	});
	fs.closeSync(log);
	let passed = 0;
	let failed = 0;
	try {
		const result = JSON.parse(fs.readFileSync(outputFile, 'utf8'));
		passed = result.numPassedTests;
		failed = result.numFailedTests + result.numRuntimeErrorTestSuites;
	} catch {
		failed = 1; // jest died before writing results
	}
	if (status !== 0 && failed === 0) failed = 1;
	return {
		passed,
		failed,
		seconds: (Date.now() - started) / 1000,
		log: () => fs.readFileSync(logFile, 'utf8'),
	};
}

/**
 * A suite that is not a cell of the matrix (it starts its own n8n: the reliability suite), run in a lane beside the
 * cells so that its waits overlap theirs; printed whole when it ends, not recorded. `a+b` runs both projects.
 * @param {string} project @param {string} jsonDir
 */
async function runSuite(project, jsonDir) {
	console.log(`[matrix] ${new Date().toISOString().slice(11, 19)} started the ${project} suite`);
	const projects = project.split('+');
	const run = await runJest(projects, projects.join('-'), jsonDir, {});
	console.log(`\n=== ${project} suite, beside the matrix (${Math.round(run.seconds)} s)`);
	process.stdout.write(run.log());
	return run;
}

/**
 * Suites that mostly wait (n8n stopped, restarted, the service's retries, the soak's checks for missed events), each
 * run in a jest process of its own beside the cell's other suites, with its own n8n, sandbox and report file. The
 * queue suite too, in a queue-mode topology of its own (with the AI Agent suite: JOINS): beside the cell's e2e and
 * queue-mode soak, the cell takes as long as its longest part instead of all of them.
 */
const OWN_PROCESS = ['catchup', 'lastword', 'soak', 'queue'];
/**
 * OWN_PROCESS suites whose test files each start their own n8n and run side by side, a jest worker each: the catch-up
 * suite's two files (after downtime; while n8n keeps running) mostly wait, the longest job of a community cell.
 * @type {Record<string, number>}
 */
const WORKERS = { catchup: 2 };
/**
 * Suites that run in an OWN_PROCESS suite's jest process where the cell has it, one after the other: the queue cell's
 * AI Agent suite beside the queue suite (its own queue-mode topology, started by its file as the queue suite's is), so
 * that the cell's two processes take about as long (e2e and the queue-mode soak in the other). Still two topologies at
 * once, never three (docs/maintainers.md).
 * @type {Record<string, string>}
 */
const JOINS = { ai: 'queue' };

/**
 * Runs one cell's suites, its output kept in log files and printed whole at the end; OWN_PROCESS suites beside the
 * others.
 * @param {string} cell @param {string} jsonDir
 */
async function runCell(cell, jsonDir) {
	const { line, install, mode, profile } = parseCell(cell);
	const rt = prepare({ line, log: (text) => console.log(`[matrix ${cell}] ${text}`) });
	const id = `e2e-n8n${line}-${install}${mode === 'single' ? '' : `-${mode}`}${profile === 'contract' ? '' : `-${profile}`}`;
	const projects = projectsOf(mode, install, profile, line);
	const joins = (/** @type {string} */ p) => projects.includes(JOINS[p]);
	const groups = [
		projects.filter((p) => !OWN_PROCESS.includes(p) && !joins(p)),
		...projects
			.filter((p) => OWN_PROCESS.includes(p))
			.map((p) => [...projects.filter((other) => JOINS[other] === p), p]),
	].filter((group) => group.length > 0);
	console.log(`[matrix] ${new Date().toISOString().slice(11, 19)} started ${cell}`);
	const runs = await Promise.all(
		groups.map(async (group, i) => {
			const groupId = i === 0 ? id : `${id}-${group.join('-')}`;
			const report = path.join(jsonDir, `${groupId}.report.json`);
			fs.rmSync(report, { force: true });
			const run = await runJest(group, groupId, jsonDir, {
				E2E_N8N_LINE: line,
				E2E_INSTALL: install,
				E2E_N8N_MODE: mode,
				E2E_PROFILE: profile,
				E2E_REPORT: report,
			});
			/** @type {{startupMs?: number, version?: string, volume?: any, duplicates?: any, [key: string]: any}} */
			let info = {};
			try {
				info = JSON.parse(fs.readFileSync(report, 'utf8'));
			} catch {}
			return { ...run, info };
		}),
	);
	const passed = runs.reduce((sum, run) => sum + run.passed, 0);
	const failed = runs.reduce((sum, run) => sum + run.failed, 0);
	const seconds = Math.max(...runs.map((run) => run.seconds));
	console.log(
		`\n=== matrix cell ${cell}: n8n ${rt.version} on Node ${rt.nodeVersion}, ${cellLabel({ install, mode, profile })} (${Math.round(seconds)} s)`,
	);
	for (const run of runs) process.stdout.write(run.log());
	// The first group's facts win (its n8n start-up is the cell's).
	const info = Object.assign({}, ...runs.map((run) => run.info).reverse());
	return {
		info,
		row: {
			cell,
			line,
			install,
			...(mode === 'single' ? {} : { mode }),
			...(profile === 'contract' ? {} : { profile }),
			projects,
			...(projects.includes('queue')
				? { counts: { volume: info.volume, duplicates: info.duplicates } }
				: {}),
			n8n: info.version || rt.version,
			node: rt.nodeVersion,
			passed,
			failed,
			startupSeconds: info.startupMs === undefined ? null : Math.round(info.startupMs / 100) / 10,
			seconds: Math.round(seconds),
		},
	};
}

async function main() {
	const cells = (option('--cells') || ALL.join(',')).split(',');
	const parallel = Math.max(1, Number(option('--parallel') || 1));
	const suites = (option('--with') || '').split(',').filter(Boolean);
	const lastSuites = (option('--then') || '').split(',').filter(Boolean);
	const jsonDir =
		option('--json-dir') || fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-matrix-'));
	fs.mkdirSync(jsonDir, { recursive: true });
	for (const cell of cells) parseCell(cell);
	// Runtimes first, one line at a time (installing is not something two cells should do at once).
	for (const line of new Set(cells.map((cell) => parseCell(cell).line)))
		prepare({ line, log: (text) => console.log(`[matrix] ${text}`) });
	const seconds = lastSeconds();
	// The --with suites first (each alone), then the queue-mode cell (Postgres, Redis, webhook processors, workers)
	// whatever the record says, then the longest cells: the queue-mode cell started last ran alone at the end.
	const heavy = (/** @type {string} */ cell) =>
		parseCell(cell).mode === 'queue' && parseCell(cell).install === 'community' ? 1 : 0;
	/** @type {Array<{cell?: string, suite?: string}>} --with suites, the longest cells, --then suites */
	const queue = [
		...suites.map((suite) => ({ suite })),
		...[...cells]
			.sort((a, b) => heavy(b) - heavy(a) || (seconds.get(b) ?? 200) - (seconds.get(a) ?? 200))
			.map((cell) => ({ cell })),
		...lastSuites.map((suite) => ({ suite })),
	];
	/** @type {Map<string, Awaited<ReturnType<typeof runCell>>>} */
	const results = new Map();
	let suitesFailed = 0;
	/** @type {Set<string>} */
	const running = new Set();
	const name = (/** @type {{cell?: string, suite?: string}} */ job) => job.cell ?? job.suite ?? '';
	// The reliability and browser suites run alone, however many lanes. The reliability suite's bursts and flash sales
	// time out or meet 429s against the machine, not the node, beside a cell whose suites run four n8n processes
	// (clean-clone runs at 97-98 % CPU: the defaults' burst at 1.5 deliveries/s, a flash sale with X-RateLimit-* headers
	// refused twice). The browser suite beside the cells took 1,209 s instead of about 110 s on CI, and its editor steps
	// passed their 120 s test timeout (two CI runs refused for it).
	const ALONE = ['reliability', 'browser'];
	const weight = (/** @type {string} */ job) => (ALONE.includes(job) ? parallel : 1);
	const fits = (/** @type {{cell?: string, suite?: string}} */ job) =>
		[...running].reduce((sum, other) => sum + weight(other), weight(name(job))) <= parallel;
	/** @type {Array<() => void>} lanes waiting for a job to end */
	let waiting = [];
	await Promise.all(
		Array.from({ length: Math.min(parallel, queue.length) }, async () => {
			while (queue.length > 0) {
				// Once the --with suites have ended, the --then suites go ahead of the cells still waiting: started after the
				// short cells left by then, a longer suite ran alone at the end while the other lanes had nothing left.
				const withEnded =
					suites.length > 0 &&
					!suites.some((suite) => running.has(suite) || queue.some((job) => job.suite === suite));
				const first = (/** @type {{cell?: string, suite?: string}} */ job) =>
					withEnded && job.suite !== undefined && lastSuites.includes(job.suite);
				// A --with suite waiting for free lanes is not passed by the jobs behind it (it would start last).
				const blocking = queue.findIndex((job) => suites.includes(job.suite ?? '') && !fits(job));
				const ahead = blocking < 0 ? queue : queue.slice(0, blocking);
				const pick = ahead.find((job) => first(job) && fits(job)) ?? ahead.find(fits);
				const at = pick === undefined ? -1 : queue.indexOf(pick);
				if (at < 0) {
					await new Promise((resolve) => waiting.push(() => resolve(undefined)));
					continue;
				}
				const [job] = queue.splice(at, 1);
				running.add(name(job));
				try {
					if (job.cell) results.set(job.cell, await runCell(job.cell, jsonDir));
					else if (job.suite) suitesFailed += (await runSuite(job.suite, jsonDir)).failed;
				} finally {
					running.delete(name(job));
					const wake = waiting;
					waiting = [];
					for (const resolve of wake) resolve();
				}
			}
		}),
	);
	/** @type {any[]} */
	const rows = [];
	/** @type {string[]} what the AI suite measured per cell (printed, not recorded) */
	const aiFigures = [];
	/** @type {string[]} what the registry suite counted per cell: the update during deliveries, the uninstalled answer */
	const registryFigures = [];
	for (const cell of cells) {
		const { info, row } = /** @type {Awaited<ReturnType<typeof runCell>>} */ (results.get(cell));
		rows.push(row);
		for (const format of ['chat', 'responses']) {
			const list = info[`aiListBytes_${format}`];
			if (list)
				aiFigures.push(
					`  ${cell} (${format} API): ${list.orders} orders in ${list.bytes} bytes; as full records ${list.fullBytes} bytes`,
				);
		}
		const update = info.registryUpdate;
		if (update) {
			const line = (/** @type {any} */ c) =>
				`sent ${c.sent}, acknowledged ${c.acknowledged}, run ${c.run}, run twice ${c.runTwice}, lost ${c.lost}, retried by the sender ${c.retried}`;
			const again = update.redeliveredAfter;
			registryFigures.push(
				`  ${cell}: update ${info.registryVersions} took ${(update.updateMs / 1000).toFixed(1)} s; all deliveries: ${line(update.all)}`,
				`    sent during the update: ${line(update.during)}; attempts refused: ${update.refusedAttempts}`,
				`    redelivered after it (ran before it): ${again.sent}, answered 200: ${again.answered200}, dropped on arrival ${again.droppedAtArrival}, ran again ${again.ranAgain}`,
			);
		}
		if (info.registryUninstalled)
			registryFigures.push(
				`    a delivery to a workflow of the uninstalled package: ${info.registryUninstalled.status} ${info.registryUninstalled.body}`,
			);
	}

	console.log(
		'\nCompatibility matrix (per cell: e2e and AI Agent suites; queue and registry suites where named)\n',
	);
	console.log('| n8n | Node | install path | passed | failed | n8n start-up | cell wall time |');
	console.log('|---|---|---|---|---|---|---|');
	for (const row of rows) {
		const startup = row.startupSeconds === null ? '—' : `${row.startupSeconds} s`;
		const label = `${cellLabel({ install: row.install, mode: row.mode || 'single', profile: row.profile || 'contract' })} (${row.projects.join(', ')})`;
		console.log(
			`| ${row.n8n} | ${row.node} | ${label} | ${row.passed} | ${row.failed} | ${startup} | ${row.seconds} s |`,
		);
	}
	for (const row of rows.filter((r) => r.counts)) {
		const { volume, duplicates } = row.counts;
		console.log(`\nQueue mode (${row.cell}) counts:`);
		if (volume) {
			const split = Object.entries(volume.perWorker)
				.map(([worker, n]) => `${worker} ${n}`)
				.join(', ');
			const resent = volume.retried
				? ` (${volume.retried} resent by the sandbox after a late answer, dropped as duplicates)`
				: '';
			console.log(
				`  ${volume.deliveries} signed deliveries${resent} → ${volume.executions} executions, each event id once; run by ${split}`,
			);
		}
		if (duplicates) {
			console.log(
				`  ${duplicates.events} events, each delivered to both webhook processors — duplicates that got through:`,
			);
			for (const [how, n] of Object.entries(duplicates.through)) console.log(`    ${how}: ${n}`);
		}
		if (!volume) console.log('  volume: no figures (its test failed; see above)');
		if (!duplicates) console.log('  duplicates: no figures (those tests did not run; see above)');
	}
	if (registryFigures.length)
		console.log(
			`\nRegistry cells: Community Nodes install, update while deliveries flow, uninstall\n${registryFigures.join('\n')}`,
		);
	if (aiFigures.length)
		console.log(
			`\nAI Agent suite: what a List Orders tool (default settings) returned to the model\n${aiFigures.join('\n')}`,
		);
	const record = {
		measuredAt: new Date().toISOString().slice(0, 10),
		platform: `${process.platform}-${process.arch}`,
		rows,
	};
	fs.mkdirSync(path.join(ROOT, 'artifacts'), { recursive: true });
	fs.writeFileSync(
		path.join(ROOT, 'artifacts', 'matrix.json'),
		`${JSON.stringify(record, null, 2)}\n`,
	);
	const green = rows.every((row) => row.failed === 0 && row.passed > 0);
	if (process.argv.includes('--record')) {
		if (!green) throw new Error('not recording a matrix with failures');
		writeRecord(record);
		console.log('\nrecorded: docs/compatibility.json and README "Compatibility"');
	}
	process.exit(green && suitesFailed === 0 ? 0 : 1);
}

main().catch((error) => {
	console.error(`[matrix] ${/** @type {Error} */ (error).message}`);
	process.exit(1);
});

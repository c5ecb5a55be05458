#!/usr/bin/env node
// @ts-check
// What the trigger's shared duplicate check costs: signed deliveries per second and CPU per delivery through
// n8n 2.41.1, workflow "Storefront Trigger (1.2, order.created) → No Op", with
//   off  option Drop Duplicate Events turned off (dropDuplicates: false): no duplicate checking at all
//   on   default options (Drop Duplicate Events on): when a run starts, execute() claims the event in n8n's
//        database through the deduplication helper (this.helpers.checkProcessedAndRecord, ../nodes/
//        StorefrontTrigger/sharedClaims.ts) under its lock across processes (claimLock.ts: the workflow's row
//        inserted, then deleted), one call per batch of events, each reading and rewriting the node's whole
//        `processed_data` row: its cost grows with the number of event ids the row remembers
// at 0 remembered ids and at K remembered ids (K = SHARED_VALUES_LIMIT of the built module: a full row, and 10,000), on
//   single  one n8n process on SQLite
//   queue   queue mode (dev/n8n/queue.js): main + 1 webhook processor + 1 worker, Postgres, Redis
// both with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (the recommended setting, docs/reliability.md).
//
// Pre-fill: before every "on" round the trigger node's row (primary key workflowId + context `n:<node id>`) is
// written straight into n8n's database, as n8n itself writes it: value = JSON {"mode":"entries","data":[…]}, the
// MD5 (base64) of each id's event value (claimValues().event), oldest first; for 0 ids the row is deleted. SQLite
// (<userFolder>/.n8n/database.sqlite) is written with node:sqlite by the runtime's Node 24 (the benchmark itself may
// run on an older Node), Postgres with Debian's psql. After the round the row is read back and checked: it must
// hold min(K + deliveries, maxEntries) entries, the newest pre-filled ones followed by the round's events — so
// the figures are known to come from a row of that size. Should K exceed what the trigger retains, n8n trims the
// row to its maxEntries at the round's first call, which the check also confirms.
//
// A delivery counts once n8n has finished and saved its execution (as bench/n8n.js). Rounds are interleaved
// off, on, off, on… for every (set-up, K) and the best round of each is kept. CPU per process from /proc over the
// round (process and its children, as bench/queue.js), in ms per delivery: it hardly moves when other jobs share
// the cores, the rate does. Prints figures, ratios and whether the goal "the check costs at most 10 % of throughput
// at 10,000 remembered ids" is met; asserts nothing about the figures (it fails only when the set-up is wrong).
// Run after `npm run build` and `node dev/n8n/prepare.js` (queue mode needs Debian's postgresql and redis-server):
//   node bench/dedupe.js
// Knobs: BENCH_DELIVERIES (per round, default 200), BENCH_ROUNDS (default 3), BENCH_CONCURRENCY (default 8),
// BENCH_MODES (default "single,queue"), BENCH_ENGINES (default "lazy"; "default" is n8n's vm engine without lazy
// acquire), BENCH_PREFILLS (default "<SHARED_VALUES_LIMIT>,10000"; 0 is always measured).
'use strict';

const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const runtime = require('../dev/n8n/runtime');
const queue = require('../dev/n8n/queue');
const proc = require('../dev/n8n/proc');
const { N8nClient } = require('../dev/n8n/rest');
const setup = require('../dev/n8n/instance');
const { setUp, delivery, triggerWorkflow, executionCount } = require('./deliveries');

const DELIVERIES = Number(process.env.BENCH_DELIVERIES || 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 8);
const MODES = (process.env.BENCH_MODES || 'single,queue').split(',');
const ENGINE_KEYS = (process.env.BENCH_ENGINES || 'lazy').split(',');
const WARMUP = 30;
/** The goal: at this many remembered ids the check costs at most GOAL_COST of the throughput. */
const GOAL_IDS = 10_000;
const GOAL_COST = 0.1;

const DIST = path.join(runtime.ROOT, 'dist', 'nodes', 'StorefrontTrigger');

/** @type {Record<string, {label: string}>} */
const SETUPS = {
	single: { label: 'single process, SQLite' },
	queue: { label: 'queue: 1 webhook processor + 1 worker, Postgres' },
};
/** @type {Record<string, {label: string, env: Record<string, string>}>} */
const ENGINES = {
	lazy: { label: 'vm + LAZY_ACQUIRE', env: { N8N_EXPRESSION_ENGINE: 'vm', N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } },
	default: { label: 'default engine (vm)', env: { N8N_EXPRESSION_ENGINE: 'vm' } },
};

/**
 * The built shared check: its retention and the values it records per event. Fails when dist/ predates it.
 * @returns {{limit: number, valuesPerEvent: number, maxEntries: number, claimValues: (id: string, token: string) => Record<string, string>}}
 */
function builtCheck() {
	const file = path.join(DIST, 'sharedClaims.js');
	const trigger = path.join(DIST, 'StorefrontTrigger.node.js');
	if (!fs.existsSync(file) || !fs.readFileSync(trigger, 'utf8').includes('claimShared')) {
		throw new Error(`${path.relative(runtime.ROOT, trigger)} has no shared duplicate check (claimShared): run \`npm run build\` first.`);
	}
	const built = require(file);
	const maxEntries = Number(built.SHARED_VALUES_LIMIT);
	if (!(maxEntries > 0) || typeof built.claimValues !== 'function') throw new Error(`${file} exports no SHARED_VALUES_LIMIT / claimValues`);
	// A claim made under the lock (as every claim of an n8n whose processes all run this package) records one value:
	// the event's. Without the lock a claim records three, so the same row remembers a third as many ids.
	const valuesPerEvent = 1;
	return { limit: maxEntries / valuesPerEvent, valuesPerEvent, maxEntries, claimValues: built.claimValues };
}

/** n8n's DeduplicationHelper.createValueHash. @param {string} value */
const valueHash = (value) => crypto.createHash('md5').update(value.toString()).digest('base64');

/** The row value as n8n writes it (TypeORM JSON.stringify of {mode, data}: same text on SQLite and Postgres). */
const rowValue = (/** @type {string[]} */ data) => JSON.stringify({ mode: 'entries', data });

// ------------------------------------------------------------------------------------------ the processed_data row

/**
 * @typedef {{
 *   write: (workflowId: string, context: string, value: string) => void,
 *   read: (workflowId: string, context: string) => string | undefined,
 *   remove: (workflowId: string, context: string) => void,
 * }} RowStore
 */

/** SQL string literal (single quotes doubled). @param {string} text */
const literal = (text) => `'${text.replace(/'/g, "''")}'`;

/**
 * n8n's SQLite database, through node:sqlite of the runtime's Node 24 (one short process per statement; n8n keeps
 * the database in WAL mode, so it may hold it open meanwhile).
 * @param {string} file
 * @returns {RowStore}
 */
function sqliteStore(file) {
	const { nodeBin } = runtime.assertInstalled();
	const script = `
const { DatabaseSync } = require('node:sqlite');
const request = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const db = new DatabaseSync(request.file, { timeout: 30000 });
try {
	const statement = db.prepare(request.sql);
	const result = request.read ? statement.all(...request.params) : statement.run(...request.params);
	process.stdout.write(JSON.stringify(result));
} finally {
	db.close();
}`;
	/** @param {string} sql @param {string[]} params @param {boolean} [read] */
	const query = (sql, params, read = false) => {
		const r = spawnSync(nodeBin, ['--disable-warning=ExperimentalWarning', '-e', script], {
			input: JSON.stringify({ file, sql, params, read }),
			encoding: 'utf8',
			maxBuffer: 256 * 1024 * 1024,
		});
		if (r.status !== 0) throw new Error(`node:sqlite on ${file} failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr || '').slice(-2000)}`);
		return JSON.parse(r.stdout);
	};
	return {
		write: (workflowId, context, value) =>
			query(
				`INSERT INTO processed_data ("workflowId", "context", "value") VALUES (?, ?, ?)
				 ON CONFLICT ("workflowId", "context") DO UPDATE SET "value" = excluded."value", "updatedAt" = STRFTIME('%Y-%m-%d %H:%M:%f', 'NOW')`,
				[workflowId, context, value],
			),
		read: (workflowId, context) => {
			const rows = query('SELECT "value" FROM processed_data WHERE "workflowId" = ? AND "context" = ?', [workflowId, context], true);
			return rows.length ? String(rows[0].value) : undefined;
		},
		remove: (workflowId, context) => query('DELETE FROM processed_data WHERE "workflowId" = ? AND "context" = ?', [workflowId, context]),
	};
}

/**
 * The queue's Postgres database, through psql (the statement on stdin: a full row is far longer than an argument
 * may be).
 * @param {number} port
 * @returns {RowStore}
 */
function postgresStore(port) {
	const psql = path.join(queue.postgresBinDir(), 'psql');
	/** @param {string} sql */
	const query = (sql) => {
		const r = spawnSync(psql, ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n', '-d', 'n8n', '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-f', '-'], {
			input: sql,
			encoding: 'utf8',
			maxBuffer: 256 * 1024 * 1024,
		});
		if (r.status !== 0) throw new Error(`psql failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr || '').slice(-2000)}`);
		return r.stdout;
	};
	const where = (/** @type {string} */ workflowId, /** @type {string} */ context) => `"workflowId" = ${literal(workflowId)} AND "context" = ${literal(context)}`;
	return {
		write: (workflowId, context, value) =>
			query(
				`INSERT INTO processed_data ("workflowId", "context", "value") VALUES (${literal(workflowId)}, ${literal(context)}, ${literal(value)})
				 ON CONFLICT ("workflowId", "context") DO UPDATE SET "value" = EXCLUDED."value", "updatedAt" = CURRENT_TIMESTAMP(3);`,
			),
		read: (workflowId, context) => {
			const out = query(`SELECT "value" FROM processed_data WHERE ${where(workflowId, context)};`).replace(/\n$/, '');
			return out === '' ? undefined : out;
		},
		remove: (workflowId, context) => query(`DELETE FROM processed_data WHERE ${where(workflowId, context)};`),
	};
}

// ------------------------------------------------------------------------------------------ set-ups and rounds

/**
 * Start one set-up; returns where to send deliveries, the REST client's URL, the processes to watch, the row store
 * and stop().
 * @param {string} mode @param {Record<string, string>} env
 */
async function start(mode, env) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-bench-dedupe-'));
	const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
	/** Starts it, or removes the folder again when it does not start. @template T @param {() => Promise<T>} launch */
	const launched = async (launch) => {
		try {
			return await launch();
		} catch (error) {
			cleanup();
			throw error;
		}
	};
	if (mode === 'single') {
		const n8n = await launched(() => runtime.startN8n({ userFolder: dir, logFile: path.join(dir, 'n8n.log'), logLevel: 'error', env }));
		return {
			url: n8n.url,
			webhookUrl: n8n.url,
			processes: () => [{ name: 'n8n', pid: /** @type {number} */ (n8n.child.pid) }],
			store: sqliteStore(path.join(dir, '.n8n', 'database.sqlite')),
			stop: async () => {
				await n8n.stop();
				cleanup();
			},
		};
	}
	if (mode !== 'queue') throw new Error(`unknown mode "${mode}" (known: ${Object.keys(SETUPS).join(', ')})`);
	const topology = await launched(() => queue.startQueue({ dir, webhooks: 1, workers: 1, env, logLevel: 'error', workerLogLevel: 'error' }));
	return {
		url: topology.url,
		webhookUrl: topology.webhookUrl,
		processes: () => topology.processes().map(({ name, pid }) => ({ name, pid })),
		store: postgresStore(topology.postgres.port),
		stop: async () => {
			await topology.stop();
			cleanup();
		},
	};
}

/**
 * Send `count` signed deliveries, CONCURRENCY in flight, and wait until n8n has saved all their executions; CPU of
 * every watched process over the round.
 * @param {N8nClient} client @param {{id: string, url: string}} target @param {number} count
 * @param {() => Array<{name: string, pid: number}>} [processes]
 */
async function round(client, target, count, processes) {
	const payloads = Array.from({ length: count }, (_, i) => delivery(i));
	const ids = payloads.map((p) => String(JSON.parse(p.body).id));
	const before = await executionCount(client, target.id);
	const watched = processes ? processes() : [];
	const cpuBefore = watched.map((p) => proc.cpuSeconds(p.pid, { tree: true }));
	const senderBefore = process.cpuUsage();
	const started = process.hrtime.bigint();
	let next = 0;
	const sender = async () => {
		while (next < payloads.length) {
			const { body, signature } = payloads[next++];
			const res = await fetch(target.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body });
			const text = await res.text();
			if (res.status !== 200) throw new Error(`${target.url} answered ${res.status}`);
			if (text.includes('duplicate_event')) throw new Error(`${target.url} dropped a new event as a duplicate: ${text}`);
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, sender));
	// Until every execution is saved. Each look costs n8n CPU (main process in queue mode), which would count against
	// the slower side if it looked every 50 ms: the wait halves the expected time left (at the rate so far), 50 ms
	// at least, so there are a few looks per round and the last one comes at most ~50 ms late.
	for (;;) {
		const done = (await executionCount(client, target.id)) - before;
		if (done >= count) break;
		const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
		const left = done > 0 ? ((count - done) * elapsed) / done : elapsed;
		await new Promise((resolve) => setTimeout(resolve, Math.min(1000, Math.max(50, (left * 1000) / 2))));
	}
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	const senderCpu = process.cpuUsage(senderBefore);
	/** @type {Record<string, number>} CPU seconds over the round */
	const cpu = {};
	watched.forEach((p, i) => (cpu[p.name] = proc.cpuSeconds(p.pid, { tree: true }) - cpuBefore[i]));
	return { rate: count / seconds, seconds, count, ids, cpu, senderCpu: (senderCpu.user + senderCpu.system) / 1e6 };
}

/** @typedef {Awaited<ReturnType<typeof round>>} Round */

/** CPU ms per delivery of the n8n side (every watched process, not the sender). @param {Round} r */
const cpuMs = (r) => (Object.values(r.cpu).reduce((a, b) => a + b, 0) / r.count) * 1000;

/** By process, busiest first, ms per delivery. @param {Round} r */
const cpuLine = (r) =>
	Object.entries(r.cpu)
		.sort((a, b) => b[1] - a[1])
		.map(([name, seconds]) => `${name} ${((seconds / r.count) * 1000).toFixed(1)}`)
		.join(', ');

/**
 * The pre-filled row of `ids` remembered event ids (`evt_prefill_<n>`), oldest first, as claims under the lock
 * record them (the event's value).
 * @param {ReturnType<typeof builtCheck>} check @param {number} ids
 */
function prefillData(check, ids) {
	/** @type {string[]} */
	const data = [];
	for (let n = 0; n < ids; n++) data.push(valueHash(check.claimValues(`evt_prefill_${n}`, crypto.randomUUID()).event));
	return data;
}

/**
 * What the row must hold after an "on" round that started from `prefill`: maxEntries at most, the newest
 * pre-filled entries first, then one per event of the round (each its event's hash: every claim had the lock).
 * Returns a description, or throws.
 * @param {ReturnType<typeof builtCheck>} check @param {string | undefined} text @param {string[]} prefill @param {Round} r
 */
function verifyRow(check, text, prefill, r) {
	if (text === undefined) throw new Error('after the "on" round the trigger has no processed_data row: the shared check did not run');
	const value = JSON.parse(text);
	if (value.mode !== 'entries' || !Array.isArray(value.data)) throw new Error(`unexpected processed_data value: ${text.slice(0, 200)}`);
	// n8n wrote this row last: the pre-filled rows are written in the very same text form.
	if (text !== rowValue(value.data)) throw new Error(`n8n writes processed_data as ${text.slice(0, 80)}…, not as the pre-fill does`);
	const added = r.count * check.valuesPerEvent;
	const expected = Math.min(prefill.length + added, check.maxEntries);
	const problems = [];
	if (value.data.length !== expected) problems.push(`${value.data.length} entries, expected min(${prefill.length} + ${added}, ${check.maxEntries}) = ${expected}`);
	const kept = Math.max(0, expected - added);
	const head = value.data.slice(0, kept);
	const prefillTail = kept ? prefill.slice(prefill.length - kept) : [];
	if (head.length !== prefillTail.length || head.some((/** @type {string} */ h, /** @type {number} */ i) => h !== prefillTail[i])) {
		problems.push(`its first ${kept} entries are not the newest ${kept} pre-filled ones`);
	}
	if (added <= check.maxEntries) {
		const tail = new Set(value.data.slice(kept));
		const missing = r.ids.filter((id) => !tail.has(valueHash(check.claimValues(id, '').event)));
		if (missing.length) problems.push(`${missing.length} of the round's ${r.count} events are missing (e.g. ${missing[0]})`);
	}
	if (problems.length) throw new Error(`the processed_data row after the round is not what the benchmark assumes: ${problems.join('; ')}`);
	return `${value.data.length} entries (${kept} pre-filled + ${value.data.length - kept} of this round), ${(text.length / 1024).toFixed(0)} KiB`;
}

/**
 * One set-up: the off and on workflows, then for every pre-fill ROUNDS interleaved off/on rounds; the best of each.
 * @param {string} mode @param {string} engine @param {ReturnType<typeof builtCheck>} check @param {number[]} prefills
 */
async function measure(mode, engine, check, prefills) {
	const t0 = Date.now();
	const running = await start(mode, ENGINES[engine].env);
	try {
		const client = new N8nClient(running.url);
		const credential = await setUp(client);
		/** @type {Record<'off' | 'on', {id: string, url: string, nodeId: string}>} */
		const targets = /** @type {any} */ ({});
		for (const [key, options] of /** @type {const} */ ([['off', { dropDuplicates: false }], ['on', {}]])) {
			const created = await client.createWorkflow(triggerWorkflow(`bench dedupe (${key})`, options, credential));
			const url = setup.productionWebhookUrl(running.webhookUrl, created);
			await setup.activate(client, created.id, url);
			const trigger = created.nodes.find((/** @type {any} */ n) => n.type === runtime.TYPES.trigger);
			targets[key] = { id: String(created.id), url, nodeId: String(trigger.id) };
		}
		const context = (/** @type {'off' | 'on'} */ key) => `n:${targets[key].nodeId}`;
		console.log(
			`${SETUPS[mode].label}, ${ENGINES[engine].label}: up in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${ROUNDS} × ${DELIVERIES} deliveries per round, ${CONCURRENCY} in flight (load average ${os.loadavg()[0].toFixed(1)})`,
		);
		for (const key of /** @type {const} */ (['off', 'on'])) await round(client, targets[key], WARMUP);
		if (running.store.read(targets.on.id, context('on')) === undefined) {
			throw new Error(`no processed_data row for workflow ${targets.on.id}, context ${context('on')} after the warm-up: the workflow or node id does not match`);
		}

		/** @type {Record<number, {off: Round, on: Round, row: string}>} */
		const results = {};
		for (const ids of prefills) {
			const prefill = prefillData(check, ids);
			const written = rowValue(prefill);
			/** @type {{off?: Round, on?: Round, row?: string}} */
			const best = {};
			for (let r = 0; r < ROUNDS; r++) {
				const off = await round(client, targets.off, DELIVERIES, running.processes);
				// The row before the round: written (or deleted for 0 ids) and read back as written.
				if (ids === 0) running.store.remove(targets.on.id, context('on'));
				else running.store.write(targets.on.id, context('on'), written);
				if (running.store.read(targets.on.id, context('on')) !== (ids === 0 ? undefined : written)) {
					throw new Error(`the pre-filled processed_data row of ${ids} ids does not read back as written`);
				}
				const on = await round(client, targets.on, DELIVERIES, running.processes);
				const row = verifyRow(check, running.store.read(targets.on.id, context('on')), prefill, on);
				console.log(
					`  ${String(ids).padStart(6)} ids, round ${r + 1}: off ${off.rate.toFixed(1)}/s (${cpuMs(off).toFixed(1)} ms CPU), on ${on.rate.toFixed(1)}/s (${cpuMs(on).toFixed(1)} ms CPU); row after: ${row}`,
				);
				if (!best.off || off.rate > best.off.rate) best.off = off;
				if (!best.on || on.rate > best.on.rate) [best.on, best.row] = [on, row];
			}
			results[ids] = /** @type {{off: Round, on: Round, row: string}} */ (best);
		}
		if (running.store.read(targets.off.id, context('off')) !== undefined) {
			throw new Error('the "off" workflow wrote a processed_data row: it did not measure "no duplicate checking"');
		}
		return results;
	} finally {
		await running.stop();
	}
}

async function main() {
	runtime.assertInstalled();
	const check = builtCheck();
	if (MODES.includes('queue')) {
		queue.postgresBinDir();
		queue.redisServerBin();
	}
	for (const key of [...MODES]) if (!SETUPS[key]) throw new Error(`unknown BENCH_MODES entry "${key}" (known: ${Object.keys(SETUPS).join(', ')})`);
	for (const key of ENGINE_KEYS) if (!ENGINES[key]) throw new Error(`unknown BENCH_ENGINES entry "${key}" (known: ${Object.keys(ENGINES).join(', ')})`);
	const asked = (process.env.BENCH_PREFILLS || `${check.limit},${GOAL_IDS}`).split(',').map(Number);
	const prefills = [...new Set([0, ...asked])].sort((a, b) => a - b);
	console.log(
		`Shared check of the built trigger: ${check.valuesPerEvent} values per event, the last ${check.limit} event ids kept (maxEntries ${check.maxEntries}); remembered ids measured: ${prefills.join(', ')}`,
	);
	if (prefills.some((k) => k > check.limit)) {
		console.log(
			`  (more than ${check.limit} ids is more than the trigger keeps: such a row is trimmed to ${check.maxEntries} entries by the round's first call, so later calls read a full row of ${check.limit} ids)`,
		);
	}

	/** @type {Array<{mode: string, engine: string, results: Awaited<ReturnType<typeof measure>>}>} */
	const all = [];
	for (const engine of ENGINE_KEYS) for (const mode of MODES) all.push({ mode, engine, results: await measure(mode, engine, check, prefills) });

	console.log(
		`\nStorefront Trigger 1.2 → No Op through n8n 2.41.1: ${DELIVERIES} signed deliveries per round, ${CONCURRENCY} in flight, best of ${ROUNDS} interleaved rounds;`,
	);
	console.log(`CPU from /proc over that round (each process with its children), ms per delivery (load average now ${os.loadavg()[0].toFixed(1)}):\n`);
	console.log('| set-up | engine | remembered ids | duplicate check | deliveries/s | CPU ms per delivery | by process | sender |');
	console.log('|---|---|---|---|---|---|---|---|');
	for (const { mode, engine, results } of all) {
		for (const ids of prefills) {
			for (const key of /** @type {const} */ (['off', 'on'])) {
				const r = results[ids][key];
				console.log(
					`| ${SETUPS[mode].label} | ${ENGINES[engine].label} | ${ids.toLocaleString('en-US')} | ${key} | ${r.rate.toFixed(1)} | ${cpuMs(r).toFixed(1)} | ${cpuLine(r)} | ${((r.senderCpu / r.count) * 1000).toFixed(1)} |`,
				);
			}
		}
	}
	console.log('\nOn / off (same set-up, same remembered ids):\n');
	console.log('| set-up | engine | remembered ids | deliveries/s on/off | throughput cost | CPU per delivery on/off | CPU ms added per delivery | row after the best "on" round |');
	console.log('|---|---|---|---|---|---|---|---|');
	for (const { mode, engine, results } of all) {
		for (const ids of prefills) {
			const { off, on, row } = results[ids];
			console.log(
				`| ${SETUPS[mode].label} | ${ENGINES[engine].label} | ${ids.toLocaleString('en-US')} | ${(on.rate / off.rate).toFixed(3)} | ${((1 - on.rate / off.rate) * 100).toFixed(1)} % | ${(cpuMs(on) / cpuMs(off)).toFixed(3)} | ${(cpuMs(on) - cpuMs(off)).toFixed(1)} | ${row} |`,
			);
		}
	}
	console.log(`\nGoal: the check costs at most ${GOAL_COST * 100} % of throughput at ${GOAL_IDS.toLocaleString('en-US')} remembered ids (on/off ≥ ${1 - GOAL_COST}):`);
	for (const { mode, engine, results } of all) {
		const at = results[GOAL_IDS];
		if (!at) {
			console.log(`  ${SETUPS[mode].label}, ${ENGINES[engine].label}: not measured (BENCH_PREFILLS has no ${GOAL_IDS})`);
			continue;
		}
		const ratio = at.on.rate / at.off.rate;
		console.log(
			`  ${SETUPS[mode].label}, ${ENGINES[engine].label}: on/off ${ratio.toFixed(3)} (cost ${((1 - ratio) * 100).toFixed(1)} %, CPU per delivery ×${(cpuMs(at.on) / cpuMs(at.off)).toFixed(2)}) — ${ratio >= 1 - GOAL_COST ? 'met' : 'NOT met'}`,
		);
	}
	if (GOAL_IDS > check.limit) {
		console.log(`  (the trigger keeps ${check.limit} ids: a row of ${GOAL_IDS.toLocaleString('en-US')} is trimmed at the round's first call, see above)`);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

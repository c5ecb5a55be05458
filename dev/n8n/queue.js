#!/usr/bin/env node
// @ts-check
// n8n's queue mode (its distributed engine) on one machine, for the demo (`npm start -- --queue`), the queue-mode
// matrix cell and the benchmarks: Postgres and Redis from Debian's packages as plain processes (not system
// services) on free 127.0.0.1 ports under a state folder, then the pinned n8n as
//   main       `n8n start`    editor, REST API, activation; migrates the database; serves no production webhooks
//   webhook-N  `n8n webhook`  receives production webhooks, runs the trigger's webhook(), enqueues the execution
//   worker-N   `n8n worker`   takes executions from the Redis queue and runs them
// all on one Postgres database, one Redis and one encryption key, each with this package in its own user folder
// (`<folder>/.n8n/nodes/node_modules`, as the community installer leaves it: every process loads node code).
//
// Stopping: n8n processes first (they hang on shutdown when Postgres or Redis goes first), then Postgres and
// Redis, every one by the pid it was started with (checked against its start time, so a recycled pid is never hit).
// A watchdog process (this file with --watchdog) does the same when the process that started the topology dies
// without stopping it (a crashed or killed test run, a second Ctrl-C): no orphans either way.
//   node dev/n8n/queue.js [--webhooks 1] [--workers 2]   starts one, prints where everything is, Ctrl-C stops it
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const proc = require('./proc');

/** The Postgres major Debian 12 ships (`apt-get install postgresql`); newer majors are used when that is missing. */
const POSTGRES_MAJOR = 15;
const DB_NAME = 'n8n';
const DB_USER = 'n8n';
const INSTALL_HINT =
	'install them with `apt-get install -y postgresql redis-server` (Debian/Ubuntu)';

// ---------------------------------------------------------------------------------------------------- helpers

/** @param {string} cmd @param {string[]} args @param {{env?: NodeJS.ProcessEnv}} [o] */
function run(cmd, args, { env = process.env } = {}) {
	const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
	if (r.status !== 0) {
		const output = `${r.stdout || ''}${r.stderr || ''}`.trim().slice(-2000);
		throw new Error(
			`${path.basename(cmd)} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})${output ? `:\n${output}` : ''}`,
		);
	}
	return r.stdout;
}

/** Postgres's server binaries: Debian's /usr/lib/postgresql/<major>/bin, 15 preferred. */
function postgresBinDir() {
	const root = '/usr/lib/postgresql';
	const majors = fs.existsSync(root)
		? fs
				.readdirSync(root)
				.map(Number)
				.filter((n) => n >= POSTGRES_MAJOR)
		: [];
	majors.sort((a, b) => (a === POSTGRES_MAJOR ? -1 : b === POSTGRES_MAJOR ? 1 : b - a));
	for (const major of majors) {
		const dir = path.join(root, String(major), 'bin');
		if (fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
	}
	throw new Error(
		`Postgres ${POSTGRES_MAJOR} or newer is not installed (no ${root}/<version>/bin/pg_ctl): ${INSTALL_HINT}.`,
	);
}

function redisServerBin() {
	for (const dir of (process.env.PATH || '/usr/bin:/bin')
		.split(path.delimiter)
		.concat('/usr/bin', '/usr/sbin')) {
		const file = path.join(dir, 'redis-server');
		if (fs.existsSync(file)) return file;
	}
	throw new Error(`redis-server is not installed: ${INSTALL_HINT}.`);
}

/**
 * Postgres refuses to run as root: as root its commands run as the `postgres` system user (created by Debian's
 * package) through `runuser`; as any other user they run as that user.
 */
function postgresUser() {
	if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
	const line = fs
		.readFileSync('/etc/passwd', 'utf8')
		.split('\n')
		.find((l) => l.startsWith('postgres:'));
	if (!line) throw new Error(`there is no "postgres" system user: ${INSTALL_HINT}.`);
	const [, , uid, gid] = line.split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

/** @param {string} bin @param {string[]} args @returns {[string, string[]]} */
function asPostgres(bin, args) {
	return postgresUser() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

/** A free TCP port on 127.0.0.1 (the runtime's helper; required lazily, as startQueue requires the runtime). */
const freePort = () => /** @type {Promise<number>} */ (require('./runtime').freePort());

/** Redis answers PING with +PONG once it accepts commands. @param {number} port */
function redisPing(port) {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let reply = '';
		socket.setTimeout(1000);
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			reply += chunk.toString();
			if (reply.includes('\r\n')) socket.end();
		});
		socket.on('close', () => resolve(reply.startsWith('+PONG')));
		socket.on('error', () => resolve(false));
		socket.on('timeout', () => socket.destroy());
	});
}

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------- Postgres

/**
 * Where Postgres keeps its data: `<dir>/postgres`, when the user it runs as can reach it. As root it runs as the
 * `postgres` user, which needs search permission (x) on every folder above; the state folder itself is opened up
 * for that (it holds nothing secret beyond what its files protect themselves). When a folder above is closed (a
 * clone under /root), the data goes to a folder of its own in the system's temporary folder, named after `dir` so a
 * second start finds it again.
 * @param {string} dir @param {{uid: number, gid: number} | undefined} owner
 */
function postgresDataDir(dir, owner) {
	const inside = path.join(dir, 'postgres');
	if (!owner) return inside;
	const stat = fs.statSync(dir);
	if (stat.uid === process.getuid?.() && (stat.mode & 0o011) !== 0o011)
		fs.chmodSync(dir, stat.mode | 0o011);
	if (spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]).status === 0) return inside;
	const key = crypto.createHash('sha256').update(dir).digest('hex').slice(0, 12);
	return path.join(os.tmpdir(), `n8n-nodes-storefront-postgres-${key}`);
}

/**
 * Postgres in `<dir>/postgres` (created with initdb on first use, reused after), listening on 127.0.0.1:`port`
 * only (no Unix socket), trust authentication for the local user `n8n`, database `n8n`. Started by pg_ctl, which
 * detaches the server from the terminal, so a Ctrl-C reaches n8n but not Postgres: the stop order stays ours.
 * @param {{dir: string, port: number}} o
 */
async function startPostgres({ dir, port }) {
	const bin = postgresBinDir();
	const owner = postgresUser();
	const dataDir = postgresDataDir(dir, owner);
	const logFile = path.join(dataDir, 'server.log');
	const chown = (/** @type {string} */ file) => owner && fs.chownSync(file, owner.uid, owner.gid);
	const fresh = !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
	if (fresh) {
		fs.rmSync(dataDir, { recursive: true, force: true });
		fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
		chown(dataDir);
		run(
			...asPostgres(path.join(bin, 'initdb'), [
				'-D',
				dataDir,
				'-U',
				DB_USER,
				'--auth=trust',
				'-E',
				'UTF8',
				'--no-sync',
			]),
		);
		fs.appendFileSync(
			path.join(dataDir, 'postgresql.conf'),
			"\n# dev/n8n/queue.js: TCP on 127.0.0.1 only (the port is given at start), no Unix socket\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n",
		);
	}
	run(
		...asPostgres(path.join(bin, 'pg_ctl'), [
			'-D',
			dataDir,
			'-l',
			logFile,
			'-o',
			`-p ${port}`,
			'-w',
			'-t',
			'60',
			'start',
		]),
	);
	const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
	const who = proc.identity(pid);
	if (!who) throw new Error(`Postgres started but its pid ${pid} is gone; see ${logFile}`);
	const exists = run(path.join(bin, 'psql'), [
		'-h',
		'127.0.0.1',
		'-p',
		String(port),
		'-U',
		DB_USER,
		'-d',
		'postgres',
		'-tAc',
		`SELECT 1 FROM pg_database WHERE datname = '${DB_NAME}'`,
	]);
	if (exists.trim() !== '1')
		run(path.join(bin, 'createdb'), [
			'-h',
			'127.0.0.1',
			'-p',
			String(port),
			'-U',
			DB_USER,
			DB_NAME,
		]);
	return {
		port,
		who,
		dataDir,
		logFile,
		version: run(path.join(bin, 'postgres'), ['--version']).trim(),
		/** pg_ctl's fast shutdown (ends sessions, no recovery needed), then signals when it does not finish. */
		async stop() {
			if (!proc.isAlive(who)) return;
			const r = spawnSync(
				...asPostgres(path.join(bin, 'pg_ctl'), [
					'-D',
					dataDir,
					'-m',
					'fast',
					'-w',
					'-t',
					'20',
					'stop',
				]),
				{ encoding: 'utf8' },
			);
			if (r.status === 0 && !proc.isAlive(who)) return;
			await stopByPid({ name: 'postgres', kind: 'postgres', ...who });
		},
	};
}

// ---------------------------------------------------------------------------------------------------- Redis

/**
 * Redis on 127.0.0.1:`port` without persistence (the queue only lives as long as the topology), in its own
 * process group (so a Ctrl-C reaches n8n but not Redis).
 * @param {{dir: string, port: number}} o
 */
async function startRedis({ dir, port }) {
	const logFile = path.join(dir, 'redis.log');
	const fd = fs.openSync(logFile, 'a');
	const args = [
		'--port',
		String(port),
		'--bind',
		'127.0.0.1',
		'--save',
		'',
		'--appendonly',
		'no',
		'--daemonize',
		'no',
		'--dir',
		dir,
	];
	const child = spawn(redisServerBin(), args, { detached: true, stdio: ['ignore', fd, fd] });
	fs.closeSync(fd);
	child.unref();
	const who = child.pid === undefined ? undefined : proc.identity(child.pid);
	if (!who) throw new Error(`redis-server did not start; see ${logFile}`);
	const deadline = Date.now() + 15_000;
	while (!(await redisPing(port))) {
		if (child.exitCode !== null || Date.now() > deadline) {
			await stopByPid({ name: 'redis', kind: 'redis', ...who });
			throw new Error(`redis-server on port ${port} did not answer PING; see ${logFile}`);
		}
		await sleep(100);
	}
	const version = (spawnSync(redisServerBin(), ['--version'], { encoding: 'utf8' }).stdout.match(
		/v=(\S+)/,
	) || [])[1];
	return {
		port,
		who,
		logFile,
		version,
		stop: () => stopByPid({ name: 'redis', kind: 'redis', ...who }),
	};
}

// ---------------------------------------------------------------------------------------------------- stopping

/**
 * How each kind of process is asked to stop, and how it is made to when it does not.
 * @type {Record<string, {ask: NodeJS.Signals, force: NodeJS.Signals, graceMs: number}>}
 */
const STOP = {
	// n8n: SIGTERM starts its graceful shutdown (N8N_GRACEFUL_SHUTDOWN_TIMEOUT, 30 s by default, for running executions).
	n8n: { ask: 'SIGTERM', force: 'SIGKILL', graceMs: 35_000 },
	// Postgres: SIGINT is a fast shutdown; SIGQUIT the immediate one (crash recovery at the next start).
	postgres: { ask: 'SIGINT', force: 'SIGQUIT', graceMs: 20_000 },
	redis: { ask: 'SIGTERM', force: 'SIGKILL', graceMs: 10_000 },
	watchdog: { ask: 'SIGTERM', force: 'SIGKILL', graceMs: 5_000 },
};

/** @typedef {{name: string, kind: string, pid: number, start: string}} Recorded */

/**
 * Stop one recorded process (and whatever it started) by pid, politely first.
 * @param {Recorded} who @param {{graceMs?: number}} [o]
 */
async function stopByPid(who, { graceMs = STOP[who.kind].graceMs } = {}) {
	const { ask, force } = STOP[who.kind];
	const children = proc.descendants(who.pid);
	proc.signalIfAlive(who, ask);
	if ((await proc.waitGone([who], graceMs)).length) {
		proc.signalIfAlive(who, force);
		await proc.waitGone([who], 10_000);
	}
	// n8n's task runners end when their broker goes; anything left behind is ended here.
	for (const child of children) proc.signalIfAlive(child, 'SIGKILL');
}

/**
 * Stop recorded processes in the safe order: every n8n process (together), then Postgres and Redis.
 * @param {Recorded[]} list @param {{n8nGraceMs?: number}} [o]
 */
async function stopInOrder(list, { n8nGraceMs } = {}) {
	await Promise.all(
		list.filter((p) => p.kind === 'n8n').map((p) => stopByPid(p, { graceMs: n8nGraceMs })),
	);
	await Promise.all(list.filter((p) => p.kind !== 'n8n').map((p) => stopByPid(p)));
}

/**
 * The record of what a topology runs (`<dir>/processes.json`), kept current by the starting process and read by
 * the watchdog.
 * @param {string} file @param {{parent: {pid: number, start: string}, watchdog?: Recorded, processes: Recorded[]}} data
 */
function writeRecord(file, data) {
	const tmp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(tmp, `${JSON.stringify(data, null, 1)}\n`);
	fs.renameSync(tmp, file);
}

/** Start the watchdog for the record `file`, detached (a Ctrl-C does not reach it). @param {string} file @param {string} logFile */
function startWatchdog(file, logFile) {
	const fd = fs.openSync(logFile, 'a');
	const child = spawn(process.execPath, [__filename, '--watchdog', file], {
		detached: true,
		stdio: ['ignore', fd, fd],
	});
	fs.closeSync(fd);
	child.unref();
	const who = child.pid === undefined ? undefined : proc.identity(child.pid);
	if (!who) throw new Error('the queue-mode watchdog did not start');
	return { name: 'watchdog', kind: 'watchdog', ...who };
}

/**
 * The watchdog: while the process that started the topology lives, do nothing; when it is gone and the record
 * still lists processes (it did not stop them), stop them in order. Ends on SIGTERM (a clean stop).
 * @param {string} file
 */
async function watchdog(file) {
	process.on('SIGTERM', () => process.exit(0));
	process.on('SIGINT', () => {}); // a Ctrl-C meant for the others
	const read = () => JSON.parse(fs.readFileSync(file, 'utf8'));
	for (;;) {
		await sleep(500);
		/** @type {{parent: {pid: number, start: string}, processes: Recorded[]}} */
		let record;
		try {
			record = read();
		} catch {
			return; // the state folder is gone: nothing of ours can be running from it
		}
		if (proc.isAlive(record.parent)) continue;
		const left = record.processes.filter(proc.isAlive);
		if (left.length) {
			console.log(
				`${new Date().toISOString()} parent ${record.parent.pid} is gone; stopping ${left.map((p) => `${p.name} (${p.pid})`).join(', ')}`,
			);
			// n8n's output went to the process that is gone, so its graceful shutdown cannot even log: 10 s is plenty.
			await stopInOrder(left, { n8nGraceMs: 10_000 });
			writeRecord(file, { ...record, processes: [] });
		}
		return;
	}
}

// ---------------------------------------------------------------------------------------------------- topology

/**
 * @typedef {Awaited<ReturnType<typeof import('./runtime').startN8n>> & {name: string, command: string}} N8nProcess
 */

/**
 * Start the queue-mode topology. Everything lives in `dir` (a reused folder keeps its database and encryption key:
 * the demo's second start finds its workflows again). Resolves once every process reports ready (main: database
 * migrated and REST API up; webhook processors and workers: their /healthz/readiness, which checks database and
 * Redis); on any failure what was started is stopped before the error is thrown.
 * @param {{dir: string, webhooks?: number, workers?: number, concurrency?: number, line?: string, install?: string,
 *   env?: Record<string, string>, logLevel?: string, workerLogLevel?: string, mainPort?: number, webhookPorts?: number[],
 *   encryptionKey?: string, log?: (line: string) => void, timeoutMs?: number,
 *   registry?: import('./runtime').Registry}} o
 * `registry`: every process runs where the public npm registry is the local one (dev/n8n/registry.js), each with its
 * own package folder, as when n8n's main process has them all install a community package.
 */
async function startQueue(o) {
	const runtime = require('./runtime');
	const { webhooks = 1, workers = 2, concurrency = 10, log = () => {} } = o;
	const dir = path.resolve(o.dir);
	fs.mkdirSync(dir, { recursive: true });
	// Fail before starting anything when a part is missing.
	postgresBinDir();
	redisServerBin();
	runtime.assertInstalled(o.line);

	const recordFile = path.join(dir, 'processes.json');
	const parent = /** @type {{pid: number, start: string}} */ (proc.identity(process.pid));
	/** @type {Recorded[]} */
	const recorded = [];
	writeRecord(recordFile, { parent, processes: recorded });
	const watch = startWatchdog(recordFile, path.join(dir, 'watchdog.log'));
	const record = () => writeRecord(recordFile, { parent, watchdog: watch, processes: recorded });

	/** @type {N8nProcess[]} */
	const n8n = [];
	/** @type {Awaited<ReturnType<typeof startPostgres>> | undefined} */
	let postgres;
	/** @type {Awaited<ReturnType<typeof startRedis>> | undefined} */
	let redis;
	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		const children = n8n.flatMap((p) => (p.child.pid ? proc.descendants(p.child.pid) : []));
		await Promise.all(n8n.map((p) => p.stop(STOP.n8n.graceMs)));
		for (const child of children) proc.signalIfAlive(child, 'SIGKILL');
		await Promise.all([postgres?.stop(), redis?.stop()]);
		recorded.length = 0;
		record();
		await stopByPid(watch);
		log(
			`stopped ${n8n.map((p) => p.name).join(', ')}${postgres ? ', postgres' : ''}${redis ? ', redis' : ''}`,
		);
	};

	try {
		const t0 = Date.now();
		// Side by side; each is recorded as soon as it runs, so a failure of the other still stops it.
		const [pg, rd] = await Promise.allSettled([
			freePort().then(async (port) => {
				postgres = await startPostgres({ dir, port });
				recorded.push({ name: 'postgres', kind: 'postgres', ...postgres.who });
				record();
				return postgres;
			}),
			freePort().then(async (port) => {
				redis = await startRedis({ dir, port });
				recorded.push({ name: 'redis', kind: 'redis', ...redis.who });
				record();
				return redis;
			}),
		]);
		if (pg.status === 'rejected') throw pg.reason;
		if (rd.status === 'rejected') throw rd.reason;
		const db = pg.value;
		const queue = rd.value;
		log(
			`postgres ${db.version.replace(/^postgres \(PostgreSQL\) /, '')} on 127.0.0.1:${db.port} and redis ${queue.version} on 127.0.0.1:${queue.port} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
		);

		const keyFile = path.join(dir, 'encryption-key');
		const encryptionKey =
			o.encryptionKey ||
			(fs.existsSync(keyFile)
				? fs.readFileSync(keyFile, 'utf8').trim()
				: crypto.randomBytes(24).toString('base64url'));
		fs.writeFileSync(keyFile, `${encryptionKey}\n`, { mode: 0o600 });

		const mainPort = o.mainPort || (await freePort());
		const webhookPorts = [];
		for (let i = 0; i < webhooks; i++) webhookPorts.push(o.webhookPorts?.[i] || (await freePort()));
		const mainUrl = `http://127.0.0.1:${mainPort}`;
		const webhookUrl = `http://127.0.0.1:${webhookPorts[0]}`;
		/** The environment every process shares: one database, one queue, one encryption key, one public URL each. */
		const shared = {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(db.port),
			DB_POSTGRESDB_DATABASE: DB_NAME,
			DB_POSTGRESDB_USER: DB_USER,
			DB_POSTGRESDB_PASSWORD: '',
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(queue.port),
			N8N_ENCRYPTION_KEY: encryptionKey,
			N8N_EDITOR_BASE_URL: mainUrl,
			// The production webhook URL the editor shows (behind a load balancer: its URL).
			N8N_WEBHOOK_URL: `${webhookUrl}/`,
			...(o.env || {}),
		};

		/** How each n8n process was started: `restart` starts it again so. @type {Map<string, {command: string, extra: any}>} */
		const starts = new Map();
		/**
		 * @param {string} name @param {string} command
		 * @param {{port: number, logLevel?: string, env: Record<string, string>, args?: string[], readyPaths?: string[]}} extra
		 */
		const start = async (name, command, extra) => {
			starts.set(name, { command, extra });
			const started = await runtime.startN8n({
				userFolder: path.join(dir, name),
				logFile: path.join(dir, `${name}.log`),
				line: o.line,
				install: o.install,
				registry: o.registry,
				command,
				timeoutMs: o.timeoutMs,
				...extra,
			});
			const p = /** @type {N8nProcess} */ (Object.assign(started, { name, command }));
			n8n.push(p);
			const who = p.child.pid === undefined ? undefined : proc.identity(p.child.pid);
			if (who) recorded.push({ name, kind: 'n8n', ...who });
			record();
			log(
				`${name.padEnd(9)} n8n ${command}${extra.args ? ` ${extra.args.join(' ')}` : ''} ready at ${p.url} in ${(p.startupMs / 1000).toFixed(1)} s (pid ${p.child.pid})`,
			);
			return p;
		};

		// The main process first: it creates and migrates the database the others only open.
		const main = await start('main', 'start', {
			port: mainPort,
			logLevel: o.logLevel,
			env: { ...shared, N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' },
		});
		const rest = await Promise.all([
			...webhookPorts.map((port, i) =>
				start(`webhook-${i + 1}`, 'webhook', {
					port,
					logLevel: o.logLevel,
					env: shared,
					readyPaths: ['/healthz/readiness'],
				}),
			),
			...Array.from({ length: workers }, async (_, i) => {
				// A worker serves only its health endpoints, on QUEUE_HEALTH_CHECK_PORT: that is its "port" here.
				const port = await freePort();
				return start(`worker-${i + 1}`, 'worker', {
					port,
					args: [`--concurrency=${concurrency}`],
					// "Worker started execution <id>" is an info line: the record of which worker ran what.
					logLevel: o.workerLogLevel || 'info',
					env: {
						...shared,
						QUEUE_HEALTH_CHECK_ACTIVE: 'true',
						QUEUE_HEALTH_CHECK_PORT: String(port),
						N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					},
					readyPaths: ['/healthz/readiness'],
				});
			}),
		]);
		const webhookProcesses = rest.slice(0, webhooks);
		const workerProcesses = rest.slice(webhooks);
		let mainProcess = main;
		return {
			dir,
			get main() {
				return mainProcess;
			},
			webhooks: webhookProcesses,
			workers: workerProcesses,
			postgres: db,
			redis: queue,
			encryptionKey,
			/** Editor and REST API. */
			url: main.url,
			/** Where production webhooks go (the first webhook processor). */
			webhookUrl,
			version: main.version,
			startupMs: Date.now() - t0,
			/** Every process of the topology with its pid (n8n's include their task runners when asked for CPU). */
			processes() {
				return [
					...n8n.map((p) => ({
						name: p.name,
						kind: 'n8n',
						pid: /** @type {number} */ (p.child.pid),
					})),
					{ name: 'postgres', kind: 'postgres', pid: db.who.pid },
					{ name: 'redis', kind: 'redis', pid: queue.who.pid },
				];
			},
			/** Which worker ran which execution, from the workers' own log lines ("Worker started execution <id>"). */
			executionsByWorker() {
				/** @type {Record<string, string[]>} */
				const byWorker = {};
				for (const worker of workerProcesses) {
					const text = fs.readFileSync(path.join(dir, `${worker.name}.log`), 'utf8');
					byWorker[worker.name] = [...text.matchAll(/Worker started execution (\d+)/g)].map(
						(m) => m[1],
					);
				}
				return byWorker;
			},
			/**
			 * Stops the named n8n processes, with SIGTERM (n8n's own shutdown) or SIGKILL (at once, with their task
			 * runners), runs `whileDown`, then starts them again as before, main first; Postgres and Redis stay up.
			 * @param {string[]} names @param {{signal?: 'SIGTERM' | 'SIGKILL', whileDown?: () => Promise<void>}} [how]
			 */
			async restart(names, { signal = 'SIGTERM', whileDown } = {}) {
				const down = n8n.filter((p) => names.includes(p.name));
				const t0 = Date.now();
				/** How each stopped process ended. @type {Record<string, {code: number | null, signal: NodeJS.Signals | null}>} */
				const exits = {};
				await Promise.all(
					down.map(async (p) => {
						if (signal === 'SIGTERM') await p.stop(STOP.n8n.graceMs);
						else {
							const children = p.child.pid ? proc.descendants(p.child.pid) : [];
							p.child.kill('SIGKILL');
							for (const child of children) proc.signalIfAlive(child, 'SIGKILL');
						}
						exits[p.name] = /** @type {{code: number | null, signal: NodeJS.Signals | null}} */ (
							await p.exited
						);
					}),
				);
				for (const p of down) {
					n8n.splice(n8n.indexOf(p), 1);
					const at = recorded.findIndex((r) => r.name === p.name);
					if (at >= 0) recorded.splice(at, 1);
				}
				record();
				await whileDown?.();
				const again = async (/** @type {N8nProcess} */ p) => {
					const { command, extra } = /** @type {{command: string, extra: any}} */ (
						starts.get(p.name)
					);
					const started = await start(p.name, command, extra);
					for (const list of [webhookProcesses, workerProcesses]) {
						const at = list.indexOf(p);
						if (at >= 0) list[at] = started;
					}
					if (p === mainProcess) mainProcess = started;
				};
				for (const p of down.filter((p) => p.name === 'main')) await again(p);
				await Promise.all(down.filter((p) => p.name !== 'main').map(again));
				return { downMs: Date.now() - t0, exits };
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

module.exports = {
	POSTGRES_MAJOR,
	startQueue,
	startPostgres,
	startRedis,
	postgresBinDir,
	redisServerBin,
	freePort,
};

if (require.main === module) {
	const args = process.argv.slice(2);
	if (args[0] === '--watchdog') {
		watchdog(args[1]).then(() => process.exit(0));
	} else {
		const option = (/** @type {string} */ name, /** @type {number} */ fallback) => {
			const at = args.indexOf(`--${name}`);
			return at >= 0 ? Number(args[at + 1]) : fallback;
		};
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-queue-'));
		startQueue({
			dir,
			webhooks: option('webhooks', 1),
			workers: option('workers', 2),
			log: (line) => console.log(line),
		}).then(
			(topology) => {
				console.log(
					`queue mode up in ${(topology.startupMs / 1000).toFixed(1)} s: editor ${topology.url}, webhooks ${topology.webhookUrl}; state in ${dir}. Ctrl-C stops it.`,
				);
				let stopping = false;
				const end = () => {
					if (stopping) return;
					stopping = true;
					topology.stop().then(() => {
						fs.rmSync(dir, { recursive: true, force: true });
						process.exit(0);
					});
				};
				process.on('SIGINT', end);
				process.on('SIGTERM', end);
			},
			(error) => {
				console.error(error.message);
				process.exit(1);
			},
		);
	}
}

// @ts-check
// Running the prepared n8n runtimes (dev/n8n/prepare.js: one per n8n line, in a user-level cache): how to put
// this package where n8n finds it (community-package folder or custom extensions folder), the environment of an
// isolated n8n, and how to start one on a given port. Used by the demo (scripts/demo.js), the e2e, browser and
// matrix runs and bench/n8n.js.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;
const { CACHE_ROOT, DEFAULT_LINE, resolveRuntime } = require('./prepare');

/**
 * The ways users install the package: copied into n8n's community-package folder, or into a custom extensions
 * folder; or by name through n8n's Community Nodes from an npm registry (dev/n8n/registry.js), which leaves it in the
 * community-package folder too.
 */
const INSTALLS = ['community', 'custom', 'registry'];

/** @typedef {{env(userFolder: string): Record<string, string>, command(file: string, args: string[]): {file: string, args: string[]}}} Registry */

/**
 * Node type ids as n8n registers them: `<package name>.<node name>` for a community package (what users'
 * workflows carry after an npm install), `CUSTOM.<node name>` for a custom extensions folder.
 * @param {string} [install]
 */
function typesFor(install = 'community') {
	if (!INSTALLS.includes(install))
		throw new Error(`unknown install path "${install}" (known: ${INSTALLS.join(', ')})`);
	const prefix = install === 'custom' ? 'CUSTOM' : PACKAGE_NAME; // a registry install is a community package
	return {
		action: `${prefix}.storefront`,
		tool: `${prefix}.storefrontTool`,
		trigger: `${prefix}.storefrontTrigger`,
		poll: `${prefix}.storefrontPollingTrigger`,
		credential: 'storefrontApi',
	};
}
const TYPES = typesFor('community');

/**
 * A workflow (JSON as exported, with community-package node ids) with its node ids rewritten for `install`.
 * @param {any} workflow @param {string} install
 */
function retype(workflow, install) {
	const from = typesFor('community');
	const to = typesFor(install);
	const map = new Map(
		Object.keys(from).map((k) => [
			from[/** @type {keyof typeof from} */ (k)],
			to[/** @type {keyof typeof to} */ (k)],
		]),
	);
	return {
		...workflow,
		nodes: workflow.nodes.map((/** @type {any} */ n) => ({
			...n,
			type: map.get(n.type) ?? n.type,
		})),
	};
}

/** @param {string} [line] */
function assertInstalled(line = DEFAULT_LINE) {
	return resolveRuntime(line);
}

/** Where freePort picks: below Linux's ephemeral range (32768 and up by default). */
const PORT_RANGE = { from: 20_000, size: 12_000 };
/** Ports this process handed out: never twice, as a port stays free until the process it is for binds it. */
const handedOut = new Set();

/** Whether 127.0.0.1:`port` can be listened on now. @param {number} port @returns {Promise<boolean>} */
function canListen(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.unref();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/**
 * A free TCP port on 127.0.0.1 for a process to bind (tests never use fixed ports). Not one the kernel picks
 * (listen on 0): those come from the ephemeral range, where outgoing connections take their local ports too, so one
 * could take it before n8n binds it ("n8n's port … is already in use", once in the queue cell, where Postgres, Redis
 * and HTTP clients open many); and the kernel may hand the same one to two calls made before either is bound.
 * @returns {Promise<number>}
 */
async function freePort() {
	for (let attempt = 0; attempt < 500; attempt++) {
		const port = PORT_RANGE.from + Math.floor(Math.random() * PORT_RANGE.size);
		if (handedOut.has(port)) continue;
		// Taken before the check, so that a call running at the same time cannot pick it too.
		handedOut.add(port);
		if (await canListen(port)) return port;
		handedOut.delete(port);
	}
	throw new Error(
		`no free port between ${PORT_RANGE.from} and ${PORT_RANGE.from + PORT_RANGE.size - 1}`,
	);
}

/**
 * Where the package goes for each install path, below n8n's user folder (N8N_USER_FOLDER; n8n keeps its own
 * data in `<userFolder>/.n8n`):
 * - community: `.n8n/nodes/node_modules/<name>/`, as n8n's community-package installer leaves it; n8n reads the
 *   package.json lists and registers `<name>.<node>`;
 * - custom: `.n8n/custom/node_modules/<name>/`, as "npm install <name>" inside ~/.n8n/custom (n8n's guide for
 *   private nodes, and Docker images that mount /home/node/.n8n/custom) leaves it; n8n is pointed at the folder with
 *   N8N_CUSTOM_EXTENSIONS, globs every `*.node.js` / `*.credentials.js` below it and registers `CUSTOM.<node>`.
 * @param {string} userFolder @param {string} [install]
 */
function packageTarget(userFolder, install = 'community', name = PACKAGE_NAME) {
	return path.join(
		userFolder,
		'.n8n',
		install === 'custom' ? 'custom' : 'nodes',
		'node_modules',
		name,
	);
}

/**
 * Install the built package for n8n. Files are copied, not linked, so `n8n-workflow` resolves to n8n's own copy,
 * as it does for a real install.
 * @param {string} userFolder @param {{install?: string, packageRoot?: string}} [o]
 */
function installPackage(userFolder, { install = 'community', packageRoot = ROOT } = {}) {
	const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8'));
	const entry = manifest.n8n && [
		...(manifest.n8n.nodes || []),
		...(manifest.n8n.credentials || []),
	];
	for (const file of entry || []) {
		if (!fs.existsSync(path.join(packageRoot, file))) {
			throw new Error(`${file} is missing: run \`npm run build\` first.`);
		}
	}
	const target = packageTarget(userFolder, install, manifest.name);
	fs.rmSync(target, { recursive: true, force: true });
	fs.mkdirSync(target, { recursive: true });
	fs.copyFileSync(path.join(packageRoot, 'package.json'), path.join(target, 'package.json'));
	for (const file of manifest.files || ['dist']) {
		const from = path.join(packageRoot, file);
		if (fs.existsSync(from)) fs.cpSync(from, path.join(target, file), { recursive: true });
	}
	return target;
}

/**
 * Environment for an isolated n8n: SQLite in `userFolder`, bound to 127.0.0.1, every feature that calls
 * the internet switched off (diagnostics, version checks, templates, banners, AI, verified-package
 * lookups), its own task-runner port so several instances can run side by side.
 * The package is found in the user folder (see packageTarget); for a custom install n8n is pointed at it.
 * @param {{port: number, userFolder: string, runnerPort: number, logLevel?: string, install?: string, line?: string}} o
 */
function n8nEnv({
	port,
	userFolder,
	runnerPort,
	logLevel = 'warn',
	install = 'community',
	line = DEFAULT_LINE,
}) {
	const { nodeBin } = resolveRuntime(line);
	const base = `http://127.0.0.1:${port}`;
	/** @type {Record<string, string>} */
	const env = {};
	for (const key of ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR'])
		if (process.env[key]) env[key] = String(process.env[key]);
	return {
		...env,
		PATH: `${path.dirname(nodeBin)}${path.delimiter}${env.PATH || '/usr/bin:/bin'}`,
		// As in n8n's own images: outside production n8n puts stack traces into its error answers to webhook callers.
		NODE_ENV: 'production',
		// Node's on-disk code cache for the modules n8n loads at every start: 14.6–15.2 → 11.8–13.6 CPU-seconds here.
		NODE_COMPILE_CACHE: path.join(CACHE_ROOT, 'node-compile-cache'),
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: base,
		N8N_WEBHOOK_URL: `${base}/`,
		N8N_SECURE_COOKIE: 'false',
		DB_TYPE: 'sqlite',
		DB_SQLITE_POOL_SIZE: '4',
		GENERIC_TIMEZONE: 'UTC',
		N8N_LOG_LEVEL: logLevel,
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_RUNNERS_BROKER_PORT: String(runnerPort),
		N8N_PYTHON_ENABLED: 'false',
		// No calls to the internet.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_MCP_COMMUNITY_NODE_DISCOVERY_ENABLED: 'false',
		// The MCP server registry is refreshed from api.n8n.io by a background task (2.x; 1.x refuses the unknown name).
		...(line === '2' ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		// Keep every execution so tests and the demo can inspect them.
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_PRUNE: 'false',
		...(install === 'custom'
			? { N8N_CUSTOM_EXTENSIONS: path.dirname(path.dirname(packageTarget(userFolder, 'custom'))) }
			: {}),
	};
}

/** @typedef {string | {path: string, status: number}} ReadyPath a path that answers 200, or the status it answers once ready */

/**
 * What a main process answers once it is ready. GET /healthz/readiness says so only once the database is migrated
 * (plain /healthz answers as soon as the port is open); n8n 1.x answers it before its REST routes exist, so the main
 * process also waits for /rest/settings, and then for the node and credential types the editor loads: n8n adds their
 * routes after /rest/settings and after starting its event bus (both lines), and GET /types/nodes.json answers 404
 * until then and 401 (nobody logged in) from then on. Asked straight after /rest/settings, it answered 404 once in
 * CI (1.123.81, the registry suite's restart). Without the editor (N8N_DISABLE_UI) there is no /rest/settings: GET
 * /rest/login answers 404 until the REST routes exist and 401 from then on, on both lines.
 */
const MAIN_READY = [
	'/healthz/readiness',
	'/rest/settings',
	{ path: '/types/nodes.json', status: 401 },
];
const HEADLESS_MAIN_READY = ['/healthz/readiness', { path: '/rest/login', status: 401 }];

/**
 * Wait until every path in `paths` answers as it does when ready, in turn. Fails early if the process exits.
 * @param {string} url
 * @param {{timeoutMs?: number, child?: import('node:child_process').ChildProcess, paths?: ReadyPath[]}} [o]
 */
async function waitHealthy(url, { timeoutMs = 180_000, child, paths = MAIN_READY } = {}) {
	const deadline = Date.now() + timeoutMs;
	let last = '';
	let next = 0;
	while (Date.now() < deadline) {
		if (child && child.exitCode !== null)
			throw new Error(`n8n exited with code ${child.exitCode} during start`);
		const ready = paths[next];
		const { path: readyPath, status } =
			typeof ready === 'string' ? { path: ready, status: 200 } : ready;
		try {
			const res = await fetch(`${url}${readyPath}`);
			if (res.status === status && ++next === paths.length) return;
			if (res.status === status) continue;
			last = `${readyPath} ${res.status}`;
		} catch (error) {
			last = /** @type {Error} */ (error).message;
		}
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	throw new Error(`n8n at ${url} not ready after ${timeoutMs} ms (${last})`);
}

/**
 * A new user folder starts from a copy of a migrated, never-used n8n database (and the `config` beside it that holds
 * its encryption key), one per runtime, kept in the runtime's folder: a first start otherwise runs every migration
 * (2.41.1: 15.3 instead of 11.8 CPU-seconds a start here, median of five; 1.123.81: no measurable difference), and
 * the suites start n8n on a new folder dozens of times a run.
 * The copy is what a first start leaves before anyone uses it, so n8n starts exactly as a first start would go on.
 * Only for SQLite (queue mode's Postgres is its own database). Built by one plain start the first time it is needed.
 * @param {ReturnType<typeof resolveRuntime>} rt @param {string} userFolder @param {Record<string, string>} env
 */
async function seedDatabase(rt, userFolder, env) {
	const folder = path.join(userFolder, '.n8n');
	if (env.DB_TYPE !== 'sqlite' || fs.existsSync(path.join(folder, 'database.sqlite'))) return;
	const template = path.join(rt.dir, '.new-user-folder');
	if (!fs.existsSync(template)) {
		const scratch = fs.mkdtempSync(path.join(rt.dir, '.new-user-folder.partial-'));
		try {
			const first = await startN8n({
				userFolder: scratch,
				line: rt.line,
				installPackage: false,
				seed: false,
			});
			await first.stop();
			const made = path.join(scratch, 'made');
			fs.mkdirSync(made);
			// A clean stop leaves the write-ahead log empty or whole; the shared-memory index is rebuilt on open.
			for (const file of ['config', 'database.sqlite', 'database.sqlite-wal']) {
				if (fs.existsSync(path.join(scratch, '.n8n', file)))
					fs.copyFileSync(path.join(scratch, '.n8n', file), path.join(made, file));
			}
			// Two first starts at once: the first rename wins, the other's copy is dropped.
			try {
				fs.renameSync(made, template);
			} catch (error) {
				if (!fs.existsSync(template)) throw error;
			}
		} finally {
			fs.rmSync(scratch, { recursive: true, force: true });
		}
	}
	fs.mkdirSync(folder, { recursive: true });
	for (const file of fs.readdirSync(template))
		fs.copyFileSync(path.join(template, file), path.join(folder, file));
}

/**
 * Start an n8n process of the prepared runtime of `line` (default: the pinned 2.x) with this package installed
 * the `install` way. `command` is n8n's: `start` (main process), or `webhook` / `worker` for queue mode, which
 * pass their own `readyPaths` (and `env`) as their health endpoints differ.
 * @param {{port?: number, userFolder: string, logFile?: string, echo?: boolean, logLevel?: string,
 *   env?: Record<string, string>, timeoutMs?: number, installPackage?: boolean, line?: string, install?: string,
 *   command?: string, args?: string[], readyPaths?: ReadyPath[], registry?: Registry, seed?: boolean}} o
 * `registry` (dev/n8n/registry.js): n8n runs where the public npm registry is the local one (install "registry").
 * `seed: false` starts a new user folder with n8n's own first start (see seedDatabase).
 */
async function startN8n(o) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startOnce(o);
		} catch (error) {
			// A port freePort found free was bound first by a process of another jest run (a matrix cell beside this
			// one: each run keeps its own list of the ports it handed out). n8n exits at once, before it touches its
			// database; started again on new ports, unless the port in use is one the caller chose.
			const taken = /port (\d+) is already in use/.exec(/** @type {Error} */ (error).message);
			if (!taken || Number(taken[1]) === o.port || attempt === 3) throw error;
		}
	}
}

/** One start of startN8n, on `o.port` or a free port. @param {Parameters<typeof startN8n>[0]} o */
async function startOnce(o) {
	const rt = resolveRuntime(o.line);
	const install = o.install || 'community';
	const port = o.port || (await freePort());
	const runnerPort = await freePort();
	fs.mkdirSync(o.userFolder, { recursive: true });
	// From a registry, n8n installs the package itself (Community Nodes), so nothing is copied.
	if (o.installPackage !== false && install !== 'registry')
		installPackage(o.userFolder, { install });
	const env = {
		...n8nEnv({
			port,
			userFolder: o.userFolder,
			runnerPort,
			logLevel: o.logLevel,
			install,
			line: rt.line,
		}),
		...(o.registry ? o.registry.env(o.userFolder) : {}),
		...(o.env || {}),
	};
	if (o.seed !== false) await seedDatabase(rt, o.userFolder, env);
	const args = [rt.n8nBin, o.command || 'start', ...(o.args || [])];
	const command = o.registry ? o.registry.command(rt.nodeBin, args) : { file: rt.nodeBin, args };
	const started = Date.now();
	const child = spawn(command.file, command.args, {
		cwd: o.userFolder,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const log = o.logFile ? fs.createWriteStream(o.logFile, { flags: 'a' }) : undefined;
	/** @type {string[]} */
	const tail = [];
	const onData = (/** @type {Buffer} */ chunk) => {
		log?.write(chunk);
		if (o.echo) process.stdout.write(chunk);
		tail.push(chunk.toString());
		if (tail.length > 50) tail.shift();
	};
	child.stdout.on('data', onData);
	child.stderr.on('data', onData);
	// Never leave an n8n behind when the process that started it ends (a crashed test run, Ctrl-C twice).
	const killOnExit = () => child.kill('SIGKILL');
	process.once('exit', killOnExit);
	const exited = new Promise((resolve) =>
		child.once('exit', (code, signal) => {
			process.removeListener('exit', killOnExit);
			resolve({ code, signal });
		}),
	);
	const url = `http://127.0.0.1:${port}`;
	const stop = async (timeoutMs = 20_000) => {
		if (child.exitCode === null && child.signalCode === null) {
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
			await exited;
			clearTimeout(timer);
		}
		log?.end();
	};
	try {
		await waitHealthy(url, {
			timeoutMs: o.timeoutMs,
			child,
			paths: o.readyPaths ?? (o.env?.N8N_DISABLE_UI === 'true' ? HEADLESS_MAIN_READY : MAIN_READY),
		});
	} catch (error) {
		await stop(2000);
		const message = /** @type {Error} */ (error).message;
		throw new Error(`${message}\n--- last n8n output ---\n${tail.join('').slice(-4000)}`);
	}
	return {
		url,
		port,
		userFolder: o.userFolder,
		line: rt.line,
		version: rt.version,
		install,
		types: typesFor(install),
		startupMs: Date.now() - started,
		child,
		exited,
		stop,
		output: () => tail.join(''),
	};
}

module.exports = {
	ROOT,
	INSTALLS,
	PACKAGE_NAME,
	TYPES,
	typesFor,
	retype,
	packageTarget,
	assertInstalled,
	freePort,
	installPackage,
	n8nEnv,
	waitHealthy,
	startN8n,
};

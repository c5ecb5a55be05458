#!/usr/bin/env node
// @ts-check
// `npm run dev`: the edit → rebuild → n8n reloads loop of `n8n-node dev`, on this project's pinned n8n.
//   clean dist/ → copy icons and codex files (gulp build:icons) → `tsc -p tsconfig.build.json --watch` (its first
//   compile is the build; later ones rebuild what changed) → icons and codex files copied again when they change →
//   dist/ linked into the dev user folder's custom nodes (<user folder>/.n8n/custom/node_modules/<package> → dist)
//   → the pinned n8n (prepared like `npm start` does) with N8N_DEV_RELOAD=true, which watches the link's target
//   and reloads the nodes after every rebuild, without a restart → the owner account on a fresh folder → the
//   editor URL. Ctrl-C stops every process it started (each in its own process group), and so does the death of
//   any of them.
// Options: --port <n> (default 5678), --line 1|2 (the pinned n8n 1.123.x or 2.41.x, default 2), --user-folder <dir>
// (default ~/.n8n-node-cli/<package>-n8n<line>), --external-n8n (only build, watch and link: n8n runs elsewhere).
// Why not `n8n-node dev` as it is, and where things are: docs/development.md, "npm run dev".
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const PACKAGE_NAME = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).name;
/** The owner account created in a fresh dev user folder (the folder is local to this machine and bound to 127.0.0.1). */
const DEV_OWNER = {
	email: 'dev@storefront.example',
	password: 'Storefront-dev-1',
	firstName: 'Node',
	lastName: 'Developer',
};
/** A change of such a file below these folders runs gulpfile.js's build:icons again (gulp picks what it copies). */
const ASSET_DIRS = ['nodes', 'credentials'];
const ASSET_FILE = /\.(png|svg|json)$/;

/**
 * @param {string[]} argv
 * @returns {{port: number, line: string, userFolder: string, externalN8n: boolean}}
 */
function parseArgs(argv) {
	/** @param {string} name */
	const value = (name) => {
		const at = argv.indexOf(name);
		if (at < 0) return undefined;
		const v = argv[at + 1];
		if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value`);
		return v;
	};
	const known = ['--port', '--line', '--user-folder', '--external-n8n'];
	for (const arg of argv) {
		if (arg.startsWith('--') && !known.includes(arg))
			throw new Error(`unknown option ${arg} (known: ${known.join(', ')})`);
	}
	const line = value('--line') || '2';
	if (!['1', '2'].includes(line)) throw new Error(`--line must be 1 or 2, not "${line}"`);
	const port = Number(value('--port') || 5678);
	if (!Number.isInteger(port) || port < 1 || port > 65535)
		throw new Error(`--port must be a TCP port, not "${value('--port')}"`);
	const folder = value('--user-folder');
	return {
		port,
		line,
		userFolder: path.resolve(
			folder || path.join(os.homedir(), '.n8n-node-cli', `${PACKAGE_NAME}-n8n${line}`),
		),
		externalN8n: argv.includes('--external-n8n'),
	};
}

/** Where the package is linked for n8n: the custom nodes folder of the user folder, as `n8n-node dev` does. */
function linkPath(/** @type {string} */ userFolder) {
	return path.join(userFolder, '.n8n', 'custom', 'node_modules', PACKAGE_NAME);
}

/**
 * Point `<user folder>/.n8n/custom/node_modules/<package>` at dist/ (replacing whatever is there). n8n's custom
 * nodes loader globs `**\/*.node.js` through the link, and with N8N_DEV_RELOAD its watcher subscribes to the link's
 * real path: dist/ only, so only what tsc and the asset copy write there triggers a reload.
 * @param {string} userFolder
 */
function linkDist(userFolder) {
	const link = linkPath(userFolder);
	fs.mkdirSync(path.dirname(link), { recursive: true });
	fs.rmSync(link, { recursive: true, force: true });
	fs.symlinkSync(path.join(ROOT, 'dist'), link, 'dir');
	return link;
}

/** Whether nothing listens on 127.0.0.1:`port`. @param {number} port */
function portFree(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/**
 * Live members of process group `pgid` (Linux: from /proc, zombies excluded); elsewhere whether the group exists.
 * @param {number} pgid @returns {number[]}
 */
function groupMembers(pgid) {
	if (!fs.existsSync('/proc/self/stat')) {
		try {
			process.kill(-pgid, 0);
			return [pgid];
		} catch {
			return [];
		}
	}
	/** @type {number[]} */
	const members = [];
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		let stat;
		try {
			stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
		} catch {
			continue;
		}
		// Fields after "pid (comm) ": state, ppid, pgrp, …
		const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (state !== 'Z' && Number(pgrp) === pgid) members.push(Number(entry));
	}
	return members;
}

/** @param {number} pgid @param {NodeJS.Signals} signal */
function signalGroup(pgid, signal) {
	try {
		process.kill(-pgid, signal);
	} catch {
		// gone already
	}
}

/**
 * A child process in its own process group (so that it, and whatever it starts, can be stopped as one), its output
 * printed line by line with a prefix.
 * @param {{name: string, file: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv, onLine?: (line: string) => void}} o
 */
function startGroup(o) {
	const child = spawn(o.file, o.args, {
		cwd: o.cwd,
		env: o.env || process.env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	const pid = /** @type {number} */ (child.pid);
	/** @type {Promise<{code: number | null, signal: NodeJS.Signals | null}>} */
	const exited = new Promise((resolve) =>
		child.once('exit', (code, signal) => resolve({ code, signal })),
	);
	for (const stream of [child.stdout, child.stderr]) {
		let rest = '';
		stream.on('data', (/** @type {Buffer} */ chunk) => {
			const lines = (rest + chunk.toString()).split(/\r?\n/);
			rest = /** @type {string} */ (lines.pop());
			for (const line of lines) {
				// tsc --watch clears the screen between compiles on a terminal; keep the log readable.
				const text = line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
				if (text.trim()) console.log(`[${o.name}] ${text}`);
				o.onLine?.(text);
			}
		});
	}
	return { name: o.name, child, pid, exited };
}

/** @typedef {ReturnType<typeof startGroup>} Group */

/**
 * Stop a group: SIGTERM to all of it, SIGKILL to whatever is left after `timeoutMs`, then wait until no member is
 * alive (the leader's children, e.g. n8n's task runner, may outlive it by a moment).
 * @param {Group} group @param {number} timeoutMs
 */
async function stopGroup(group, timeoutMs) {
	const running = () => group.child.exitCode === null && group.child.signalCode === null;
	if (running() || groupMembers(group.pid).length) signalGroup(group.pid, 'SIGTERM');
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline && (running() || groupMembers(group.pid).length)) await sleep(100);
	if (running() || groupMembers(group.pid).length) {
		console.log(`[dev] ${group.name} did not stop within ${timeoutMs / 1000} s: SIGKILL`);
		signalGroup(group.pid, 'SIGKILL');
	}
	if (running()) await group.exited;
	const until = Date.now() + 5000;
	while (groupMembers(group.pid).length && Date.now() < until) await sleep(100);
}

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Run `gulp build:icons` (icons and codex files next to each compiled node), as `npm run build` does. */
function copyAssets(/** @type {(g: Group | undefined) => void} */ track) {
	const group = startGroup({
		name: 'assets',
		file: process.execPath,
		args: [path.join(ROOT, 'node_modules', 'gulp', 'bin', 'gulp.js'), '--silent', 'build:icons'],
		cwd: ROOT,
	});
	track(group);
	return group.exited.then(({ code, signal }) => {
		track(undefined);
		if (code !== 0) throw new Error(`gulp build:icons failed (${code ?? signal})`);
	});
}

async function main() {
	const options = parseArgs(process.argv.slice(2));
	const started = Date.now();
	const log = (/** @type {string} */ text) => console.log(`[dev] ${text}`);

	/** @type {Group[]} */
	const groups = [];
	/** @type {Group | undefined} */
	let assetRun;
	/** @type {fs.FSWatcher[]} */
	const watchers = [];
	let stopping = false;
	let firstSignalAt = 0;
	// Whatever happens to this process, none of its children outlives it.
	process.on('exit', () => {
		for (const g of [...groups, ...(assetRun ? [assetRun] : [])])
			if (groupMembers(g.pid).length) signalGroup(g.pid, 'SIGKILL');
	});
	const shutdown = async (/** @type {number} */ code, /** @type {string} */ why) => {
		if (stopping) return;
		stopping = true;
		log(
			`${why}: stopping ${groups.map((g) => `${g.name} (pid ${g.pid})`).join(', ') || 'nothing started yet'}…`,
		);
		for (const w of watchers) w.close();
		await Promise.all(
			[...groups, ...(assetRun ? [assetRun] : [])].map((g) =>
				stopGroup(g, g.name === 'n8n' ? 20_000 : 5000),
			),
		);
		log('stopped.');
		process.exit(code);
	};
	for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
		process.on(signal, () => {
			// `npm run dev` passes the terminal's Ctrl-C on, so one press can arrive twice: only a later one forces.
			if (stopping && Date.now() - firstSignalAt > 2000) {
				log('second interrupt: SIGKILL to everything');
				process.exit(130);
			}
			firstSignalAt ||= Date.now();
			void shutdown(0, signal);
		});
	}
	const watch = (/** @type {Group} */ g) => {
		groups.push(g);
		g.exited.then(({ code, signal }) => {
			if (!stopping) void shutdown(1, `${g.name} exited unexpectedly (${code ?? signal})`);
		});
	};

	try {
		/** @type {any} */
		let rt;
		if (!options.externalN8n) {
			if (!(await portFree(options.port))) {
				throw new Error(
					`port ${options.port} is in use (another n8n, \`npm start\`?): choose another with --port`,
				);
			}
			log(
				`preparing the pinned n8n ${options.line}.x runtime (user cache; minutes the first time)`,
			);
			rt = require('../dev/n8n/prepare').prepare({
				line: options.line,
				log: (/** @type {string} */ l) => log(l),
			});
		}

		log('building: clean dist/, icons and codex files, then tsc -p tsconfig.build.json --watch');
		fs.rmSync(path.join(ROOT, 'dist'), { recursive: true, force: true });
		await copyAssets((g) => (assetRun = g));
		/** @type {(errors: number) => void} */
		let compiled = () => {};
		const firstCompile = new Promise((resolve) => (compiled = resolve));
		let compileStart = Date.now();
		/** Called after each rebuild once n8n runs (below). */
		let rebuilt = (/** @type {number} */ _since) => {};
		const tsc = startGroup({
			name: 'tsc',
			file: process.execPath,
			args: [
				path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
				'-p',
				'tsconfig.build.json',
				'--watch',
				'--preserveWatchOutput',
				'--pretty',
				'false',
			],
			cwd: ROOT,
			onLine: (line) => {
				if (/File change detected/.test(line)) compileStart = Date.now();
				const found = line.match(/Found (\d+) errors?\. Watching for file changes/);
				if (found) {
					log(
						`compiled in ${((Date.now() - compileStart) / 1000).toFixed(1)} s${found[1] === '0' ? '' : ` with ${found[1]} error(s) (emitted anyway)`}`,
					);
					compiled(Number(found[1]));
					rebuilt(compileStart);
				}
			},
		});
		watch(tsc);
		await Promise.race([firstCompile, tsc.exited]);
		if (stopping) return;
		const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
		for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			if (!fs.existsSync(path.join(ROOT, file)))
				throw new Error(`${file} was not built: see tsc's errors above`);
		}

		// Icons and codex files: copied again (all of them, by gulpfile.js) after a change, one run at a time.
		let pending = false;
		const recopy = async () => {
			if (assetRun) {
				pending = true;
				return;
			}
			do {
				pending = false;
				try {
					await copyAssets((g) => (assetRun = g));
					log('icons and codex files copied');
				} catch (error) {
					if (!stopping) log(/** @type {Error} */ (error).message);
				}
			} while (pending && !stopping);
		};
		// One watcher per folder, not fs.watch's `recursive`: on Linux, Node 20's recursive watch reports nothing more of a
		// file once it has been replaced by a rename (sed -i, editors' safe write). New folders are watched as they appear.
		const watched = new Set();
		const watchTree = (/** @type {string} */ dir) => {
			if (watched.has(dir)) return;
			watched.add(dir);
			watchers.push(
				fs.watch(dir, (_event, file) => {
					if (!file || stopping) return;
					const full = path.join(dir, String(file));
					if (ASSET_FILE.test(full)) void recopy();
					else if (fs.statSync(full, { throwIfNoEntry: false })?.isDirectory()) watchTree(full);
				}),
			);
			for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
				if (entry.isDirectory()) watchTree(path.join(dir, entry.name));
			}
		};
		for (const dir of ASSET_DIRS) watchTree(path.join(ROOT, dir));

		const link = linkDist(options.userFolder);
		log(`linked ${link} → ${path.join(ROOT, 'dist')}`);
		const others = fs
			.readdirSync(path.dirname(link))
			.filter((name) => name !== PACKAGE_NAME && !name.startsWith('.'));
		if (others.length)
			log(`also in that custom folder, and loaded by n8n too: ${others.join(', ')}`);

		if (options.externalN8n) {
			console.log(`
[dev] watching; n8n is not started (--external-n8n). Start yours on this user folder with hot reload:
        N8N_USER_FOLDER=${options.userFolder} N8N_DEV_RELOAD=true NODE_ENV=development n8n start
      (n8n 1.x reloads only when NODE_ENV is unset or development), or link dist/ into your n8n's custom folder:
        mkdir -p ~/.n8n/custom/node_modules && ln -sfn ${path.join(ROOT, 'dist')} ~/.n8n/custom/node_modules/${PACKAGE_NAME}
      Ctrl-C stops the watch.`);
			return;
		}

		const runtime = require('../dev/n8n/runtime');
		const runnerPort = await runtime.freePort();
		const env = {
			...runtime.n8nEnv({
				port: options.port,
				userFolder: options.userFolder,
				runnerPort,
				logLevel: 'info',
				line: options.line,
			}),
			N8N_DEV_RELOAD: 'true',
			// n8n 1.x sets up the hot reload only outside production; n8n 2.x's dev mode also serves assets uncached.
			NODE_ENV: 'development',
		};
		log(`starting n8n ${rt.version} on Node ${rt.nodeVersion} (user folder ${options.userFolder})`);
		let reloadedAt = 0;
		const n8n = startGroup({
			name: 'n8n',
			file: rt.nodeBin,
			args: [rt.n8nBin, 'start'],
			cwd: options.userFolder,
			env,
			onLine: (line) => {
				if (/Hot reload triggered for CUSTOM/.test(line)) reloadedAt = Date.now();
			},
		});
		watch(n8n);
		log(`n8n pid ${n8n.pid}, tsc pid ${tsc.pid}`);
		const url = `http://127.0.0.1:${options.port}`;
		await runtime.waitHealthy(url, { child: n8n.child, timeoutMs: 300_000 });

		const { N8nClient } = require('../dev/n8n/rest');
		const client = new N8nClient(url);
		const settings = await client.settings();
		let login;
		if (settings.userManagement?.showSetupOnFirstLoad) {
			await client.request('POST', '/owner/setup', DEV_OWNER);
			login = `${DEV_OWNER.email} / ${DEV_OWNER.password} (owner account created in this user folder)`;
		} else {
			login = `the owner account of this user folder (${DEV_OWNER.email} / ${DEV_OWNER.password} if npm run dev created it)`;
		}
		// n8n sets its file watcher up after it answers (not awaited), and a machine out of inotify watches or without
		// @parcel/watcher's binary has none: a rebuild n8n has not reloaded 3 s later is reloaded through the endpoint
		// N8N_DEV_RELOAD registers on 2.x (1.x has none: a restart shows the change).
		rebuilt = (since) => {
			void sleep(3000).then(async () => {
				if (stopping || reloadedAt >= since) return;
				if (options.line === '1')
					return log(
						"n8n's file watcher did not reload the nodes: restart npm run dev to see the change",
					);
				log("n8n's file watcher did not reload the nodes within 3 s: POST /rest/dev/reload");
				await client
					.request('POST', '/dev/reload')
					.catch((/** @type {Error} */ error) => log(`reload failed: ${error.message}`));
			});
		};
		console.log(`
[dev] ready in ${((Date.now() - started) / 1000).toFixed(0)} s: n8n ${rt.version} with hot reload; Ctrl-C stops everything.
[dev]   editor       ${url}
[dev]   login        ${login}
[dev]   nodes        CUSTOM.storefront, CUSTOM.storefrontTrigger (search "Storefront"); credential storefrontApi
[dev]   user folder  ${options.userFolder}
[dev] Edit nodes/ or credentials/: tsc rebuilds dist/ and n8n reloads the nodes; reopen a node's panel to see the change.`);
	} catch (error) {
		console.error(`[dev] ✗ ${/** @type {Error} */ (error).message}`);
		await shutdown(1, 'failed');
	}
}

module.exports = { DEV_OWNER, parseArgs, linkPath, groupMembers };

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
}

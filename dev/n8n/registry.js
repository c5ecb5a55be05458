// @ts-check
// A local npm registry that n8n processes take for the public one, so tests can install this package the way users
// do: by name, through n8n's Community Nodes (Settings → Community Nodes → Install, `POST /rest/community-packages`),
// running n8n's own, unmodified install code (`npm pack <name>@<version> --registry=https://registry.npmjs.org`,
// then `npm install` in the extracted package).
//
// Why not simply N8N_COMMUNITY_PACKAGES_REGISTRY=http://127.0.0.1:…: n8n refuses any registry other than the default
// without an enterprise licence (FeatureNotLicensedError feat:communityNodes:customRegistry, in
// CommunityPackagesService.getNpmRegistry of 2.41.1 and 1.123.81), and a scope in .npmrc does not cover an unscoped
// package. So the default registry's host name is brought here, for the n8n processes only:
//  - verdaccio (a real npm registry, from npm: pinned in dev/n8n/verdaccio, installed once into the user-level cache)
//    serves the packages on 127.0.0.1:<random port>;
//  - a TLS front on <random 127.x.y.z>:443 with a certificate for registry.npmjs.org, signed by a CA made for this
//    run (openssl), passes every request on to verdaccio;
//  - each n8n process starts in its own mount namespace (`unshare --mount`, root only) where /etc/hosts is a copy
//    that names the front for registry.npmjs.org (and refuses api.n8n.io, n8n's ban check, which fails open); it
//    trusts the CA through NODE_EXTRA_CA_CERTS (n8n's own registry requests) and npm_config_cafile (the npm it runs),
//    and npm gets its own cache and user config, so nothing lands in, or is read from, the machine's.
// The machine's own name resolution, CA store and npm configuration are never touched: other processes (and CI)
// still reach the real registry. Everything lives in one folder; processes are stopped by their recorded identity.
'use strict';

const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const path = require('node:path');

const proc = require('./proc');
const { CACHE_ROOT, resolveRuntime } = require('./prepare');
const { freePort } = require('./runtime');

/** n8n's default registry (DEFAULT_REGISTRY in its CommunityPackagesService): the only one it uses unlicensed. */
const REGISTRY_URL = 'https://registry.npmjs.org';
const REGISTRY_HOST = new URL(REGISTRY_URL).hostname;
/** n8n's ban check (checkNpmPackageStatus) posts here; it fails open, so it is refused at once rather than left to time out. */
const BAN_CHECK_HOST = 'api.n8n.io';
const PUBLISHER = {
	name: 'storefront-ci',
	password: 'storefront-ci-password',
	email: 'ci@storefront.example',
};

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether this process may create mount namespaces and listen on port 443 (both need root here). */
function canRedirect() {
	return (
		typeof process.getuid === 'function' &&
		process.getuid() === 0 &&
		fs.existsSync('/usr/bin/unshare')
	);
}

/**
 * A CA made for this run and a server certificate for registry.npmjs.org signed by it (openssl; 2 days).
 * @param {string} dir
 */
function makeCertificates(dir) {
	const file = (/** @type {string} */ name) => path.join(dir, name);
	const openssl = (/** @type {string[]} */ args) =>
		execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
	openssl([
		'req',
		'-x509',
		'-newkey',
		'rsa:2048',
		'-nodes',
		'-keyout',
		file('ca.key'),
		'-out',
		file('ca.pem'),
		'-days',
		'2',
		'-subj',
		'/CN=n8n-nodes-storefront test registry CA',
		'-addext',
		'basicConstraints=critical,CA:TRUE',
		'-addext',
		'keyUsage=critical,keyCertSign,cRLSign',
	]);
	openssl([
		'req',
		'-newkey',
		'rsa:2048',
		'-nodes',
		'-keyout',
		file('server.key'),
		'-out',
		file('server.csr'),
		'-subj',
		`/CN=${REGISTRY_HOST}`,
	]);
	fs.writeFileSync(
		file('server.ext'),
		`subjectAltName=DNS:${REGISTRY_HOST}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
	);
	openssl([
		'x509',
		'-req',
		'-in',
		file('server.csr'),
		'-CA',
		file('ca.pem'),
		'-CAkey',
		file('ca.key'),
		'-CAcreateserial',
		'-out',
		file('server.pem'),
		'-days',
		'2',
		'-extfile',
		file('server.ext'),
	]);
	return {
		caFile: file('ca.pem'),
		key: fs.readFileSync(file('server.key')),
		cert: fs.readFileSync(file('server.pem')),
	};
}

/** verdaccio's pinned install (package.json and lockfile; it needs an npm override the published package may not carry). */
const VERDACCIO_DIR = path.join(__dirname, 'verdaccio');

/**
 * verdaccio, installed once into the user-level cache beside the n8n runtimes (`npm ci --ignore-scripts` into a
 * temporary folder, renamed into place when complete); the folder name carries the lockfile's hash. Returns its bin.
 * @param {(line: string) => void} [log]
 */
function ensureVerdaccio(log = () => {}) {
	const lock = fs.readFileSync(path.join(VERDACCIO_DIR, 'package-lock.json'));
	const version = JSON.parse(lock.toString('utf8')).packages['node_modules/verdaccio'].version;
	const dir = path.join(
		CACHE_ROOT,
		`verdaccio-${version}-${crypto.createHash('sha256').update(lock).digest('hex').slice(0, 12)}`,
	);
	const bin = path.join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
	if (fs.existsSync(path.join(dir, '.prepared'))) return bin;
	log(`installing verdaccio ${version} into ${dir}`);
	const partial = `${dir}.partial-${process.pid}`;
	fs.rmSync(partial, { recursive: true, force: true });
	fs.mkdirSync(partial, { recursive: true });
	for (const file of ['package.json', 'package-lock.json'])
		fs.copyFileSync(path.join(VERDACCIO_DIR, file), path.join(partial, file));
	execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: partial,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	fs.writeFileSync(path.join(partial, '.prepared'), `${new Date().toISOString()}\n`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.renameSync(partial, dir);
	return bin;
}

/**
 * Start verdaccio (which needs Node ≥ 22: run on the prepared runtime's Node 24) with no uplinks (it serves only what
 * is published to it) and its web UI off.
 * @param {{dir: string, nodeBin: string}} o
 */
async function startVerdaccio({ dir, nodeBin }) {
	const verdaccioBin = ensureVerdaccio();
	const port = await freePort();
	const config = path.join(dir, 'verdaccio.yaml');
	fs.writeFileSync(
		config,
		[
			`storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
			'auth:',
			'  htpasswd:',
			`    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
			'uplinks: {}',
			'packages:',
			"  '**':",
			'    access: $all',
			'    publish: $authenticated',
			'    unpublish: $authenticated',
			'web:',
			'  enable: false',
			'log: { type: stdout, format: pretty, level: warn }',
			'',
		].join('\n'),
	);
	const logFile = path.join(dir, 'verdaccio.log');
	const out = fs.openSync(logFile, 'a');
	const child = spawn(
		nodeBin,
		[verdaccioBin, '--config', config, '--listen', `http://127.0.0.1:${port}`],
		{
			cwd: dir,
			// Tarball addresses in the metadata it serves name the public registry, which is where n8n fetches them from.
			env: {
				PATH: `${path.dirname(nodeBin)}:${process.env.PATH}`,
				HOME: dir,
				VERDACCIO_PUBLIC_URL: `${REGISTRY_URL}/`,
			},
			stdio: ['ignore', out, out],
		},
	);
	fs.closeSync(out);
	const who = child.pid === undefined ? undefined : proc.identity(child.pid);
	// Never left behind when the process that started it ends without stopping it (a crashed test run).
	const killOnExit = () => who && proc.signalIfAlive(who, 'SIGKILL');
	process.once('exit', killOnExit);
	const url = `http://127.0.0.1:${port}`;
	const stop = async () => {
		process.removeListener('exit', killOnExit);
		if (who && proc.signalIfAlive(who, 'SIGTERM') && (await proc.waitGone([who], 5000)).length)
			proc.signalIfAlive(who, 'SIGKILL');
	};
	const deadline = Date.now() + 60_000;
	for (;;) {
		if (child.exitCode !== null)
			throw new Error(
				`verdaccio exited with ${child.exitCode}: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`,
			);
		try {
			if ((await fetch(`${url}/-/ping`)).ok) break;
		} catch {}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(
				`verdaccio not ready at ${url}: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`,
			);
		}
		await sleep(200);
	}
	return { url, pid: child.pid, logFile, stop };
}

/** @typedef {{at: number, method: string, path: string, status: number, userAgent: string}} FrontRequest */

/**
 * The TLS front: HTTPS on `address`:443 with the registry.npmjs.org certificate, every request passed to `target`
 * as it came (method, path, headers), every answer recorded.
 * @param {{address: string, key: Buffer, cert: Buffer, target: string}} o
 * @returns {Promise<{requests: FrontRequest[], stop: () => Promise<void>}>}
 */
function startFront({ address, key, cert, target }) {
	/** @type {FrontRequest[]} */
	const requests = [];
	const to = new URL(target);
	const server = https.createServer({ key, cert }, (req, res) => {
		const upstream = http.request(
			{
				host: to.hostname,
				port: to.port,
				method: req.method,
				path: req.url,
				headers: { ...req.headers, 'x-forwarded-proto': 'https' },
			},
			(answer) => {
				requests.push({
					at: Date.now(),
					method: String(req.method),
					path: String(req.url),
					status: answer.statusCode || 0,
					userAgent: String(req.headers['user-agent'] || ''),
				});
				res.writeHead(answer.statusCode || 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', (error) => {
			requests.push({
				at: Date.now(),
				method: String(req.method),
				path: String(req.url),
				status: 502,
				userAgent: String(req.headers['user-agent'] || ''),
			});
			res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`registry front: ${error.message}`);
		});
		req.pipe(upstream);
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(443, address, () => {
			server.off('error', reject);
			resolve({
				requests,
				stop: () =>
					new Promise((done) => {
						server.closeAllConnections();
						server.close(() => done());
					}),
			});
		});
	});
}

/** A loopback address of its own for the front (127.x.y.z: the whole 127/8 is local on Linux), free on port 443. */
async function frontAddress() {
	for (let i = 0; i < 20; i++) {
		const [a, b, c] = crypto.randomBytes(3);
		const address = `127.${(a % 250) + 2}.${b}.${(c % 250) + 2}`;
		const free = await new Promise((resolve) => {
			const probe = net.createServer();
			probe.once('error', () => resolve(false));
			probe.listen(443, address, () => probe.close(() => resolve(true)));
		});
		if (free) return address;
	}
	throw new Error('no free loopback address for the registry front');
}

/**
 * Start the local registry in `dir`. Needs root (a mount namespace per n8n process; port 443 on loopback) and
 * openssl. Resolves to what the tests and n8n processes need; `stop()` stops what it started.
 * @param {{dir: string, line?: string}} o
 */
async function startRegistry({ dir, line }) {
	if (!canRedirect())
		throw new Error(
			'the local registry needs root (unshare --mount for each n8n process, and port 443 on loopback)',
		);
	fs.mkdirSync(dir, { recursive: true });
	const { nodeBin } = resolveRuntime(line);
	const certs = makeCertificates(dir);
	const verdaccio = await startVerdaccio({ dir, nodeBin });
	/** @type {Awaited<ReturnType<typeof startFront>> | undefined} */
	let front;
	try {
		const address = await frontAddress();
		front = await startFront({ address, key: certs.key, cert: certs.cert, target: verdaccio.url });
		const hostsFile = path.join(dir, 'hosts');
		fs.writeFileSync(
			hostsFile,
			`${fs.readFileSync('/etc/hosts', 'utf8').trimEnd()}\n# n8n-nodes-storefront tests: the local registry\n${address} ${REGISTRY_HOST}\n127.0.0.1 ${BAN_CHECK_HOST}\n`,
		);
		const npmrc = path.join(dir, 'npmrc');
		fs.writeFileSync(npmrc, '');
		const token = await register(verdaccio.url);
		const started = front;
		return {
			/** Where tests publish (plain HTTP on 127.0.0.1; n8n processes see the same registry as REGISTRY_URL). */
			url: verdaccio.url,
			/** Every request the front passed on, as n8n processes made them. */
			requests: started.requests,
			/**
			 * Environment for an n8n process that installs from this registry; `userFolder` gets the process's own npm cache.
			 * @param {string} userFolder
			 */
			env(userFolder) {
				return {
					NODE_EXTRA_CA_CERTS: certs.caFile,
					npm_config_cafile: certs.caFile,
					npm_config_registry: `${REGISTRY_URL}/`,
					npm_config_userconfig: npmrc,
					npm_config_cache: path.join(userFolder, '.npm-cache'),
					npm_config_update_notifier: 'false',
					npm_config_audit: 'false',
					npm_config_fund: 'false',
				};
			},
			/**
			 * How to start `file args…` inside its own mount namespace whose /etc/hosts names the front for the registry.
			 * The shell replaces itself with the command, so the pid spawned is the command's own.
			 * @param {string} file @param {string[]} args
			 */
			command(file, args) {
				return {
					file: 'unshare',
					args: [
						'--mount',
						'--propagation',
						'private',
						'--',
						'/bin/sh',
						'-c',
						'mount --bind "$0" /etc/hosts && exec "$@"',
						hostsFile,
						file,
						...args,
					],
				};
			},
			/**
			 * Publish a packed tarball (`npm publish`, with this run's npm cache and user config). Without provenance:
			 * package.json's publishConfig asks for it so that no laptop can publish to npmjs.com, and only GitHub
			 * Actions can sign it (docs/releasing.md); this registry is local.
			 * @param {string} tarball
			 */
			publish(tarball) {
				execFileSync(
					'npm',
					[
						'publish',
						tarball,
						'--provenance=false',
						`--registry=${verdaccio.url}/`,
						`--//${new URL(verdaccio.url).host}/:_authToken=${token}`,
					],
					{
						cwd: dir,
						env: {
							...process.env,
							npm_config_userconfig: npmrc,
							npm_config_cache: path.join(dir, 'publish-cache'),
							npm_config_update_notifier: 'false',
						},
						stdio: ['ignore', 'pipe', 'pipe'],
					},
				);
			},
			async stop() {
				await started.stop();
				await verdaccio.stop();
			},
		};
	} catch (error) {
		await front?.stop();
		await verdaccio.stop();
		throw error;
	}
}

/** Create the publishing user (npm's adduser call) and return its token. @param {string} url */
async function register(url) {
	const res = await fetch(`${url}/-/user/org.couchdb.user:${PUBLISHER.name}`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			_id: `org.couchdb.user:${PUBLISHER.name}`,
			name: PUBLISHER.name,
			password: PUBLISHER.password,
			email: PUBLISHER.email,
			type: 'user',
			roles: [],
		}),
	});
	const body = /** @type {any} */ (await res.json().catch(() => ({})));
	if (!res.ok || !body.token)
		throw new Error(
			`registering the publisher on the local registry → ${res.status} ${JSON.stringify(body)}`,
		);
	return String(body.token);
}

module.exports = {
	REGISTRY_URL,
	REGISTRY_HOST,
	BAN_CHECK_HOST,
	canRedirect,
	ensureVerdaccio,
	startRegistry,
};

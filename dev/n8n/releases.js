// @ts-check
// The tarballs the registry tests publish, made the way users' copies are made:
//  - the current one: `npm pack` of this repository's built package (what `npm publish` uploads);
//  - the next one: a release cut by scripts/release.js (`release(dir, 'patch')`: version bump, CHANGELOG section,
//    commit and tag) in a temporary repository holding the packed files, with one change a user can see, so a test
//    can tell which code n8n is running: the Storefront node's description in the nodes panel gains
//    NEXT_DESCRIPTION_SUFFIX (in the compiled file: no rebuild, the rest byte for byte the current package).
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { release } = require('../../scripts/release');

const ROOT = path.resolve(__dirname, '..', '..');
const NEXT_DESCRIPTION_SUFFIX = ' (next release)';
const NODE_FILE = 'dist/nodes/Storefront/Storefront.node.js';

/** @param {string[]} args @param {string} cwd */
const npm = (args, cwd) =>
	execFileSync('npm', args, {
		cwd,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, npm_config_update_notifier: 'false' },
	}).trim();
/** @param {string[]} args @param {string} cwd */
const git = (args, cwd) =>
	execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * `npm pack` of `dir` into `outDir`; the tarball's path.
 * @param {string} dir @param {string} outDir
 */
function pack(dir, outDir) {
	const name = npm(['pack', '--quiet', '--pack-destination', outDir], dir).split('\n').pop();
	return path.join(outDir, /** @type {string} */ (name));
}

/**
 * Pack the current package and cut the next release of it into `outDir`.
 * @param {string} outDir
 * @returns {{name: string, current: {version: string, tarball: string}, next: {version: string, tarball: string, description: string}}}
 */
function buildReleases(outDir) {
	fs.mkdirSync(outDir, { recursive: true });
	const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	if (!fs.existsSync(path.join(ROOT, NODE_FILE)))
		throw new Error(`${NODE_FILE} is missing: run \`npm run build\` first`);
	const currentTarball = pack(ROOT, outDir);

	// The next release: the packed files in a repository of their own, one visible change, then the release script.
	const repo = path.join(outDir, 'next');
	fs.rmSync(repo, { recursive: true, force: true });
	fs.mkdirSync(repo);
	execFileSync('tar', ['-xzf', currentTarball, '-C', repo, '--strip-components=1']);
	git(['init', '-q', '-b', 'main'], repo);
	// The repository's own identity, for these commits and the release script's alike.
	git(['config', 'user.name', 'ci'], repo);
	git(['config', 'user.email', 'ci@storefront.example'], repo);
	const commit = (/** @type {string} */ message) => {
		git(['add', '-A'], repo);
		git(['commit', '-q', '-m', message], repo);
	};
	commit(`${manifest.name} ${manifest.version} as packed`);
	const nodeFile = path.join(repo, NODE_FILE);
	const source = fs.readFileSync(nodeFile, 'utf8');
	const match = /description: '([^']*)'/.exec(source);
	if (!match) throw new Error(`no description in ${NODE_FILE}`);
	const description = `${match[1]}${NEXT_DESCRIPTION_SUFFIX}`;
	fs.writeFileSync(nodeFile, source.replace(match[0], `description: '${description}'`));
	const changelogFile = path.join(repo, 'CHANGELOG.md');
	const changelog = fs.readFileSync(changelogFile, 'utf8');
	fs.writeFileSync(
		changelogFile,
		changelog.replace(
			/^## \[Unreleased\]\n/m,
			`## [Unreleased]\n\n### Changed\n- The Storefront node's description says${NEXT_DESCRIPTION_SUFFIX} (a test release).\n`,
		),
	);
	commit('A change users can see');
	const cut = release(repo, 'patch');
	const nextTarball = pack(repo, outDir);
	return {
		name: manifest.name,
		current: { version: manifest.version, tarball: currentTarball },
		next: { version: cut.version, tarball: nextTarball, description },
	};
}

module.exports = { NEXT_DESCRIPTION_SUFFIX, buildReleases };

#!/usr/bin/env node
// @ts-check
// `npm run release -- <patch|minor|major|X.Y.Z> [--dry-run]`: cut a release of the repository in the current folder.
//   1. refuse a dirty working tree (and a release with nothing under "## [Unreleased]" in CHANGELOG.md);
//   2. bump the version in package.json and package-lock.json;
//   3. move CHANGELOG.md's Unreleased section under "## [X.Y.Z] - <date>", leaving an empty Unreleased;
//   4. commit "Release X.Y.Z" and tag vX.Y.Z (annotated).
// Pushing the tag (`git push --follow-tags`) starts .github/workflows/publish.yml, which publishes to npm with
// provenance. --dry-run does all of it in a temporary clone, prints what it did, and changes nothing here.
// Why not `n8n-node release` (@n8n/node-cli 0.48.3, read in node_modules/@n8n/node-cli/dist/commands/release.js):
// on a laptop it runs release-it (not installed here: n8n-nodes-starter adds it as its own devDependency) with
// --git.requireBranch main, --git.requireUpstream, --git.push and --github.release (a GitHub token and network), and
// rewrites CHANGELOG.md with `npx auto-changelog -p`, generated from commit messages (downloaded at run time), where
// this project keeps a hand-written Keep a Changelog file; in GitHub Actions it runs only lint and build before
// `npm publish`. None of it can be tried offline or on a temporary clone. This script does the same local steps
// (clean tree, bump, changelog, commit, tag) and leaves pushing to you and publishing to publish.yml, which also
// runs n8n's analyser and the unit tests first.
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** @param {string[]} args @param {string} cwd */
const git = (args, cwd) =>
	execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/**
 * Semantic-version order: < 0 when a comes first (prerelease identifiers as semver.org item 11 says).
 * @param {string} a @param {string} b
 */
function compareVersions(a, b) {
	const split = (/** @type {string} */ v) => {
		const dash = v.indexOf('-');
		return {
			core: (dash < 0 ? v : v.slice(0, dash)).split('.').map(Number),
			pre: dash < 0 ? [] : v.slice(dash + 1).split('.'),
		};
	};
	const x = split(a);
	const y = split(b);
	for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i] - y.core[i];
	if (!x.pre.length || !y.pre.length) return y.pre.length - x.pre.length; // a release follows its prereleases
	for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
		const [p, q] = [x.pre[i], y.pre[i]];
		if (p === q) continue;
		const [pn, qn] = [/^\d+$/.test(p), /^\d+$/.test(q)];
		if (pn && qn) return Number(p) - Number(q);
		if (pn !== qn) return pn ? -1 : 1;
		return p < q ? -1 : 1;
	}
	return x.pre.length - y.pre.length;
}

/** @param {string} current @param {string} bump */
function nextVersion(current, bump) {
	if (SEMVER.test(bump)) {
		if (compareVersions(bump, current) <= 0)
			throw new Error(`version ${bump} does not come after the current ${current}`);
		return bump;
	}
	const [major, minor, patch] = current.split('-')[0].split('.').map(Number);
	if (bump === 'major') return `${major + 1}.0.0`;
	if (bump === 'minor') return `${major}.${minor + 1}.0`;
	if (bump === 'patch') return `${major}.${minor}.${patch + 1}`;
	throw new Error(`unknown version bump "${bump}": use patch, minor, major or an explicit X.Y.Z`);
}

/**
 * CHANGELOG.md with the Unreleased section moved under the new version.
 * @param {string} changelog @param {string} version @param {string} date
 */
function moveUnreleased(changelog, version, date) {
	const heading = /^## \[Unreleased\][^\n]*\n/m.exec(changelog);
	if (!heading) throw new Error('CHANGELOG.md has no "## [Unreleased]" section');
	if (changelog.includes(`\n## [${version}]`))
		throw new Error(`CHANGELOG.md has a "## [${version}]" section already`);
	const start = heading.index + heading[0].length;
	const next = changelog.slice(start).search(/^## \[/m);
	const end = next < 0 ? changelog.length : start + next;
	const body = changelog.slice(start, end).trim();
	if (!body)
		throw new Error(
			'nothing under "## [Unreleased]" in CHANGELOG.md: say what this release changes first',
		);
	return `${changelog.slice(0, heading.index)}## [Unreleased]\n\n## [${version}] - ${date}\n\n${body}\n\n${changelog.slice(end)}`;
}

/** @param {string} file @param {(json: any) => void} edit */
function editJson(file, edit) {
	if (!fs.existsSync(file)) return;
	const json = JSON.parse(fs.readFileSync(file, 'utf8'));
	edit(json);
	fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}

/**
 * Release the repository at `dir`.
 * @param {string} dir @param {string} bump @param {{date?: string}} [o]
 */
function release(dir, bump, { date = new Date().toISOString().slice(0, 10) } = {}) {
	const dirty = git(['status', '--porcelain'], dir);
	if (dirty)
		throw new Error(
			`the working tree has uncommitted changes; commit or stash them first:\n${dirty}`,
		);
	const manifestFile = path.join(dir, 'package.json');
	const current = JSON.parse(fs.readFileSync(manifestFile, 'utf8')).version;
	const version = nextVersion(current, bump);
	const tag = `v${version}`;
	if (git(['tag', '--list', tag], dir)) throw new Error(`tag ${tag} exists already`);

	const changelogFile = path.join(dir, 'CHANGELOG.md');
	fs.writeFileSync(
		changelogFile,
		moveUnreleased(fs.readFileSync(changelogFile, 'utf8'), version, date),
	);
	editJson(manifestFile, (json) => {
		json.version = version;
	});
	editJson(path.join(dir, 'package-lock.json'), (json) => {
		json.version = version;
		if (json.packages?.['']) json.packages[''].version = version;
	});
	git(
		[
			'add',
			'package.json',
			'CHANGELOG.md',
			...(fs.existsSync(path.join(dir, 'package-lock.json')) ? ['package-lock.json'] : []),
		],
		dir,
	);
	git(['commit', '-q', '-m', `Release ${version}`], dir);
	git(['tag', '-a', tag, '-m', `Release ${version}`], dir);
	return { from: current, version, tag, commit: git(['rev-parse', 'HEAD'], dir) };
}

/** @param {string[]} args */
function parseArgs(args) {
	const unknown = args.filter((a) => a.startsWith('-') && a !== '--dry-run');
	const positional = args.filter((a) => !a.startsWith('-'));
	// A mistyped --dry-run must not turn into a real release.
	if (unknown.length || positional.length > 1) {
		throw new Error(
			`usage: npm run release -- [patch|minor|major|X.Y.Z] [--dry-run] (got: ${args.join(' ')})`,
		);
	}
	return { dryRun: args.includes('--dry-run'), bump: positional[0] ?? 'patch' };
}

function main() {
	const { dryRun, bump } = parseArgs(process.argv.slice(2));
	const repo = git(['rev-parse', '--show-toplevel'], process.cwd());
	let dir = repo;
	let temp = '';
	if (dryRun) {
		const dirty = git(['status', '--porcelain'], repo);
		if (dirty)
			throw new Error(
				`the working tree has uncommitted changes; commit or stash them first:\n${dirty}`,
			);
		temp = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-release-'));
		dir = path.join(temp, 'repo');
		git(['clone', '-q', repo, dir], temp); // checks out this clone's HEAD commit (branch or detached)
	}
	try {
		const result = release(dir, bump);
		const prefix = dryRun ? '[dry run, in a temporary clone] ' : '';
		console.log(
			`${prefix}${result.from} → ${result.version}; commit ${result.commit.slice(0, 10)} "Release ${result.version}"; tag ${result.tag}`,
		);
		console.log(git(['show', '--stat', '--format=%s', 'HEAD'], dir));
		console.log(
			git(['show', '--format=', '-U2', 'HEAD', '--', 'package.json', 'CHANGELOG.md'], dir),
		);
		console.log(`tag: ${git(['tag', '-n1', '--list', result.tag], dir)}`);
		if (dryRun) console.log('dry run: nothing changed here.');
		else
			console.log(
				`Next: git push --follow-tags  (the ${result.tag} tag starts .github/workflows/publish.yml)`,
			);
	} finally {
		if (temp) fs.rmSync(temp, { recursive: true, force: true });
	}
}

module.exports = { compareVersions, nextVersion, moveUnreleased, release };

if (require.main === module) {
	try {
		main();
	} catch (error) {
		console.error(`[release] ${/** @type {Error} */ (error).message}`);
		process.exit(1);
	}
}

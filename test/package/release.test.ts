/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports, @n8n/community-nodes/no-dangerous-functions -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; the script is plain CommonJS */
// `npm run release` (scripts/release.js): bumps the version, moves CHANGELOG's Unreleased section under it, commits
// and tags — tried on temporary clones of this repository, never on this one. (The workflows that publish the tag:
// workflows.test.ts.)
import { execFileSync, spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import path from 'path';

const root = path.resolve(__dirname, '../..');
const script = path.join(root, 'scripts', 'release.js');
const { compareVersions, nextVersion } = require('../../scripts/release') as {
	compareVersions(a: string, b: string): number;
	nextVersion(current: string, bump: string): string;
};

const identity = {
	GIT_AUTHOR_NAME: 'Release Test',
	GIT_AUTHOR_EMAIL: 'release-test@storefront.example',
	GIT_COMMITTER_NAME: 'Release Test',
	GIT_COMMITTER_EMAIL: 'release-test@storefront.example',
};
const temps: string[] = [];
const tempDir = (label: string) => {
	const dir = mkdtempSync(path.join(tmpdir(), `sf-release-test-${label}-`));
	temps.push(dir);
	return dir;
};
afterAll(() => {
	for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
	execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...identity } }).trim();
const release = (cwd: string, args: string[], env: Record<string, string> = {}) =>
	spawnSync(process.execPath, [script, ...args], {
		cwd,
		encoding: 'utf8',
		env: { ...process.env, ...identity, ...env },
	});
const read = (dir: string, file: string) => readFileSync(path.join(dir, file), 'utf8');
const versionIn = (dir: string) => JSON.parse(read(dir, 'package.json')).version as string;
/** What a release may change, byte for byte, plus the commit and the tags. */
const snapshot = (dir: string) => ({
	head: git(dir, 'rev-parse', 'HEAD'),
	tags: git(dir, 'tag', '--list'),
	status: git(dir, 'status', '--porcelain'),
	files: ['package.json', 'package-lock.json', 'CHANGELOG.md'].map((f) => read(dir, f)),
});

/** A clone of this repository's HEAD with a known entry on top of its Unreleased section, committed. */
function clone() {
	const dir = path.join(tempDir('clone'), 'repo');
	execFileSync('git', ['clone', '-q', root, dir]);
	const changelog = read(dir, 'CHANGELOG.md');
	expect(changelog).toContain('## [Unreleased]\n');
	writeFileSync(
		path.join(dir, 'CHANGELOG.md'),
		changelog.replace('## [Unreleased]\n', '## [Unreleased]\n\n### Fixed\n- A test entry.\n'),
	);
	git(dir, 'commit', '-q', '-am', 'test: an unreleased change');
	return dir;
}

test('versions: patch, minor, major or an explicit later one; semver order, prereleases first', () => {
	expect(nextVersion('0.1.0', 'patch')).toBe('0.1.1');
	expect(nextVersion('0.1.3', 'minor')).toBe('0.2.0');
	expect(nextVersion('0.9.3', 'major')).toBe('1.0.0');
	expect(nextVersion('0.1.0', '0.2.0-rc.1')).toBe('0.2.0-rc.1');
	expect(nextVersion('0.2.0-rc.1', '0.2.0')).toBe('0.2.0');
	expect(() => nextVersion('0.1.0', '0.1.0')).toThrow(/does not come after the current 0\.1\.0/);
	expect(() => nextVersion('0.2.0', '0.1.9')).toThrow(/does not come after/);
	expect(() => nextVersion('0.1.0', 'next')).toThrow(/unknown version bump "next"/);
	const ordered = [
		'1.0.0-alpha',
		'1.0.0-alpha.1',
		'1.0.0-alpha.beta',
		'1.0.0-beta',
		'1.0.0-beta.2',
		'1.0.0-beta.11',
		'1.0.0-rc.1',
		'1.0.0',
		'1.0.1',
		'1.1.0',
		'2.0.0',
	];
	for (let i = 1; i < ordered.length; i++) {
		expect({
			pair: [ordered[i - 1], ordered[i]],
			order: Math.sign(compareVersions(ordered[i - 1], ordered[i])),
		}).toEqual({
			pair: [ordered[i - 1], ordered[i]],
			order: -1,
		});
		expect(Math.sign(compareVersions(ordered[i], ordered[i - 1]))).toBe(1);
	}
	expect(compareVersions('1.2.3', '1.2.3')).toBe(0);
});

test('a release bumps package.json and the lockfile, moves Unreleased under the version, commits and tags', () => {
	const dir = clone();
	const before = versionIn(dir);
	const [major, minor] = before.split('.').map(Number);
	const expected = `${major}.${minor + 1}.0`;
	const unreleased = read(dir, 'CHANGELOG.md')
		.split('## [Unreleased]\n')[1]
		.split(/\n## \[/)[0]
		.trim();
	const r = release(dir, ['minor']);
	expect(r.stderr).toBe('');
	expect(r.status).toBe(0);
	expect(versionIn(dir)).toBe(expected);
	const lock = JSON.parse(read(dir, 'package-lock.json'));
	expect([lock.version, lock.packages[''].version]).toEqual([expected, expected]);
	// The whole former Unreleased body now sits under the new heading, and Unreleased is empty.
	const changelog = read(dir, 'CHANGELOG.md');
	const heading = new RegExp(
		`## \\[Unreleased\\]\\n\\n## \\[${expected.replace(/\./g, '\\.')}\\] - (\\d{4}-\\d{2}-\\d{2})\\n\\n`,
	);
	expect(changelog).toMatch(heading);
	expect(changelog.match(heading)![1]).toBe(new Date().toISOString().slice(0, 10));
	expect(changelog.split(heading)[2].startsWith(`${unreleased}\n\n## [${before}]`)).toBe(true);
	expect(git(dir, 'log', '-1', '--format=%s')).toBe(`Release ${expected}`);
	expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual([
		'CHANGELOG.md',
		'package-lock.json',
		'package.json',
	]);
	expect(git(dir, 'describe', '--exact-match', '--tags', 'HEAD')).toBe(`v${expected}`);
	expect(git(dir, 'cat-file', '-t', `v${expected}`)).toBe('tag'); // annotated: `git push --follow-tags` pushes it
	expect(git(dir, 'status', '--porcelain')).toBe('');
	expect(r.stdout).toContain(`Next: git push --follow-tags`);
});

test('--dry-run shows the bump, the changelog move and the tag, and changes nothing in the clone it runs in', () => {
	const dir = clone();
	const before = snapshot(dir);
	const tmp = tempDir('tmpdir'); // the dry run's own temporary clone goes here, and must be gone afterwards
	const r = release(dir, ['patch', '--dry-run'], { TMPDIR: tmp });
	expect(r.stderr).toBe('');
	expect(r.status).toBe(0);
	const version = versionIn(dir);
	const [major, minor, patch] = version.split('.').map(Number);
	const next = `${major}.${minor}.${patch + 1}`;
	expect(r.stdout).toContain(`[dry run, in a temporary clone] ${version} → ${next}`);
	expect(r.stdout).toContain(`-  "version": "${version}",\n+  "version": "${next}",`);
	expect(r.stdout).toMatch(
		new RegExp(
			`\\+## \\[${next.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}\\n[\\s\\S]*### Fixed`,
		),
	);
	expect(r.stdout).toContain(`tag: v${next}`);
	expect(r.stdout).toContain('dry run: nothing changed here.');
	expect(snapshot(dir)).toEqual(before);
	expect(readdirSync(tmp)).toEqual([]);
});

test('refuses a dirty tree, an unknown option, a version that is not later, and an empty Unreleased', () => {
	const dir = clone();
	const before = snapshot(dir);
	writeFileSync(path.join(dir, 'README.md'), 'changed\n');
	for (const args of [['patch'], ['patch', '--dry-run']]) {
		const dirty = release(dir, args);
		expect(dirty.status).toBe(1);
		expect(dirty.stderr).toMatch(/uncommitted changes/);
	}
	git(dir, 'checkout', '--', 'README.md');

	const typo = release(dir, ['patch', '--dryrun']); // must not become a real release
	expect(typo.status).toBe(1);
	expect(typo.stderr).toMatch(/usage: npm run release/);
	const same = release(dir, [versionIn(dir)]);
	expect(same.status).toBe(1);
	expect(same.stderr).toMatch(/does not come after/);
	expect(snapshot(dir)).toEqual(before);

	expect(release(dir, ['patch']).status).toBe(0);
	const empty = release(dir, ['patch']);
	expect(empty.status).toBe(1);
	expect(empty.stderr).toMatch(/nothing under "## \[Unreleased\]"/);
});

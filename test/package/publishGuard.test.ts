/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The publish guards (docs/releasing.md), tried for real with this machine's npm against a local HTTP server that
// records what reaches it, on a copy of the package's publish inputs (package.json, .npmrc, the files it ships) so the
// working tree is what is tested:
//   - a plain `npm publish` is refused before anything is uploaded: package.json's publishConfig asks for provenance,
//     which npm can sign only in a CI it supports (GitHub Actions), and .npmrc's ignore-scripts=true cannot switch
//     that off;
//   - with scripts on, `n8n-node prerelease` (prepublishOnly, as in n8n-nodes-starter) refuses without RELEASE_MODE;
//   - the publish step of .github/workflows/publish.yml, run as written (a dry run: provenance needs GitHub's OIDC
//     token), gets through both: the guard runs and passes, and npm goes on to publish.
import { spawn } from 'child_process';
import {
	copyFileSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'fs';
import http from 'http';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import path from 'path';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	name: string;
	version: string;
};

let dir = '';
let server: http.Server;
let registry = '';
const requests: string[] = [];

beforeAll(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'sf-publish-guard-'));
	for (const file of [
		'package.json',
		'.npmrc',
		'README.md',
		'LICENSE.md',
		'CHANGELOG.md',
		'index.js',
	])
		copyFileSync(path.join(root, file), path.join(dir, file));
	// What `files` ships besides those; its contents do not matter to the guards (tarball.test.ts checks them).
	mkdirSync(path.join(dir, 'dist'));
	writeFileSync(path.join(dir, 'dist', 'placeholder.js'), '');
	symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
	server = http.createServer((request, response) => {
		requests.push(`${request.method} ${request.url}`);
		request.resume();
		// The package is not on this registry: npm's pre-publish lookups get a 404, a PUT would get a 500.
		response.statusCode = request.method === 'GET' ? 404 : 500;
		response.end('{}');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
	rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
	requests.length = 0;
});

/**
 * A command run to its end without blocking this process: the registry answering it lives here.
 * @returns its exit status (null when killed at the deadline) and its output
 */
function run(file: string, args: string[], options: { env: NodeJS.ProcessEnv }) {
	return new Promise<{ status: number | null; output: string }>((resolve, reject) => {
		const child = spawn(file, args, {
			cwd: dir,
			env: options.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
		const deadline = setTimeout(() => child.kill('SIGKILL'), 120_000);
		child.on('error', reject);
		child.on('close', (status) => {
			clearTimeout(deadline);
			resolve({ status, output });
		});
	});
}

/** npm in the copy, with this machine's environment minus whatever would make it a release or a supported CI. */
async function npm(args: string[], env: Record<string, string> = {}) {
	const base = { ...process.env };
	for (const name of ['RELEASE_MODE', 'GITHUB_ACTIONS', 'GITLAB_CI', 'NODE_AUTH_TOKEN'])
		delete base[name];
	for (const name of Object.keys(base))
		if (name.toLowerCase().startsWith('npm_config_')) delete base[name];
	// A token for the local registry, so that a refusal is never npm asking to log in.
	const token = `--//${registry.slice('http://'.length)}:_authToken=test-token`;
	return await run('npm', [...args, token], {
		env: {
			...base,
			npm_config_registry: registry,
			npm_config_update_notifier: 'false',
			npm_config_audit: 'false',
			...env,
		},
	});
}

const uploads = () => requests.filter((r) => !r.startsWith('GET '));

// Each test runs npm (a few seconds; far more on a busy machine).
jest.setTimeout(120_000);

test('a plain npm publish is refused before anything is uploaded: no provenance outside GitHub Actions', async () => {
	const result = await npm(['publish']);
	expect(result.status).not.toBe(0);
	expect(result.output).toMatch(/provenance generation not supported/i);
	expect(uploads()).toEqual([]);
});

test('with install scripts on, n8n-node prerelease refuses a publish without RELEASE_MODE (n8n-nodes-starter guard)', async () => {
	const result = await npm(['publish', '--dry-run', '--ignore-scripts=false']);
	expect(result.status).not.toBe(0);
	expect(result.output).toContain('n8n-node prerelease');
	expect(result.output).toContain('run release` to publish the package');
	expect(uploads()).toEqual([]);
});

test("publish.yml's publish step, run as written (dry run), passes the guard and publishes", async () => {
	type Step = { name?: string; run?: string; env?: Record<string, string> };
	const workflow = parse(
		readFileSync(path.join(root, '.github', 'workflows', 'publish.yml'), 'utf8'),
	) as { jobs: Record<string, { steps: Step[] }> };
	const step = Object.values(workflow.jobs)[0].steps.find((s) => /npm publish/.test(s.run ?? ''))!;
	// The step's env with the secrets as GitHub passes them when unset: empty strings.
	const env = Object.fromEntries(
		Object.entries(step.env ?? {}).map(([name, value]) => [
			name,
			/^\$\{\{/.test(value) ? '' : value,
		]),
	);
	const result = await run('bash', ['-e', '-c', step.run!], {
		env: {
			...Object.fromEntries(
				Object.entries(process.env).filter(
					([name]) => !/^(npm_config_|RELEASE_MODE$|GITHUB_ACTIONS$)/i.test(name),
				),
			),
			...env,
			npm_config_dry_run: 'true',
			npm_config_registry: registry,
			npm_config_update_notifier: 'false',
		},
	});
	const output = result.output;
	expect(result.status).toBe(0);
	// npm ran the guard (it prints the script it runs) and it let the publish through.
	expect(output).toContain('> n8n-node prerelease');
	expect(output).toContain(`+ ${pkg.name}@${pkg.version}`);
	expect(output).toContain('(dry-run)');
	expect(uploads()).toEqual([]);
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any, no-console -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; it starts `npm run dev` and prints its figures; dev/n8n and scripts/ are plain CommonJS; n8n's type files are untyped JSON */
// `npm run dev` (scripts/dev.js) for real, on a temporary copy of the repository (sources copied, node_modules
// linked) with its own user folder and a free port: it builds, links dist/ into the user folder's custom nodes and
// starts the pinned n8n 2.41.1 with hot reload; an edit of the copy's node sources must then reach what the running
// n8n serves to the editor (/types/nodes.json), from the same n8n process; Ctrl-C must leave no process behind.
// Needs the prepared runtime (`npm run n8n:prepare`; .ci/run runs this suite in the matrix's lanes, after preparing it).
import { spawn, type ChildProcess } from 'child_process';
import {
	cpSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readlinkSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import path from 'path';

const runtime = require('../../dev/n8n/runtime') as typeof import('../../dev/n8n/runtime');
const rest = require('../../dev/n8n/rest') as typeof import('../../dev/n8n/rest');
const proc = require('../../dev/n8n/proc') as typeof import('../../dev/n8n/proc');
const devScript = require('../../scripts/dev') as typeof import('../../scripts/dev');

jest.setTimeout(120_000);

type Who = { pid: number; start: string };

const ROOT = path.resolve(__dirname, '..', '..');
/** What scripts/dev.js needs of the repository; node_modules is linked, not copied. */
const COPIED = [
	'package.json',
	'tsconfig.json',
	'tsconfig.build.json',
	'gulpfile.js',
	'nodes',
	'credentials',
	'scripts/dev.js',
	'dev/n8n',
];
const NODE_SOURCE = 'nodes/Storefront/Storefront.node.ts';
const NESTED_SOURCE = 'nodes/Storefront/v1/actions/order/index.ts';
const DESCRIPTION =
	'Manage a Storefront shop: products, orders, customers, store details and sales analytics';

let dir: string;
let copy: string;
let userFolder: string;
/** Every process the runs are known to have started (dev.js and its descendants), to stop by id whatever happens. */
const started: Who[] = [];
const groups: number[] = [];
const figures: Record<string, number> = {};
const runs: Run[] = [];
let run: Run;
let client: InstanceType<typeof rest.N8nClient>;

interface Run {
	child: ChildProcess;
	port: number;
	exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	output(): string;
	/** The first match of `pattern` in the output (from offset `from` on); fails when dev.js exits first. */
	waitFor(pattern: RegExp, timeoutMs: number, from?: number): Promise<RegExpMatchArray>;
	/** Record dev.js and its descendants now (tsc, n8n, n8n's task runner, …) so that none escapes the checks. */
	track(): void;
	n8n: Who;
	tsc: Who;
}

/** Start `node scripts/dev.js` in the copy, on a free port, and wait until it says n8n is ready. */
async function startDev(): Promise<Run> {
	const port = await runtime.freePort();
	const child = spawn(
		process.execPath,
		[path.join(copy, 'scripts', 'dev.js'), '--port', String(port), '--user-folder', userFolder],
		{
			cwd: copy,
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let text = '';
	child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
		child.once('exit', (code, signal) => resolve({ code, signal })),
	);
	const r: Run = {
		child,
		port,
		exited,
		output: () => text,
		async waitFor(pattern, timeoutMs, from = 0) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const match = text.slice(from).match(pattern);
				if (match) return match;
				if (child.exitCode !== null || child.signalCode !== null)
					throw new Error(`dev.js exited before ${pattern}:\n${text.slice(-4000)}`);
				if (Date.now() > deadline)
					throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${text.slice(-4000)}`);
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
		},
		track() {
			if (!child.pid) return;
			for (const who of [proc.identity(child.pid), ...proc.descendants(child.pid)]) {
				if (who && !started.some((s) => s.pid === who.pid && s.start === who.start))
					started.push(who);
			}
		},
		n8n: { pid: 0, start: '' },
		tsc: { pid: 0, start: '' },
	};
	runs.push(r);
	const pids = await r.waitFor(/n8n pid (\d+), tsc pid (\d+)/, 90_000);
	groups.push(Number(pids[1]), Number(pids[2]));
	r.n8n = proc.identity(Number(pids[1])) as Who;
	r.tsc = proc.identity(Number(pids[2])) as Who;
	r.track();
	await r.waitFor(/\[dev\] ready in/, 120_000);
	r.track();
	return r;
}

/**
 * Waits until what `r` printed (from offset `from` on) matches `pattern`; resolves to that text. dev.js's last lines may
 * reach this process after its exit event, and n8n's lines come through dev.js: never read the output once.
 */
async function printed(r: Run, pattern: RegExp, from = 0, timeoutMs = 10_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const text = r.output().slice(from);
		if (pattern.test(text)) return text;
		if (Date.now() > deadline)
			throw new Error(`dev.js printed no ${pattern} within ${timeoutMs} ms:\n${text.slice(-4000)}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** The descriptions of node type `name` as the running n8n serves them to the editor (one per loaded copy). */
const typesOf = (nodes: any[], name = 'CUSTOM.storefront') => nodes.filter((n) => n.name === name);

const orderOperationLabel = (type: any) =>
	type.properties.find(
		(p: any) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('order'),
	)?.displayName;

beforeAll(() => {
	runtime.assertInstalled('2'); // a clear failure instead of a first-time install inside the test
	dir = mkdtempSync(path.join(tmpdir(), 'sf-dev-'));
	copy = path.join(dir, 'repo');
	userFolder = path.join(dir, 'user');
	for (const item of COPIED) {
		mkdirSync(path.dirname(path.join(copy, item)), { recursive: true });
		cpSync(path.join(ROOT, item), path.join(copy, item), { recursive: true });
	}
	symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
});

afterAll(async () => {
	for (const r of runs) {
		if (r.child.exitCode === null && r.child.signalCode === null) {
			r.track();
			r.child.kill('SIGINT');
			await Promise.race([r.exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
		}
	}
	for (const who of started) proc.signalIfAlive(who, 'SIGKILL');
	for (const pgid of groups)
		for (const pid of devScript.groupMembers(pgid)) process.kill(pid, 'SIGKILL');
	mkdirSync(path.join(ROOT, 'artifacts', 'dev'), { recursive: true });
	writeFileSync(
		path.join(ROOT, 'artifacts', 'dev', 'dev-output.log'),
		runs.map((r) => r.output()).join('\n=== next run ===\n'),
	);
	if (Object.keys(figures).length)
		console.log(`npm run dev figures (ms): ${JSON.stringify(figures)}`);
	if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

test('npm run dev builds the package, links dist/ into the user folder and starts n8n 2.41.1 with the node', async () => {
	const t0 = Date.now();
	run = await startDev();
	figures.firstStartMs = Date.now() - t0;
	const output = run.output();

	expect(output).toContain(`editor       http://127.0.0.1:${run.port}`);
	expect(output).toContain(
		`login        ${devScript.DEV_OWNER.email} / ${devScript.DEV_OWNER.password} (owner account created`,
	);
	// The link n8n's custom-nodes loader follows, and what tsc and gulp built behind it.
	expect(readlinkSync(devScript.linkPath(userFolder))).toBe(path.join(copy, 'dist'));
	expect(
		readFileSync(path.join(copy, 'dist', 'nodes', 'Storefront', 'Storefront.node.json'), 'utf8'),
	).toContain('"node"');

	client = new rest.N8nClient(`http://127.0.0.1:${run.port}`);
	await client.login(devScript.DEV_OWNER.email, devScript.DEV_OWNER.password);
	const types = typesOf(await client.nodeTypes());
	expect(types.length).toBeGreaterThan(0);
	for (const type of types) {
		expect(type.description).toBe(DESCRIPTION);
		expect(orderOperationLabel(type)).toBe('Operation');
	}
	// n8n runs with hot reload on (the variable n8n checks) and in the user folder given.
	const environ = readFileSync(`/proc/${run.n8n.pid}/environ`, 'utf8').split('\0');
	expect(environ).toEqual(
		expect.arrayContaining(['N8N_DEV_RELOAD=true', `N8N_USER_FOLDER=${userFolder}`]),
	);
});

test('an edit of the node sources is rebuilt and served by the same n8n process, without a restart', async () => {
	const marker = `dev-reload-${Date.now()}`;
	const from = run.output().length;
	const edit = (file: string, before: string, after: string) => {
		const full = path.join(copy, file);
		const text = readFileSync(full, 'utf8');
		expect(text).toContain(before);
		writeFileSync(full, text.replace(before, after));
	};
	const t0 = Date.now();
	// The node's entry file, and a module two imports below it (those must be reloaded too, not only the entry).
	edit(NODE_SOURCE, `'${DESCRIPTION}'`, `'Storefront, edited: ${marker}'`);
	edit(NESTED_SOURCE, "displayName: 'Operation',", `displayName: 'Order Operation ${marker}',`);

	// n8n serves /types/nodes.json (18 MB) from the file it rewrites after a reload: it is fetched again when that file
	// changed (or every 5 s), so that polling does not compete with the reload for the CPU.
	const typesFile = path.join(userFolder, '.cache', 'n8n', 'public', 'types', 'nodes.json');
	const mtime = () => statSync(typesFile, { throwIfNoEntry: false })?.mtimeMs ?? 0;
	const deadline = Date.now() + 60_000;
	let seen = 0;
	let fetchedAt = 0;
	let nodes: any[] = [];
	let types: any[] = [];
	for (;;) {
		const since = run.output().slice(from);
		if (!figures.editToRebuiltMs && /\[dev\] compiled in/.test(since))
			figures.editToRebuiltMs = Date.now() - t0;
		if (!figures.editToReloadTriggeredMs && /Hot reload triggered for CUSTOM/.test(since))
			figures.editToReloadTriggeredMs = Date.now() - t0;
		if (mtime() !== seen || Date.now() - fetchedAt > 5000) {
			seen = mtime();
			fetchedAt = Date.now();
			nodes = await client.nodeTypes();
			types = typesOf(nodes);
			const done =
				types.length > 0 &&
				types.every(
					(t) =>
						t.description === `Storefront, edited: ${marker}` &&
						orderOperationLabel(t) === `Order Operation ${marker}`,
				);
			if (done) break;
		}
		if (Date.now() > deadline)
			throw new Error(
				`n8n still serves ${JSON.stringify(types.map((t) => [t.description, orderOperationLabel(t)]))}\n${run.output().slice(-3000)}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	figures.editToServedMs = Date.now() - t0;
	const compiled = run
		.output()
		.slice(from)
		.match(/\[dev\] compiled in ([\d.]+) s/);
	if (compiled) figures.tscCompileMs = Number(compiled[1]) * 1000;

	// The AI Agent tool variant n8n derives from the node follows too.
	const tool = typesOf(nodes, 'CUSTOM.storefrontTool');
	expect(tool.length).toBeGreaterThan(0);
	expect(tool.map((t: any) => t.description)).toEqual(
		tool.map(() => `Storefront, edited: ${marker}`),
	);
	// Reloaded, not restarted: the same process (pid and start time), which logged its hot reload.
	expect(proc.isAlive(run.n8n)).toBe(true);
	await printed(run, /\[n8n\] Hot reload triggered for CUSTOM/, from);
	expect(run.output().slice(from)).toMatch(/\[n8n\] Hot reload triggered for CUSTOM/);
	expect(run.output().slice(from)).not.toMatch(/exited unexpectedly|Editor is now accessible/);
});

test('Ctrl-C (SIGINT) stops dev.js and every process it started', async () => {
	run.track();
	const mine = started.filter((who) => proc.isAlive(who));
	expect(mine.map((who) => who.pid)).toEqual(
		expect.arrayContaining([run.child.pid, run.n8n.pid, run.tsc.pid]),
	);
	expect(mine.length).toBeGreaterThanOrEqual(4); // and n8n's task runner
	const t0 = Date.now();
	run.child.kill('SIGINT');
	const exit = await run.exited;
	figures.ctrlCStopMs = Date.now() - t0;
	expect(exit).toEqual({ code: 0, signal: null });
	expect(await proc.waitGone(mine, 5000)).toEqual([]);
	for (const pgid of [run.n8n.pid, run.tsc.pid]) expect(devScript.groupMembers(pgid)).toEqual([]);
	await printed(run, /\[dev\] stopped\./);
	expect(run.output()).toMatch(/\[dev\] SIGINT: stopping tsc \(pid \d+\), n8n \(pid \d+\)/);
	expect(run.output()).toContain('[dev] stopped.');
});

test('when n8n dies, dev.js stops the rest and exits with an error', async () => {
	const t0 = Date.now();
	run = await startDev(); // same user folder: the owner exists now, n8n just starts
	figures.secondStartMs = Date.now() - t0;
	expect(run.output()).toContain('login        the owner account of this user folder');
	run.track();
	const mine = started.filter((who) => proc.isAlive(who));
	expect(mine.length).toBeGreaterThanOrEqual(4);
	expect(proc.signalIfAlive(run.n8n, 'SIGKILL')).toBe(true);
	const exit = await run.exited;
	expect(exit).toEqual({ code: 1, signal: null });
	expect(await proc.waitGone(mine, 5000)).toEqual([]);
	for (const pgid of [run.n8n.pid, run.tsc.pid]) expect(devScript.groupMembers(pgid)).toEqual([]);
	await printed(run, /\[dev\] n8n exited unexpectedly/);
	expect(run.output()).toMatch(
		/\[dev\] n8n exited unexpectedly \(SIGKILL\): stopping tsc \(pid \d+\)/,
	);
});

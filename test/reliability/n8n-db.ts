/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @typescript-eslint/no-require-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// n8n's own record of what ran: its SQLite database, read with the runtime's sqlite3 (built for the runtime's Node,
// so it runs in a child process of that Node) while n8n keeps running. n8n's REST list pages 100 executions at a
// time and leaves out their data; the reliability counts need every execution with the event it ran for.
// One reader process per test file answers every read: a process per read cost 0.1 CPU-seconds before its first
// row (Node and sqlite3 starting), and the catch-up suite reads about 300 times a cell while it waits.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'child_process';
import * as path from 'path';
import { promisify } from 'util';

import { CELL, queue, type QueueTopology } from '../e2e/environment';

const prepare = require('../../dev/n8n/prepare') as typeof import('../../dev/n8n/prepare');
const { toRecord } = require('./executionRecord') as typeof import('./executionRecord');

export interface ExecutionRecord {
	id: string;
	status: string;
	/** When n8n created and started it (ms since the epoch; started: null while it has not). */
	createdAt: number;
	startedAt: number | null;
	/** What the named node output in this execution's first run (the trigger: one event); for an execution that
	 * never ran, the items waiting in its start stack (the trigger's output). */
	items: Array<{ json: Record<string, unknown>; pairedItem?: unknown }>;
	/** The `id` of each of those items: for the trigger, the event ids it emitted. */
	eventIds: string[];
	/** The node ran and passed nothing on (the trigger: the run's event was a duplicate, caught when it started). */
	passedNothing: boolean;
	/** How long the node's first run took, as n8n recorded it (ms; null when it did not run): for the trigger, its claim. */
	nodeMs: number | null;
	/** When that run ended (ms since the epoch; null when it did not run): the trigger passed its items on then. */
	nodeEndedAt: number | null;
}

// Reads one request a line from stdin ({id, file, workflowId, nodeName}) and answers one line ({id, error?,
// executions}); a new connection per read, as n8n may have been restarted on the file since. An execution's data is
// parsed again only when its status, end or data changed: a suite waiting for runs to settle reads the same hundreds
// of finished executions many times. It ends with its stdin, so also when the test process that started it dies.
const SCRIPT = `
const sqlite3 = require('sqlite3');
const { toRecord } = require(${JSON.stringify(path.join(__dirname, 'executionRecord.js'))});
const parsed = new Map();
const answer = (id, error, executions) => process.stdout.write(JSON.stringify({ id, error, executions }) + '\\n');
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, file, workflowId, nodeName } = JSON.parse(line);
  const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => error && answer(id, error.message));
  db.all(
    'SELECT e.id, e.status, e.createdAt, e.startedAt, e.stoppedAt, d.data FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id WHERE e.workflowId = ? ORDER BY e.id',
    [workflowId],
    (error, rows) => {
      db.close();
      if (error) return answer(id, error.message);
      const out = rows.map((row) => {
        const key = [file, nodeName, row.id].join(' ');
        const version = [row.status, row.stoppedAt, row.data].join(' ');
        const known = parsed.get(key);
        if (known && known.version === version) return known.record;
        const record = toRecord(row, nodeName);
        parsed.set(key, { version, record });
        return record;
      });
      answer(id, undefined, out);
    },
  );
});`;

interface Reader {
	child: ChildProcessWithoutNullStreams;
	pending: Map<
		number,
		{ resolve: (executions: ExecutionRecord[]) => void; reject: (error: Error) => void }
	>;
	nextId: number;
}
let reader: Reader | undefined;

function startReader(): Reader {
	const rt = prepare.resolveRuntime(CELL.line);
	const child = spawn(rt.nodeBin, ['-e', SCRIPT], { cwd: rt.dir, stdio: 'pipe' });
	const started: Reader = { child, pending: new Map(), nextId: 1 };
	const failAll = (error: Error) => {
		for (const { reject } of started.pending.values()) reject(error);
		started.pending.clear();
		if (reader === started) reader = undefined;
	};
	let buffered = '';
	let stderr = '';
	child.stdout.setEncoding('utf8');
	child.stdout.on('data', (chunk: string) => {
		buffered += chunk;
		for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
			const { id, error, executions } = JSON.parse(buffered.slice(0, end)) as {
				id: number;
				error?: string;
				executions?: ExecutionRecord[];
			};
			buffered = buffered.slice(end + 1);
			const waiting = started.pending.get(id);
			started.pending.delete(id);
			if (error) waiting?.reject(new Error(`reading n8n's database: ${error}`));
			else waiting?.resolve(executions ?? []);
		}
	});
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	child.on('error', failAll);
	child.on('exit', (code, signal) =>
		failAll(new Error(`the database reader ended (${signal ?? code}): ${stderr.slice(-2000)}`)),
	);
	// Idle, it keeps no test process alive; it ends when its stdin closes (stopDatabaseReader, or this process ending).
	for (const handle of [child, child.stdin, child.stdout, child.stderr] as unknown as Array<{
		unref(): void;
	}>)
		handle.unref();
	return started;
}

/** Every execution of `workflowId` in n8n's database, with what `nodeName` (default: the trigger) output. */
export async function executionsOf(
	userFolder: string,
	workflowId: string,
	nodeName = 'Storefront Trigger',
): Promise<ExecutionRecord[]> {
	reader ??= startReader();
	const { child, pending } = reader;
	const id = reader.nextId++;
	const file = path.join(userFolder, '.n8n', 'database.sqlite');
	return await new Promise((resolve, reject) => {
		pending.set(id, { resolve, reject });
		child.stdin.write(`${JSON.stringify({ id, file, workflowId, nodeName })}\n`);
	});
}

/** Ends the reader (its stdin closed) and waits for it: for the suites' afterAll. */
export async function stopDatabaseReader() {
	const stopping = reader;
	reader = undefined;
	if (!stopping || stopping.child.exitCode !== null || stopping.child.signalCode !== null) return;
	const exited = new Promise((resolve) => stopping.child.once('exit', resolve));
	stopping.child.stdin.end();
	await exited;
}

/** psql's command and arguments for one query of a queue-mode topology's Postgres: unaligned rows, no headers. */
export const psqlCommand = (topology: QueueTopology, query: string) =>
	[
		path.join(queue.postgresBinDir(), 'psql'),
		[
			'-h',
			'127.0.0.1',
			'-p',
			String(topology.postgres.port),
			'-U',
			'n8n',
			'-d',
			'n8n',
			'-tAq',
			'-c',
			query,
		],
	] as const;

/** Records already made from Postgres rows, by execution and node, with what they were made of. */
const fromPostgres = new Map<string, { version: string; record: ExecutionRecord }>();

/**
 * Every execution of `workflowId` in a queue-mode topology's Postgres, as executionsOf reads SQLite: one psql query a
 * read (rows as JSON), a row's data parsed again only when its status, end or data changed.
 */
export async function queueExecutionsOf(
	topology: QueueTopology,
	workflowId: string,
	nodeName = 'Storefront Trigger',
): Promise<ExecutionRecord[]> {
	if (!/^\w+$/.test(workflowId)) throw new Error(`unexpected workflow id ${workflowId}`);
	const query = `SELECT row_to_json(r) FROM (SELECT e.id, e.status, e."createdAt", e."startedAt", e."stoppedAt", d.data FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id WHERE e."workflowId" = '${workflowId}' ORDER BY e.id) r`;
	const { stdout } = await promisify(execFile)(...psqlCommand(topology, query), {
		maxBuffer: 1024 * 1024 * 1024,
	});
	return stdout
		.split('\n')
		.filter(Boolean)
		.map((line) => {
			const row = JSON.parse(line);
			const key = [topology.dir, nodeName, row.id].join(' ');
			const version = [row.status, row.stoppedAt, row.data].join(' ');
			const known = fromPostgres.get(key);
			if (known?.version === version) return known.record;
			const record = toRecord(row, nodeName) as ExecutionRecord;
			fromPostgres.set(key, { version, record });
			return record;
		});
}

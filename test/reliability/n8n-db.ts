/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @typescript-eslint/no-require-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// n8n's own record of what ran: its SQLite database, read with the runtime's sqlite3 (built for the runtime's Node,
// so it runs in a child process of that Node) while n8n keeps running. n8n's REST list pages 100 executions at a
// time and leaves out their data; the reliability counts need every execution with the event it ran for.
import { execFileSync } from 'child_process';
import * as path from 'path';

import { CELL } from '../e2e/environment';

const prepare = require('../../dev/n8n/prepare') as typeof import('../../dev/n8n/prepare');

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
}

const SCRIPT = `
const sqlite3 = require('sqlite3');
const flatted = require('flatted');
const [file, workflowId, nodeName] = process.argv.slice(1);
const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
db.all(
  'SELECT e.id, e.status, e.createdAt, e.startedAt, d.data FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id WHERE e.workflowId = ? ORDER BY e.id',
  [workflowId],
  (error, rows) => {
    if (error) { console.error(error.message); process.exit(1); }
    const out = rows.map((row) => {
      let items = [];
      let passedNothing = false;
      let nodeMs = null;
      try {
        const data = flatted.parse(row.data);
        const runs = data.resultData.runData[nodeName] || [];
        // After a crash n8n rebuilds a crashed execution's run data from its event log, with a stand-in item
        // ({isArtificialRecoveredEventItem: true}) for each node that had finished: not the node's real output.
        items = runs
          .flatMap((run) => ((run.data && run.data.main && run.data.main[0]) || []).map((item) => ({ json: item.json, pairedItem: item.pairedItem })))
          .filter((item) => !(item.json && item.json.isArtificialRecoveredEventItem));
        if (runs.length && typeof runs[0].executionTime === 'number') nodeMs = runs[0].executionTime;
        passedNothing = runs.length > 0 && runs.every((run) => run.executionStatus === 'success' && ((run.data && run.data.main && run.data.main[0]) || []).length === 0);
        // An execution that never ran (n8n died first), or crashed, still holds the trigger's items in its start stack.
        if (!items.length && data.executionData) {
          const start = (data.executionData.nodeExecutionStack || []).find((entry) => entry.node && entry.node.name === nodeName) || (data.executionData.nodeExecutionStack || [])[0];
          items = ((start && start.data && start.data.main && start.data.main[0]) || []).map((item) => ({ json: item.json, pairedItem: item.pairedItem }));
        }
      } catch {}
      return { id: String(row.id), status: row.status, createdAt: Date.parse(String(row.createdAt).replace(' ', 'T') + 'Z'), startedAt: row.startedAt ? Date.parse(String(row.startedAt).replace(' ', 'T') + 'Z') : null, items, eventIds: items.map((item) => item.json.id), passedNothing, nodeMs };
    });
    process.stdout.write(JSON.stringify(out));
    db.close();
  },
);`;

/** Every execution of `workflowId` in n8n's database, with what `nodeName` (default: the trigger) output. */
export function executionsOf(userFolder: string, workflowId: string, nodeName = 'Storefront Trigger'): ExecutionRecord[] {
	const rt = prepare.resolveRuntime(CELL.line);
	const out = execFileSync(rt.nodeBin, ['-e', SCRIPT, path.join(userFolder, '.n8n', 'database.sqlite'), workflowId, nodeName], {
		cwd: rt.dir,
		encoding: 'utf8',
		maxBuffer: 256 * 1024 * 1024,
	});
	return JSON.parse(out) as ExecutionRecord[];
}


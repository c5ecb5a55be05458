// @ts-check
// One execution row of n8n's database, SQLite's or Postgres's (id, status, createdAt, startedAt, data: n8n's flatted
// run data), as the suites count it (./n8n-db.ts, ExecutionRecord). Plain JavaScript: the SQLite reader runs it in the
// runtime's Node, the Postgres reader in the test's.
'use strict';

const flatted = require('flatted');

/** A database time in ms: SQLite's "2026-12-02 07:20:00.123" is UTC; Postgres's text carries its offset. */
function timeOf(/** @type {unknown} */ value) {
	const text = String(value).replace(' ', 'T');
	return Date.parse(/(Z|[+-]\d\d(:?\d\d)?)$/.test(text) ? text : `${text}Z`);
}

/** The items of a node's run output, as the suites compare them. @param {any} run */
const outputOf = (run) =>
	((run.data && run.data.main && run.data.main[0]) || []).map((/** @type {any} */ item) => ({
		json: item.json,
		pairedItem: item.pairedItem,
	}));

/**
 * The execution as the suites count it, with what `nodeName` output.
 * @param {{id: unknown, status: string, createdAt: unknown, startedAt: unknown, data: string | null}} row
 * @param {string} nodeName
 */
function toRecord(row, nodeName) {
	/** @type {Array<{json: any, pairedItem?: unknown}>} */
	let items = [];
	let passedNothing = false;
	/** @type {number | null} */
	let nodeMs = null;
	/** @type {number | null} */
	let nodeEndedAt = null;
	try {
		const data = flatted.parse(String(row.data));
		/** @type {any[]} */
		const runs = data.resultData.runData[nodeName] || [];
		// After a crash n8n rebuilds a crashed execution's run data from its event log, with a stand-in item
		// ({isArtificialRecoveredEventItem: true}) for each node that had finished: not the node's real output.
		items = runs
			.flatMap(outputOf)
			.filter((item) => !(item.json && item.json.isArtificialRecoveredEventItem));
		if (runs.length && typeof runs[0].executionTime === 'number') {
			nodeMs = runs[0].executionTime;
			if (typeof runs[0].startTime === 'number') nodeEndedAt = runs[0].startTime + nodeMs;
		}
		passedNothing =
			runs.length > 0 &&
			runs.every((run) => run.executionStatus === 'success' && outputOf(run).length === 0);
		// An execution that never ran (n8n died first), or crashed, still holds the trigger's items in its start stack.
		if (!items.length && data.executionData) {
			/** @type {any[]} */
			const stack = data.executionData.nodeExecutionStack || [];
			const start = stack.find((entry) => entry.node && entry.node.name === nodeName) || stack[0];
			items = start ? outputOf(start) : [];
		}
	} catch {
		// No data yet (n8n is writing it), or none left: the execution with no items.
	}
	return {
		id: String(row.id),
		status: row.status,
		createdAt: timeOf(row.createdAt),
		startedAt: row.startedAt ? timeOf(row.startedAt) : null,
		items,
		eventIds: items.map((item) => item.json.id),
		passedNothing,
		nodeMs,
		nodeEndedAt,
	};
}

module.exports = { toRecord };

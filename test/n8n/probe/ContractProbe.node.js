// @ts-nocheck
// A node for the n8n contract suite (../contract.test.ts), never shipped: loaded by the suite's real n8n from this
// folder (N8N_CUSTOM_EXTENSIONS, as CUSTOM.contractProbe). It has the Storefront Trigger's shape (webhook(), trigger()
// and execute()), and reports what n8n did with it and what the package's adapter (dist/nodes/shared/n8n.js, the
// built package) reads from n8n's own values: the dedupe store's rows and errors, the run an emit() resolves with, the
// nodes around it, the static data a run saves. Its `check` parameter picks what execute() and trigger() do.
'use strict';

const path = require('path');

const adapter = () => require(path.resolve(__dirname, '../../../dist/nodes/shared/n8n.js'));

/** What an error looks like to the adapter. */
const errorFacts = (error) => ({
	code: error?.code === undefined ? null : String(error.code),
	message: String(error?.message ?? error),
});

/** The node row's rules in mode "entries", step by step through the adapter's helperRow. */
async function storeChecks(context) {
	const row = adapter().helperRow(context, 'node', { mode: 'entries' });
	const record = async (values, keepLast) => [...(await row.record(values, keepLast))].sort();
	const steps = {};
	await row.clear();
	steps.emptyCount = await row.count();
	steps.first = await record(['a', 'b', 'c']);
	steps.firstCount = await row.count();
	steps.again = await record(['b', 'd'], 4);
	// a b c d + e, trimmed to the last 3: c d e.
	steps.trimmed = await record(['e'], 3);
	steps.trimmedCount = await row.count();
	// a went first, c stayed.
	steps.afterTrim = await record(['a', 'c']);
	await row.remove(['d']);
	steps.removedCount = await row.count();
	steps.afterRemove = await record(['d']);
	await row.clear();
	steps.clearedCount = await row.count();
	return steps;
}

/** Two first inserts of one row at once: one fails on the table's key. Tried on a new row up to 5 times. */
async function uniqueChecks(context) {
	const row = adapter().helperRow(context, 'node', { mode: 'entries' });
	for (let attempt = 1; attempt <= 5; attempt++) {
		await row.clear();
		const settled = await Promise.allSettled([row.record(['u1']), row.record(['u2'])]);
		const failed = settled.find((result) => result.status === 'rejected');
		if (failed) {
			await row.clear();
			return {
				attempt,
				...errorFacts(failed.reason),
				isUniqueViolation: adapter().isUniqueViolation(failed.reason),
			};
		}
	}
	return {
		attempt: 5,
		code: null,
		message: 'both first inserts succeeded',
		isUniqueViolation: false,
	};
}

/** A workflow row saved in another mode (a Remove Duplicates node's "incremental key"), then read in mode entries. */
async function modeChecks(context) {
	await context.helpers.checkProcessedAndRecord([5], 'workflow', { mode: 'latestIncrementalKey' });
	const row = adapter().helperRow(context, 'workflow', { mode: 'entries' });
	const count = await row.count();
	let refusal = null;
	try {
		await row.record(['x']);
	} catch (error) {
		refusal = { ...errorFacts(error), isModeRefusal: adapter().isModeRefusal(error) };
	}
	await row.clear();
	return { count, refusal };
}

/** Marks a value seen in the workflow row, then sends it and a new one on, with the connected node that uses the row. */
async function rowUserChecks(context) {
	const row = adapter().helperRow(context, 'workflow', { mode: 'entries' });
	const countBefore = await row.count();
	const stamp = Date.now().toString(36);
	await row.record([`seen-${stamp}`]);
	const rowUser = adapter().workflowRowUser(context) ?? null;
	return [`seen-${stamp}`, `new-${stamp}`].map((value) => ({ value, rowUser, countBefore }));
}

/** The node's static data in a webhook's run: `key` is written, then the run waits `waitMs` before it ends. */
async function staticDataChecks(context, raw) {
	const { key, waitMs = 0 } = JSON.parse(raw);
	const data = context.getWorkflowStaticData('node');
	data[key] = true;
	await new Promise((resolve) => setTimeout(resolve, waitMs));
	return { wrote: key };
}

/** What the adapter reads from the run an emit() resolved with. */
const runFacts = (run, node) => ({
	resolved: run !== undefined,
	status: run?.status ?? null,
	claimed: adapter().claimedIn(run, node),
});

class ContractProbe {
	description = {
		displayName: 'Contract Probe',
		name: 'contractProbe',
		group: ['trigger'],
		version: [1, 2],
		description: 'The n8n contract suite',
		defaults: { name: 'Probe' },
		inputs: [],
		outputs: ['main'],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'lastNode',
				responseData: 'allEntries',
				path: 'probe',
			},
			{
				name: 'ack',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '',
				path: 'ack',
			},
		],
		properties: [
			{ displayName: 'Check', name: 'check', type: 'string', default: '' },
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				default: {},
				options: [
					{ displayName: 'Binary Data', name: 'binaryData', type: 'boolean', default: false },
				],
			},
		],
	};

	async webhook() {
		const request = this.getRequestObject();
		const parsed = request.body;
		if (request.rawBody === undefined && typeof request.readRawBody === 'function')
			await request.readRawBody();
		const json = {
			from: 'webhook',
			bodyParsed: parsed !== null && typeof parsed === 'object' && 'probe' in parsed,
			raw: Buffer.isBuffer(request.rawBody) ? request.rawBody.toString('utf8') : null,
		};
		if (this.getWebhookName() === 'ack')
			return { webhookResponse: { received: 'probe' }, workflowData: [[{ json }]] };
		return { workflowData: [[{ json }]] };
	}

	async trigger() {
		if (this.getMode() === 'manual' || this.getNodeParameter('check', '') !== 'emit') return {};
		const node = this.getNode().name;
		const activationMode = this.getActivationMode();
		const run = async (json) => {
			const done = this.helpers.createDeferredPromise();
			this.emit([[{ json }]], undefined, done);
			return await done.promise;
		};
		let ticked = false;
		// From a cron tick, as the Storefront Trigger's scheduled checks: a run that ends well, one that fails in
		// execute(), then a run that reports what their done promises resolved with.
		this.helpers.registerCron({ expression: '* * * * * *' }, () => {
			if (ticked) return;
			ticked = true;
			void (async () => {
				const ok = runFacts(await run({ run: 'ok' }), node);
				const failed = runFacts(await run({ run: 'fail', fail: true }), node);
				this.emit([[{ json: { run: 'report', activationMode, ok, failed } }]]);
			})();
		});
		return { closeFunction: async () => {} };
	}

	async execute() {
		const inputs = this.getInputData().map((item) => item.json);
		if (inputs.some((json) => json.fail)) throw new Error('the contract probe fails on purpose');
		const check = this.getNodeParameter('check', 0, '');
		const out = { executed: true, inputs };
		if (check === 'store') out.store = await storeChecks(this);
		if (check === 'unique') out.unique = await uniqueChecks(this);
		if (check === 'mode') out.mode = await modeChecks(this);
		if (check === 'staticData') out.staticData = await staticDataChecks(this, inputs[0].raw);
		if (check === 'rowUser') return [(await rowUserChecks(this)).map((json) => ({ json }))];
		return [[{ json: out }]];
	}
}

module.exports = { ContractProbe };

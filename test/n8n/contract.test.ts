/* eslint-disable @typescript-eslint/no-explicit-any, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- n8n's internal REST API answers untyped JSON; test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The n8n contract: each behaviour of n8n that the nodes rely on and n8n does not document as API
// (nodes/shared/n8n.ts, docs/maintainers.md), checked against the real n8n of the matrix cell — 2.x, 1.x, and queue
// mode (main, webhook processor, worker, Postgres) — so that an n8n release that changes one fails by name. A probe node
// of the Storefront Trigger's shape (./probe/ContractProbe.node.js, loaded from a custom folder) runs the package's
// built adapter (dist/nodes/shared/n8n.js) on n8n's own values. Runs in the e2e project: `npm run build` first.
import { randomUUID } from 'crypto';
import * as path from 'path';

import {
	CELL,
	eventually,
	instance,
	rest,
	startEnvironment,
	type Environment,
} from '../e2e/environment';

jest.setTimeout(120_000);

const PROBE = 'CUSTOM.contractProbe';

let env: Environment;

beforeAll(async () => {
	env = await startEnvironment('contract', {
		editor: false,
		credential: false,
		n8nEnv: { N8N_CUSTOM_EXTENSIONS: path.join(__dirname, 'probe') },
	});
}, 300_000);

afterAll(async () => {
	await env?.stop();
}, 60_000);

const probeNode = (check: string, { typeVersion = 2, options = {} } = {}) => ({
	id: 'probe',
	name: 'Probe',
	type: PROBE,
	typeVersion,
	position: [0, 0],
	webhookId: randomUUID(),
	parameters: { check, options },
});

/** An active workflow of the probe and the nodes after it (`next`, a chain); resolves with its webhook URLs. */
async function probeWorkflow(probe: ReturnType<typeof probeNode>, next: any[] = []) {
	const chain = [probe, ...next];
	const connections = Object.fromEntries(
		next.map((node, i) => [
			chain[i].name,
			{ main: [[{ node: node.name, type: 'main', index: 0 }]] },
		]),
	);
	const created = await env.client.createWorkflow({
		name: `n8n contract ${probe.parameters.check} ${randomUUID().slice(0, 6)}`,
		nodes: chain.map((node, i) => ({ position: [220 * i, 0], ...node })),
		connections,
		settings: { executionOrder: 'v1' },
	});
	const url = (name: string) => `${env.webhookUrl}/webhook/${probe.webhookId}/${name}`;
	await instance.activate(
		env.client,
		created.id,
		probe.parameters.check === 'emit' ? undefined : url('probe'),
	);
	return { id: created.id as string, probe: url('probe'), ack: url('ack') };
}

async function post(url: string, body: string) {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body,
	});
	const text = await response.text();
	if (response.status !== 200)
		throw new Error(`POST ${url} → ${response.status} ${text.slice(0, 500)}`);
	return JSON.parse(text);
}

/** The probe's output in each of the workflow's ended runs, oldest first, once there are `count` of them. */
async function probeOutputs(workflowId: string, count: number): Promise<any[][]> {
	const ended = await eventually(async () => {
		const { results } = await env.client.listExecutions({ workflowId });
		const done = results.filter((e: any) => ['success', 'error'].includes(e.status));
		return done.length >= count ? done : undefined;
	}, `${count} ended runs of workflow ${workflowId}`);
	ended.sort((a: any, b: any) => Number(a.id) - Number(b.id));
	return await Promise.all(
		ended.map(
			async (e: any) => rest.nodeOutput(await env.client.getExecution(e.id), 'Probe') ?? [],
		),
	);
}

const removeDuplicates = (name: string, operation: string, scope: string) => ({
	id: randomUUID(),
	name,
	type: 'n8n-nodes-base.removeDuplicates',
	typeVersion: 2,
	parameters: {
		operation,
		...(operation === 'removeItemsSeenInPreviousExecutions'
			? { dedupeValue: '={{ $json.value }}' }
			: {}),
		options: { scope },
	},
});

describe('n8n contract', () => {
	it("n8n contract: execute() of a node with webhook() runs as the first step of the webhook's run, with its items", async () => {
		const wf = await probeWorkflow(probeNode('items'));
		expect(await post(wf.probe, '{"probe": 1}')).toEqual([
			{ executed: true, inputs: [expect.objectContaining({ from: 'webhook' })] },
		]);
	});

	it('n8n contract: an on-received webhook with responseData "" is answered with the node\'s webhookResponse', async () => {
		const wf = await probeWorkflow(probeNode('items'));
		expect(await post(wf.ack, '{"probe": 1}')).toEqual({ received: 'probe' });
	});

	it('n8n contract: the request keeps the raw body a webhook() reads (rawBody, readRawBody)', async () => {
		const wf = await probeWorkflow(probeNode('items'));
		const body = '{"probe":  1,\n "name": "caf\u00e9"}';
		const [out] = await post(wf.probe, body);
		expect(out.inputs[0].raw).toBe(body);
	});

	it('n8n contract: the dedupe store keeps rows as the claims read them (which were there, oldest trimmed first, count, remove, clear)', async () => {
		const wf = await probeWorkflow(probeNode('store'));
		const [out] = await post(wf.probe, '{"probe": 1}');
		expect(out.store).toEqual({
			emptyCount: 0,
			first: [],
			firstCount: 3,
			again: ['b'],
			trimmed: [],
			trimmedCount: 3,
			afterTrim: ['c'],
			removedCount: 3,
			afterRemove: [],
			clearedCount: 0,
		});
	});

	it('n8n contract: a run saves the static data it started with, whole, when it ends (what a run that ended meanwhile wrote is gone)', async () => {
		const wf = await probeWorkflow(probeNode('staticData'));
		const slow = post(wf.probe, '{"probe": 1, "key": "slow", "waitMs": 3000}');
		// Its run has its copy once it is an execution (in queue mode, the webhook processor's).
		await eventually(async () => {
			const { results } = await env.client.listExecutions({ workflowId: wf.id });
			return results.length > 0 ? results : undefined;
		}, 'the slow run started');
		const [fast] = await post(wf.probe, '{"probe": 1, "key": "fast"}');
		expect(fast.staticData).toEqual({ wrote: 'fast' });
		await slow;
		// What n8n's database holds once the slow run's save landed (a webhook processor's copy may be older).
		const saved = await eventually(async () => {
			const { staticData } = await env.client.getWorkflow(wf.id);
			const data = staticData?.['node:Probe'];
			return data?.slow ? data : undefined;
		}, 'the slow run saved its static data');
		// The catch-up's last run change relies on it: a run whose copy has no baseline writes none (catchUp.ts).
		expect(saved).toEqual({ slow: true });
	});

	it("n8n contract: of two first inserts of a row at once, one fails as a unique-key violation (the database's code)", async () => {
		const wf = await probeWorkflow(probeNode('unique'));
		const [out] = await post(wf.probe, '{"probe": 1}');
		// The cell's database: SQLite for one n8n process, Postgres in queue mode.
		const code = CELL.mode === 'queue' ? '23505' : 'SQLITE_CONSTRAINT';
		expect(out.unique).toEqual(expect.objectContaining({ code, isUniqueViolation: true }));
	});

	it('n8n contract: a row saved in another mode counts 0 in mode entries and refuses a call ("Deduplication Failed")', async () => {
		const wf = await probeWorkflow(probeNode('mode'));
		const [out] = await post(wf.probe, '{"probe": 1}');
		expect(out.mode).toEqual({
			count: 0,
			refusal: expect.objectContaining({ isModeRefusal: true }),
		});
	});

	it("n8n contract: Remove Duplicates with Scope Workflow keeps its memory in the lock's row, and is found connected to the node", async () => {
		// Remove Items Processed in Previous Executions, Scope Workflow: it drops the value the probe put in the row.
		const seen = await probeWorkflow(probeNode('rowUser'), [
			removeDuplicates('Seen', 'removeItemsSeenInPreviousExecutions', 'workflow'),
		]);
		const passed = await post(seen.probe, '{"probe": 1}');
		expect(passed).toEqual([expect.objectContaining({ rowUser: 'Seen' })]);
		expect(passed[0].value).toMatch(/^new-/);
		// Scope Node: its own row; the probe finds no node using the workflow's.
		const own = await probeWorkflow(probeNode('rowUser'), [
			removeDuplicates('Own Row', 'removeItemsSeenInPreviousExecutions', 'node'),
		]);
		const both = await post(own.probe, '{"probe": 1}');
		expect(both.map((item: any) => item.rowUser)).toEqual([null, null]);
		expect(both).toHaveLength(2);
		// Clean Database, Scope Workflow: it deletes the row (the next run's probe counts none).
		const clean = await probeWorkflow(probeNode('rowUser'), [
			removeDuplicates('Clean', 'clearDeduplicationHistory', 'workflow'),
		]);
		await post(clean.probe, '{"probe": 1}');
		await post(clean.probe, '{"probe": 2}');
		const runs = await probeOutputs(clean.id, 2);
		expect(runs.map((items) => items[0])).toEqual([
			expect.objectContaining({ rowUser: 'Clean', countBefore: 0 }),
			expect.objectContaining({ rowUser: 'Clean', countBefore: 0 }),
		]);
	});

	it("n8n contract: emit's done promise resolves with the run, and tells whether the node's step ran (from a registerCron tick)", async () => {
		const wf = await probeWorkflow(probeNode('emit'));
		const runs = await probeOutputs(wf.id, 3);
		const report = runs.flat().find((item) => item.inputs?.[0]?.run === 'report');
		expect(report?.inputs[0]).toEqual({
			run: 'report',
			activationMode: expect.stringMatching(/^(activate|create|update)$/),
			ok: { resolved: true, status: 'success', claimed: true },
			failed: { resolved: true, status: 'error', claimed: false },
		});
	});

	it('n8n contract: a webhook start node of version 1 is handled as the legacy Webhook v1 ($parameter.options.binaryData read)', async () => {
		const options = { binaryData: true };
		const v1 = await probeWorkflow(probeNode('items', { typeVersion: 1, options }));
		const v2 = await probeWorkflow(probeNode('items', { typeVersion: 2, options }));
		const [legacy] = await post(v1.probe, '{"probe": 1}');
		const [current] = await post(v2.probe, '{"probe": 1}');
		// Version 1 with Binary Data on: n8n leaves the body unparsed, as for its Webhook v1. Version 2: parsed.
		expect(legacy.inputs[0].bodyParsed).toBe(false);
		expect(current.inputs[0].bodyParsed).toBe(true);
	});
});

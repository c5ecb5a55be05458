/* eslint-disable @typescript-eslint/no-explicit-any -- n8n's internal REST API answers untyped JSON */
// A flash sale on the Starter plan in a real n8n, shared by the reliability suite (one process) and the queue suite
// (two workers): a burst of orders, each run through Storefront Trigger → Order › Get → Order › Update Status
// (the node's defaults) on a Starter key, with the sandbox enforcing the plan's rate in shortened
// windows, with or without X-RateLimit-* headers. Returns the counts the suites assert and the times they print.
import {
	createWorkflow,
	CREDENTIAL_NAME,
	eventually,
	instance,
	registerWebhook,
	triggerNode,
	TYPES,
	type Environment,
} from '../e2e/environment';
import { windowsOf } from './sandbox';

export interface FlashSale {
	orders: number;
	/** Requests a window allows (the sandbox's Starter limit for the run) and the window's length. */
	limit: number;
	windowMs: number;
	/** Whether the sandbox sends X-RateLimit-* headers (Retry-After on a 429 either way). */
	headers: boolean;
}

export interface FlashSaleResult {
	executions: number;
	failedExecutions: number;
	/** Orders whose status changed to processing exactly once / more than once / never. */
	setOnce: number;
	setTwice: number;
	notSet: number;
	calls: number;
	refused: number;
	/** Windows the served calls spanned, as the sandbox opens them. */
	windows: number;
	drainMs: number;
	/** Drain time ÷ what the plan allows for these calls: (windows needed − 1) whole windows. */
	drainRatio: number;
	summary: string;
}

const STARTER_KEY = 'sf_test_starter';

export async function runFlashSale(env: Environment, sale: FlashSale): Promise<FlashSaleResult> {
	const { sandbox, client } = env;
	await sandbox.admin('PUT', '/ratelimit', {
		window_ms: sale.windowMs,
		limits: { starter: sale.limit },
		headers: sale.headers,
	});
	// The environment's credential, on the Starter key for this run (the trigger only needs its webhook secret).
	await instance.ensureCredential(client, {
		name: CREDENTIAL_NAME,
		data: { ...env.credentialData, apiKey: STARTER_KEY },
	});
	try {
		const steps = instance.orderIntakeSteps(TYPES.action, {
			storefrontApi: { id: '', name: CREDENTIAL_NAME },
		});
		const wf = await createWorkflow(env, {
			name: `flash sale ${sale.headers ? 'with' : 'without'} rate headers`,
			// Deliveries only: a catch-up's readings would add calls to the 2 an order the sale counts.
			nodes: [triggerNode(['order.created'], { catchUp: false }), ...steps.nodes],
			connections: steps.connections,
			settings: { executionOrder: 'v1' },
		});
		await registerWebhook(env, wf.url);
		await sandbox.admin('POST', '/simulate/stock', { product_id: 'prod_00001', stock: 1_000_000 });
		await sandbox.admin('DELETE', '/requests');
		const eventsBefore = sandbox.events.length;

		// The sale: every checkout at once; the sandbox delivers each order.created to n8n.
		const started = Date.now();
		const placed = await Promise.all(
			Array.from({ length: sale.orders }, async () => {
				const res = await sandbox.admin<{ id: string; status: string }>(
					'POST',
					'/simulate/checkout',
					{ items: [{ product_id: 'prod_00001', quantity: 1 }] },
				);
				if (res.status !== 201) throw new Error(`checkout → ${res.status}`);
				return res.body.id;
			}),
		);
		const ids = new Set(placed);
		// Done when every order was set and every execution has finished (calls ÷ plan rate, with a margin).
		const budgetMs = Math.ceil((2 * sale.orders) / sale.limit) * sale.windowMs * 3 + 120_000;
		await eventually(
			() =>
				[...ids].every((id) => sandbox.state.orders.get(id)?.status === 'processing')
					? true
					: undefined,
			`${sale.orders} orders set to processing`,
			budgetMs,
		);
		const executions = await eventually(
			async () => {
				const list = await client.allExecutions({ workflowId: wf.id });
				return list.length >= sale.orders &&
					list.every((e: any) => !['new', 'running', 'waiting'].includes(e.status))
					? list
					: undefined;
			},
			`${sale.orders} finished executions`,
			180_000,
		);
		await instance.deactivate(client, wf.id);

		const refusedByWindow: number[] = [];
		const requests = (
			await sandbox.admin<
				Array<{ at: string; ms: number; method: string; path: string; status: number | string }>
			>('GET', '/requests')
		).body;
		const served = requests.filter((r) => r.status === 200);
		const puts = served.filter((r) => r.method === 'PUT');
		const drainMs = Math.max(...puts.map((r) => Date.parse(r.at))) - started;
		const changes = new Map<string, number>();
		for (const event of sandbox.events.slice(eventsBefore)) {
			const data = event.data as { order_id?: string; status?: string };
			if (
				event.type === 'order.updated' &&
				data.status === 'processing' &&
				data.order_id &&
				ids.has(data.order_id)
			) {
				changes.set(data.order_id, (changes.get(data.order_id) ?? 0) + 1);
			}
		}
		// Refusals by the window they fell in (a window opens with the first request after the last one ended).
		const openings: number[] = [];
		for (const r of requests
			.map((q) => ({ start: Date.parse(q.at) - q.ms, status: q.status }))
			.sort((a, b) => a.start - b.start)) {
			if (!openings.length || r.start >= openings[openings.length - 1] + sale.windowMs)
				openings.push(r.start);
			if (r.status === 429)
				refusedByWindow[openings.length - 1] = (refusedByWindow[openings.length - 1] ?? 0) + 1;
		}
		const calls = 2 * sale.orders;
		const windows = windowsOf(
			served.map((r) => Date.parse(r.at) - r.ms),
			sale.windowMs,
		);
		// The first window's calls go at once and the last window's too: C calls need ceil(C / limit) windows, of which
		// all but the last are waited out whole.
		const ideal = (Math.ceil(calls / sale.limit) - 1) * sale.windowMs;
		const result = {
			executions: executions.length,
			failedExecutions: executions.filter((e: any) => e.status !== 'success').length,
			setOnce: [...changes.values()].filter((n) => n === 1).length,
			setTwice: [...changes.values()].filter((n) => n > 1).length,
			notSet: [...ids].filter((id) => !changes.has(id)).length,
			calls: served.length,
			refused: requests.filter((r) => r.status === 429).length,
			windows,
			drainMs,
			drainRatio: drainMs / ideal,
			summary: '',
		};
		result.summary =
			`${sale.orders} orders on Starter at ${sale.limit} per ${sale.windowMs / 1000} s ${sale.headers ? 'with' : 'without'} X-RateLimit-* headers: ` +
			`${result.executions} executions, ${result.failedExecutions} failed; orders set once ${result.setOnce}, twice ${result.setTwice}, never ${result.notSet}; ` +
			`${result.calls} calls served in ${windows} windows, ${result.refused} refused (429; by window ${JSON.stringify([...refusedByWindow].map((n) => n ?? 0))}); ` +
			`drain ${(drainMs / 1000).toFixed(1)} s, ÷ ideal ${(ideal / 1000).toFixed(0)} s = ${result.drainRatio.toFixed(2)}`;
		return result;
	} finally {
		await instance.ensureCredential(client, { name: CREDENTIAL_NAME, data: env.credentialData });
		await sandbox.admin('DELETE', '/ratelimit');
	}
}

/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// End to end with the sandbox: its real signed deliveries (axios POSTs of the exact signed bytes) reach a real
// local HTTP receiver, which hands the raw bytes and headers to the trigger's webhook() running in n8n-core's
// WebhookContext and answers the way n8n does (the node's own answer, or 200 with its webhookResponse).
import * as http from 'http';
import type { AddressInfo } from 'net';

import { EVENT_KINDS } from '../../nodes/shared/constants';
import { StorefrontTrigger } from '../../nodes/StorefrontTrigger/StorefrontTrigger.node';
import { api, startSandbox, type Sandbox } from '../helpers/sandbox';
import { createTriggerHarness, type Outcome, type TriggerHarness } from '../helpers/webhook';

interface Received {
	outcome: Outcome;
	headers: http.IncomingHttpHeaders;
}

/** A receiver standing in for n8n's webhook endpoint in front of one trigger node. */
async function startReceiver(node: TriggerHarness) {
	const received: Received[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks);
			node.deliver({ body, headers: req.headers as Record<string, string | string[]> }).then(
				(outcome) => {
					received.push({ outcome, headers: req.headers });
					const status = outcome.status ?? 200;
					const answer =
						outcome.status === undefined ? outcome.result.webhookResponse : outcome.body;
					res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
				},
				(error: Error) => res.writeHead(500).end(error.message),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/webhook/storefront`,
		received,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

describe('Storefront Trigger with the sandbox', () => {
	let sb: Sandbox;
	let receiver: Awaited<ReturnType<typeof startReceiver>>;

	beforeAll(async () => {
		const node = createTriggerHarness({
			nodeType: new StorefrontTrigger(),
			parameters: {
				events: ['*'],
				options: { dropDuplicates: true, rejectOlderThanMinutes: 5 },
			} as never,
			credentials: { webhookSecret: 'whsec_demo' },
		});
		receiver = await startReceiver(node);
		sb = await startSandbox({
			webhook: { url: receiver.url, secret: 'whsec_demo' },
			delivery: { attempts: 2, baseDelayMs: 20, timeoutMs: 5000 },
		});
	});

	afterAll(async () => {
		await sb?.stop();
		await receiver?.close();
	});

	it('turns every kind of event the sandbox emits into exactly one item, each verified on first delivery', async () => {
		const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
		expect(order.id).toBeDefined();
		expect((await sb.admin('POST', '/simulate/payment', { order_id: order.id })).status).toBe(200);
		expect(
			(await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'processing' })).status,
		).toBe(200);
		expect(
			(await api(sb, 'POST', '/products', { name: 'Receiver test mug', price: 12.5, stock: 20 }))
				.status,
		).toBe(201);
		const product = [...sb.state.products.values()].find((p) => p.stock > 10)!;
		expect(
			(await sb.admin('POST', '/simulate/stock', { product_id: product.id, stock: 1 })).status,
		).toBe(200);
		await sb.idle();

		const emitted = sb.events;
		expect(new Set(emitted.map((e) => e.type))).toEqual(
			new Set(EVENT_KINDS.map((kind) => kind.value)),
		);

		const items = receiver.received.flatMap(({ outcome }) => outcome.items);
		expect(items).toHaveLength(emitted.length);
		for (const emittedEvent of emitted) {
			const matching = items.filter((item) => item.id === emittedEvent.id);
			expect(matching).toEqual([
				{
					id: emittedEvent.id,
					type: emittedEvent.type,
					created_at: emittedEvent.created_at,
					data: emittedEvent.data,
					source: 'webhook',
				},
			]);
		}
		for (const delivery of sb.deliveries) {
			expect(delivery.status).toBe('delivered');
			expect(delivery.attempts.map((attempt) => [attempt.status, attempt.response])).toEqual([
				[200, '{"received":true}'],
			]);
		}
	});

	it('refuses deliveries signed with another secret: 401, retried, never an event item', async () => {
		const before = receiver.received.length;
		expect(
			(await sb.admin('PUT', '/webhook', { url: receiver.url, secret: 'whsec_rotated_elsewhere' }))
				.status,
		).toBe(200);
		try {
			await sb.admin('POST', '/simulate/checkout', {});
			await sb.idle();
		} finally {
			await sb.admin('PUT', '/webhook', { url: receiver.url, secret: 'whsec_demo' });
		}
		const refused = receiver.received.slice(before);
		expect(refused.length).toBeGreaterThanOrEqual(2); // both attempts arrived…
		for (const { outcome } of refused) expect(outcome.status).toBe(401); // …and each was refused
		// No event reached the workflow: the first refusal starts the one run that reports it (failing at the trigger's
		// own step), the next within 20 minutes none.
		expect(refused.map(({ outcome }) => outcome.items)).toEqual([
			[
				{
					refused: {
						status: 401,
						code: 'invalid_signature',
						message: 'The X-Service-Signature digest does not match the request body',
					},
				},
			],
			...refused.slice(1).map(() => []),
		]);
		const last = sb.deliveries[sb.deliveries.length - 1];
		expect(last.status).toBe('failed');
		expect(last.attempts.every((attempt) => attempt.status === 401)).toBe(true);
	});
});

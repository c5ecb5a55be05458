// The Storefront Trigger's webhook() and lifecycle run through n8n-core's real WebhookContext / HookContext
// (test/helpers/webhook.ts) with real raw-body Buffers. Signatures are computed here with node:crypto directly.
import { createHmac } from 'crypto';
import type {
	DeduplicationScope,
	IExecuteFunctions,
	INode,
	INodeProperties,
	INodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, sleep, Workflow } from 'n8n-workflow';

import { EVENT_KINDS } from '../../nodes/shared/constants';
import {
	acceptDelivery,
	ACCEPTED_IDS_LIMIT,
	ACCEPTED_RETENTION_MS,
} from '../../nodes/StorefrontTrigger/ranHere';
import { DELIVERY_KEY } from '../../nodes/StorefrontTrigger/options';
import { RELEASE_AFTER_MS } from '../../nodes/StorefrontTrigger/release';
import { StorefrontTrigger } from '../../nodes/StorefrontTrigger/StorefrontTrigger.node';
import { sharedDeduplicator } from '../helpers/deduplication';
import {
	createTriggerHarness,
	type Delivery,
	type HarnessOptions,
	type Outcome,
} from '../helpers/webhook';

const SECRET = 'whsec_trigger_test';
const ALL_KINDS = EVENT_KINDS.map((kind) => kind.value);

const sampleData: Record<string, object> = {
	'order.created': {
		order_id: 'ord_00042',
		store_id: 'store_001',
		total: 59.98,
		currency: 'EUR',
		status: 'pending',
		items: [{ product_id: 'prod_00001', name: 'Café mug', quantity: 2, price: 29.99 }],
	},
	'order.updated': {
		order_id: 'ord_00042',
		store_id: 'store_001',
		status: 'processing',
		previous_status: 'pending',
	},
	'payment.completed': {
		payment_id: 'pay_1',
		order_id: 'ord_00042',
		store_id: 'store_001',
		amount: 59.98,
		currency: 'EUR',
		method: 'card',
	},
	'product.created': {
		product_id: 'prod_00099',
		store_id: 'store_001',
		name: 'Tea',
		sku: 'TEA-1',
		price: 4.5,
		stock: 10,
	},
	'inventory.low': {
		product_id: 'prod_00001',
		store_id: 'store_001',
		name: 'Café mug',
		sku: 'MUG-1',
		stock: 4,
		threshold: 5,
	},
};

let counter = 0;
function event(type: string, overrides: Record<string, unknown> = {}) {
	counter += 1;
	return {
		id: `evt_${String(counter).padStart(6, '0')}`,
		type,
		created_at: new Date().toISOString(),
		data: sampleData[type] ?? { anything: true },
		...overrides,
	};
}

const sign = (body: Buffer | string, secret = SECRET) =>
	`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** A delivery as the service sends it: compact JSON bytes, signature and the informational headers. */
function signed(payload: unknown, extraHeaders: Record<string, string> = {}): Delivery {
	const body = Buffer.from(JSON.stringify(payload), 'utf8');
	const type = (payload as { type?: string }).type ?? '';
	return {
		body,
		headers: {
			'Content-Type': 'application/json',
			'X-Service-Signature': sign(body),
			'X-Service-Event': type,
			'X-Service-Delivery': 'dlv_1',
			'X-Service-Attempt': '1',
			...extraHeaders,
		},
	};
}

function trigger(
	parameters: Record<string, unknown> = { events: ['*'] },
	credentials: Record<string, unknown> = { webhookSecret: SECRET },
	{
		nodeType = new StorefrontTrigger(),
		...harness
	}: Partial<Omit<HarnessOptions, 'parameters' | 'credentials'>> = {},
) {
	return createTriggerHarness({
		nodeType,
		parameters: parameters as never,
		credentials: {
			baseUrl: 'https://api.example.test/v1',
			apiKey: 'sf_test_key_never_shown',
			...credentials,
		} as never,
		...harness,
	});
}

function expectRan(outcome: Outcome) {
	expect(outcome.status).toBeUndefined(); // the node left the answer to n8n…
	expect(outcome.result.webhookResponse).toEqual({ received: true }); // …which sends this ack at once
	expect(outcome.items).toHaveLength(1);
	return outcome.items[0];
}

/**
 * The node answered itself and the event never runs. A refusal (4xx) may start the one run that reports it (at most
 * one per 20 minutes and node: test/trigger/catchUp.test.ts pins those bounds): its one item is the refusal, which
 * fails at the trigger's own step and never reaches the next node.
 */
function expectNoRun(outcome: Outcome, status: number) {
	const body = outcome.body as {
		received?: boolean;
		skipped?: string;
		error?: { code: string; message: string };
	};
	expect(outcome.status).toBe(status);
	if (status < 400 || outcome.items.length === 0) {
		expect(outcome.result).toEqual({ noWebhookResponse: true });
		expect(outcome.items).toEqual([]);
	} else {
		expect(outcome.result.noWebhookResponse).toBe(true);
		expect(outcome.items).toEqual([{ refused: { status, ...body.error } }]);
	}
	return body;
}

describe('description', () => {
	const { description } = new StorefrontTrigger();

	it('is a webhook trigger on the Storefront credentials', () => {
		expect(description).toMatchObject({
			name: 'storefrontTrigger',
			displayName: 'Storefront Trigger',
			group: ['trigger'],
			inputs: [],
			credentials: [{ name: 'storefrontApi', required: true }],
			webhooks: [
				{ name: 'default', httpMethod: 'POST', path: 'webhook', responseMode: 'onReceived' },
			],
		});
	});

	it('offers every event kind from the shared list plus "*"', () => {
		const events = description.properties.find((property) => property.name === 'events')!;
		const values = (events.options as Array<{ value: string }>).map((option) => option.value);
		expect(values.sort()).toEqual(['*', ...ALL_KINDS].sort());
	});

	it('its canvas subtitle names the events as the Events list does, All Events for "*"', () => {
		const subtitle = (events: string[]) => {
			const node: INode = {
				id: 'n',
				name: 'Storefront Trigger',
				type: 'n8n-nodes-storefront.storefrontTrigger',
				typeVersion: 2,
				position: [0, 0],
				parameters: { events },
			};
			const nodeType = new StorefrontTrigger();
			const workflow = new Workflow({
				nodes: [node],
				connections: {},
				active: false,
				nodeTypes: {
					getByName: () => nodeType,
					getByNameAndVersion: () => nodeType,
					getKnownTypes: () => ({}),
				},
			});
			return workflow.expression.getSimpleParameterValue(
				node,
				description.subtitle as string,
				'internal',
				{},
			);
		};
		expect(subtitle(['*'])).toBe('All Events');
		expect(subtitle(['order.created', 'payment.completed'])).toBe(
			'Order Created, Payment Completed',
		);
		expect(subtitle([])).toBe('');
	});

	it('shows an option only while what it needs is on: the editor hides it, the text does not say "Needs"', () => {
		const options = description.properties.find((property) => property.name === 'options')!
			.options as INodeProperties[];
		const node = { typeVersion: 2, parameters: {} } as unknown as INode;
		const shown = (values: Record<string, boolean>) =>
			options
				.filter((option) =>
					NodeHelpers.displayParameter(values, option, node, description, { options: values }),
				)
				.map((option) => option.displayName);
		const dependent = [
			'Catch Up After Downtime',
			'Check for Missed Events Every (Minutes)',
			'Leave Out Superseded Changes',
			'Remember Events For (Hours)',
		];
		expect(shown({})).toEqual(expect.arrayContaining(dependent));
		expect(shown({ dropDuplicates: false })).toEqual(expect.not.arrayContaining([dependent[0]]));
		expect(shown({ dropDuplicates: false }).filter((name) => dependent.includes(name))).toEqual([]);
		expect(shown({ catchUp: false }).filter((name) => dependent.includes(name))).toEqual([
			'Catch Up After Downtime',
			'Remember Events For (Hours)',
		]);
		for (const option of options) expect(String(option.description)).not.toMatch(/\bNeeds\b/);
	});

	it('explains which URL to paste into the dashboard', () => {
		const notice = description.properties.find((property) => property.type === 'notice')!;
		expect(notice.displayName).toMatch(/Production URL/);
		expect(notice.displayName).toMatch(/Test URL/);
		expect(notice.displayName).toMatch(/dashboard/);
	});
});

describe('verified events', () => {
	it.each(ALL_KINDS)(
		'%s becomes exactly one item {id, type, created_at, data, source}',
		async (kind) => {
			const payload = event(kind);
			const item = expectRan(await trigger().deliver(signed(payload)));
			expect(item).toEqual({ ...payload, source: 'webhook' });
			expect(Object.keys(item).sort()).toEqual(['created_at', 'data', 'id', 'source', 'type']);
		},
	);

	it('keeps order.created data exactly as the spec shapes it', async () => {
		const payload = event('order.created');
		const item = expectRan(await trigger({ events: ['order.created'] }).deliver(signed(payload)));
		expect(item.data).toEqual(sampleData['order.created']);
	});

	it('passes data of an unknown shape through unchanged', async () => {
		const payload = event('order.updated', {
			data: { nested: { list: [1, 'two', null] }, flag: false },
		});
		expect(expectRan(await trigger().deliver(signed(payload))).data).toEqual(payload.data);
	});

	it('keeps only the four envelope keys', async () => {
		const payload = { ...event('order.created'), extra: 'not part of the envelope' };
		expect(expectRan(await trigger().deliver(signed(payload)))).not.toHaveProperty('extra');
	});

	it('accepts an upper-case hex signature', async () => {
		const delivery = signed(event('order.created'));
		const headers = delivery.headers as Record<string, string>;
		headers['X-Service-Signature'] =
			`sha256=${headers['X-Service-Signature'].slice(7).toUpperCase()}`;
		expectRan(await trigger().deliver(delivery));
	});

	it('verifies the bytes as sent, not a re-serialisation (escapes and whitespace survive)', async () => {
		const raw = Buffer.from(
			'{ "id": "evt_raw_1", "type": "product.created", "created_at": "2026-11-22T10:15:00.000Z",\n  "data": {"name": "Caf\\u00e9"} }',
		);
		const item = expectRan(
			await trigger().deliver({
				body: raw,
				headers: { 'x-service-signature': sign(raw), 'content-type': 'application/json' },
			}),
		);
		expect(item).toMatchObject({ id: 'evt_raw_1', data: { name: 'Café' } });
	});

	it('takes the event from the body n8n already parsed: the raw bytes are never parsed a second time', async () => {
		const delivery = signed(event('payment.completed'));
		const rawText = (delivery.body as Buffer).toString('utf8');
		const parse = jest.spyOn(JSON, 'parse');
		try {
			expectRan(await trigger().deliver(delivery));
			// Exactly once: the harness's stand-in for n8n's own body parser.
			expect(parse.mock.calls.filter(([text]) => text === rawText)).toHaveLength(1);
		} finally {
			parse.mockRestore();
		}
	});

	it('parses the raw bytes itself when n8n did not (a non-JSON content type)', async () => {
		const payload = event('inventory.low');
		const delivery = signed(payload, { 'Content-Type': 'text/plain' });
		expect(expectRan(await trigger().deliver(delivery))).toEqual({ ...payload, source: 'webhook' });
	});
});

describe('event filter', () => {
	it('runs only for the selected kinds and acknowledges the others with 200 and no run', async () => {
		const node = trigger({ events: ['order.created', 'inventory.low'] });
		expectRan(await node.deliver(signed(event('order.created'))));
		expectRan(await node.deliver(signed(event('inventory.low'))));
		for (const kind of ['order.updated', 'payment.completed', 'product.created']) {
			const body = expectNoRun(await node.deliver(signed(event(kind))), 200);
			expect(body).toEqual({ received: true, skipped: 'event_type_not_selected' });
		}
	});

	it('runs an unknown future kind under "*" only', async () => {
		expectRan(await trigger({ events: ['*'] }).deliver(signed(event('refund.created'))));
		expectNoRun(await trigger({ events: ALL_KINDS }).deliver(signed(event('refund.created'))), 200);
	});

	it('runs nothing when no event is selected', async () => {
		expectNoRun(await trigger({ events: [] }).deliver(signed(event('order.created'))), 200);
	});

	it('checks the signature before the filter: an unselected kind with a bad signature is still 401', async () => {
		const delivery = signed(event('order.updated'));
		(delivery.headers as Record<string, string>)['X-Service-Signature'] = sign(
			delivery.body,
			'wrong',
		);
		expect(
			expectNoRun(await trigger({ events: ['order.created'] }).deliver(delivery), 401).error?.code,
		).toBe('invalid_signature');
	});
});

describe('rejected deliveries: 401, no run', () => {
	const withSignature = (signature: string | undefined) => {
		const delivery = signed(event('order.created'));
		const headers = delivery.headers as Record<string, string>;
		delete headers['X-Service-Signature'];
		if (signature !== undefined) headers['X-Service-Signature'] = signature;
		return delivery;
	};

	it.each([
		['no signature header', () => withSignature(undefined)],
		[
			'a signature made with another secret',
			() => withSignature(sign(Buffer.from('x'), 'another')),
		],
		[
			'the right secret over other bytes',
			() => withSignature(sign(Buffer.from('{"id":"evt_other"}'))),
		],
		['no sha256= prefix', () => withSignature(sign(Buffer.from('x')).slice(7))],
		['a truncated digest', () => withSignature(sign(Buffer.from('x')).slice(0, -2))],
		['a non-hex digest', () => withSignature(`sha256=${'z'.repeat(64)}`)],
	])('%s', async (_case, build) => {
		const body = expectNoRun(await trigger().deliver(build()), 401);
		expect(body.error?.code).toBe('invalid_signature');
		expect(body.error?.message).toMatch(/X-Service-Signature/);
	});

	it('a body changed in one byte after signing', async () => {
		const delivery = signed(event('order.created', { data: { total: 10 } }));
		const tampered = Buffer.from(
			(delivery.body as Buffer).toString('utf8').replace('"total":10', '"total":90'),
		);
		const outcome = await trigger().deliver({ ...delivery, body: tampered });
		expect(expectNoRun(outcome, 401).error?.code).toBe('invalid_signature');
	});

	it('fails closed without a webhook secret, even for a body signed with the empty key', async () => {
		const payload = event('order.created');
		const body = Buffer.from(JSON.stringify(payload));
		for (const webhookSecret of ['', undefined]) {
			const node = trigger({ events: ['*'] }, { webhookSecret });
			const outcome = await node.deliver({
				body,
				headers: { 'x-service-signature': sign(body, '') },
			});
			expect(expectNoRun(outcome, 401).error?.code).toBe('webhook_secret_missing');
		}
	});
});

describe('verified but not an event: 400, no run', () => {
	const raw = (text: string, contentType = 'text/plain'): Delivery => ({
		body: Buffer.from(text),
		headers: { 'x-service-signature': sign(text), 'content-type': contentType },
	});

	it.each([
		['not JSON', raw('this is not json')],
		['an empty body', raw('')],
		['a JSON array', raw('[{"id":"evt_1","type":"order.created"}]', 'application/json')],
		['a JSON string', raw('"evt_1"', 'application/json')],
		[
			'no id',
			raw(
				'{"type":"order.created","created_at":"2026-11-22T10:15:00.000Z","data":{}}',
				'application/json',
			),
		],
		[
			'no type',
			raw('{"id":"evt_1","created_at":"2026-11-22T10:15:00.000Z","data":{}}', 'application/json'),
		],
		['an empty id', raw('{"id":"","type":"order.created","data":{}}', 'application/json')],
		['a numeric id', raw('{"id":17,"type":"order.created","data":{}}', 'application/json')],
		[
			'a form body that n8n parses into an event-shaped object',
			raw('id=evt_1&type=order.created', 'application/x-www-form-urlencoded'),
		],
		[
			'an event with invalid UTF-8 bytes (n8n would decode them into U+FFFD)',
			(() => {
				const body = Buffer.concat([
					Buffer.from('{"id":"evt_utf8","type":"order.created","data":{"name":"'),
					Buffer.from([0xc3, 0x28]),
					Buffer.from('"}}'),
				]);
				return {
					body,
					headers: { 'x-service-signature': sign(body), 'content-type': 'application/json' },
				};
			})(),
		],
	])('%s', async (_case, delivery) => {
		expect(expectNoRun(await trigger().deliver(delivery), 400).error?.code).toBe('invalid_event');
	});
});

describe('replay window (Reject Events Older Than)', () => {
	const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
	const windowed = () => trigger({ events: ['*'], options: { rejectOlderThanMinutes: 10 } });

	it('runs events inside the window, including a small clock lead of the sender', async () => {
		expectRan(
			await windowed().deliver(signed(event('order.created', { created_at: minutesAgo(9) }))),
		);
		expectRan(
			await windowed().deliver(signed(event('order.created', { created_at: minutesAgo(-4) }))),
		);
	});

	it('refuses an event older than the window', async () => {
		const body = expectNoRun(
			await windowed().deliver(signed(event('order.created', { created_at: minutesAgo(11) }))),
			400,
		);
		expect(body.error?.code).toBe('event_outside_window');
	});

	it('refuses an event dated more than the clock-skew allowance in the future', async () => {
		const body = expectNoRun(
			await windowed().deliver(signed(event('order.created', { created_at: minutesAgo(-6) }))),
			400,
		);
		expect(body.error?.code).toBe('event_outside_window');
	});

	it.each([
		['missing', undefined],
		['not a date', 'yesterday'],
		['a number', 1763806500000],
	])('refuses an event whose created_at is %s', async (_case, createdAt) => {
		const payload = event('order.created', { created_at: createdAt });
		expect(expectNoRun(await windowed().deliver(signed(payload)), 400).error?.code).toBe(
			'invalid_created_at',
		);
	});

	it('is off by default: an old event runs', async () => {
		expectRan(
			await trigger().deliver(
				signed(event('order.created', { created_at: '2020-01-01T00:00:00.000Z' })),
			),
		);
	});
});

describe('duplicates (Drop Duplicate Events)', () => {
	const deduping = () => trigger({ events: ['*'], options: { dropDuplicates: true } });

	it('runs an event once and acknowledges its redelivery without a run', async () => {
		const node = deduping();
		const payload = event('payment.completed');
		expectRan(await node.deliver(signed(payload)));
		const body = expectNoRun(
			await node.deliver(signed(payload, { 'X-Service-Attempt': '2' })),
			200,
		);
		expect(body).toEqual({ received: true, skipped: 'duplicate_event' });
		expectRan(await node.deliver(signed(event('payment.completed'))));
	});

	it('does not remember ids of deliveries it refused', async () => {
		const node = deduping();
		const payload = event('order.created');
		const forged = signed(payload);
		(forged.headers as Record<string, string>)['X-Service-Signature'] = sign(forged.body, 'forger');
		expectNoRun(await node.deliver(forged), 401);
		expectNoRun(
			await trigger({ events: ['order.updated'], options: { dropDuplicates: true } }).deliver(
				signed(payload),
			),
			200,
		);
		expectRan(await node.deliver(signed(payload)));
	});

	it(`keeps at most the ${ACCEPTED_IDS_LIMIT} most recent ids in process memory`, () => {
		const scope = 'wf-memory-limit:node';
		const now = Date.now();
		for (let i = 0; i < ACCEPTED_IDS_LIMIT; i++)
			expect(acceptDelivery(scope, `evt_old_${i}`, 'token', now)).toBe(true);
		expect(acceptDelivery(scope, 'evt_newest', 'token', now)).toBe(true);
		expect(acceptDelivery(scope, 'evt_old_0', 'redelivery', now)).toBe(true); // the oldest was forgotten…
		const recent = `evt_old_${ACCEPTED_IDS_LIMIT - 1}`;
		expect(acceptDelivery(scope, recent, 'redelivery', now)).toBe(false); // …recent ones are not
	});

	it('remembers an id in process memory for 72 hours: a retry within them is dropped, one after them is not', () => {
		expect(ACCEPTED_RETENTION_MS).toBe(72 * 3600_000);
		const scope = 'wf-memory-age:node';
		const now = Date.now();
		// In the order they came (the memory is kept in it, oldest first).
		expect(acceptDelivery(scope, 'evt_73h', 'token', now - 73 * 3600_000)).toBe(true);
		expect(acceptDelivery(scope, 'evt_71h', 'token', now - 71 * 3600_000)).toBe(true);
		expect(acceptDelivery(scope, 'evt_71h', 'redelivery', now)).toBe(false);
		expect(acceptDelivery(scope, 'evt_73h', 'redelivery', now)).toBe(true);
	});

	it('writes nothing into the workflow static data (n8n does not save what a webhook call changes there)', async () => {
		const node = deduping();
		expectRan(await node.deliver(signed(event('order.created'))));
		expect(node.staticData()).toEqual({});
	});

	it('drops a redelivery that arrives while the first delivery is still being handled (parallel, one process)', async () => {
		// n8n reads static data per request, so each parallel request starts from the same (empty) copy.
		const workflowId = 'wf-parallel';
		const copies = Array.from({ length: 20 }, () =>
			trigger({ events: ['*'] }, { webhookSecret: SECRET }, { workflowId }),
		);
		const payload = event('order.created');
		const outcomes = await Promise.all(copies.map((copy) => copy.deliver(signed(payload))));
		expect(outcomes.filter((o) => o.items.length === 1)).toHaveLength(1);
		expect(
			outcomes.filter(
				(o) => (o.body as { skipped?: string } | undefined)?.skipped === 'duplicate_event',
			),
		).toHaveLength(19);
	});

	it('is on by default, and can be turned off', async () => {
		const byDefault = trigger({ events: ['*'], options: {} });
		const payload = event('order.created');
		expectRan(await byDefault.deliver(signed(payload)));
		expect(expectNoRun(await byDefault.deliver(signed(payload)), 200)).toEqual({
			received: true,
			skipped: 'duplicate_event',
		});

		const off = trigger({ events: ['*'], options: { dropDuplicates: false } });
		const again = event('order.created');
		expectRan(await off.deliver(signed(again)));
		expectRan(await off.deliver(signed(again)));
	});

	it('does not drop while listening for a test event: resending from the dashboard runs each time', async () => {
		const listening = trigger({ events: ['*'], options: {} }, undefined, { mode: 'manual' });
		const payload = event('order.created');
		expectRan(await listening.deliver(signed(payload)));
		expectRan(await listening.deliver(signed(payload)));
	});
});

/** Drop Duplicate Events alone: runs claim the event's id (with Catch Up After Downtime they claim the change). */
const EVENT_IDS_ONLY = { events: ['*'], options: { catchUp: false } };

/**
 * The trigger as another n8n process loads it — a restarted n8n, another webhook processor or worker: a fresh copy
 * of the module, with nothing in memory, sharing only n8n's database (test/helpers/deduplication.ts).
 */
function anotherProcess(workflowId: string) {
	let fresh: typeof StorefrontTrigger | undefined;
	jest.isolateModules(() => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const loaded = require('../../nodes/StorefrontTrigger/StorefrontTrigger.node') as {
			StorefrontTrigger: typeof StorefrontTrigger;
		};
		fresh = loaded.StorefrontTrigger;
	});
	return trigger(EVENT_IDS_ONLY, undefined, {
		workflowId,
		nodeType: new fresh!(),
	});
}

describe('duplicates when the run starts (the trigger is the first step of its execution)', () => {
	const afterRestart = anotherProcess;
	const beforeCrash = (workflowId: string) => trigger(EVENT_IDS_ONLY, undefined, { workflowId });

	it("an accepted delivery's run passes the event on, with pairedItem and without the delivery marker", async () => {
		const node = trigger(EVENT_IDS_ONLY);
		const payload = event('order.created');
		const accepted = await node.deliver(signed(payload));
		expect(expectRan(accepted)).toEqual(payload);
		expect(typeof accepted.result.workflowData?.[0][0][DELIVERY_KEY]).toBe('string'); // beside json, not in it
		expect(await node.run(accepted.result)).toEqual([{ json: payload, pairedItem: { item: 0 } }]);
	});

	it('after a crash, the redelivery accepted first: it runs, and the run n8n recovers from its database outputs nothing', async () => {
		const payload = event('payment.completed');
		// Accepted, but the process died before it answered: n8n re-runs it at start, the service redelivers it.
		const unanswered = await beforeCrash('wf-recovered-after-redelivery').deliver(signed(payload));
		const restarted = afterRestart('wf-recovered-after-redelivery');
		const redelivered = await restarted.deliver(signed(payload, { 'X-Service-Attempt': '2' }));
		expect(await restarted.run(redelivered.result)).toHaveLength(1);
		expect(await restarted.run(unanswered.result)).toEqual([]);
	});

	it('after a crash, the recovered run first: it runs, and the redelivery is acknowledged as a duplicate', async () => {
		const payload = event('order.updated');
		const unanswered = await beforeCrash('wf-recovered-first').deliver(signed(payload));
		const restarted = afterRestart('wf-recovered-first');
		expect(await restarted.run(unanswered.result)).toHaveLength(1);
		const body = expectNoRun(
			await restarted.deliver(signed(payload, { 'X-Service-Attempt': '2' })),
			200,
		);
		expect(body).toEqual({ received: true, skipped: 'duplicate_event' });
	});

	it('a retry from the executions list, a test run and a trigger with dropping off always run', async () => {
		const payload = event('order.created');
		const unanswered = await beforeCrash('wf-always-run').deliver(signed(payload));
		const restarted = afterRestart('wf-always-run');
		expect(await restarted.run((await restarted.deliver(signed(payload))).result)).toHaveLength(1);
		expect(await restarted.run(unanswered.result, 'webhook')).toEqual([]);
		expect(await restarted.run(unanswered.result, 'retry')).toHaveLength(1);
		expect(await restarted.run(unanswered.result, 'manual')).toHaveLength(1);

		const off = trigger({ events: ['*'], options: { dropDuplicates: false } });
		const plain = await off.deliver(signed(payload));
		expect(plain.result.workflowData?.[0][0][DELIVERY_KEY]).toBeUndefined();
		expect(await off.run(plain.result)).toHaveLength(1);
		expect(await off.run(plain.result)).toHaveLength(1);
	});
});

describe("duplicates across n8n processes and restarts (n8n's database, checked when a run starts)", () => {
	const store = sharedDeduplicator();
	afterEach(() => {
		store.pause = undefined;
	});

	it('a copy accepted by another process, or by this n8n after a restart, is accepted there and its run passes nothing on', async () => {
		const payload = event('order.created');
		const first = anotherProcess('wf-two-processes');
		expect(await first.run((await first.deliver(signed(payload))).result)).toHaveLength(1);
		for (const other of [anotherProcess('wf-two-processes'), anotherProcess('wf-two-processes')]) {
			const copy = await other.deliver(signed(payload, { 'X-Service-Attempt': '2' }));
			expectRan(copy); // its memory knows nothing of the event…
			expect(await other.run(copy.result)).toEqual([]); // …the database does
		}
		// Another event, and the same event in another workflow, still run.
		expect(
			await first.run((await first.deliver(signed(event('order.created')))).result),
		).toHaveLength(1);
		const elsewhere = anotherProcess('wf-two-processes-other-workflow');
		expect(await elsewhere.run((await elsewhere.deliver(signed(payload))).result)).toHaveLength(1);
	});

	it('two copies whose runs check at the very same moment (both read before either writes): one passes the event on', async () => {
		const payload = event('payment.completed');
		const [a, b] = [anotherProcess('wf-same-moment'), anotherProcess('wf-same-moment')];
		const [copyA, copyB] = [await a.deliver(signed(payload)), await b.deliver(signed(payload))];
		// Hold each process's first call until both have read the (empty) row: the helper alone would pass both.
		const reads: Array<() => void> = [];
		store.pause = async (step) => {
			if (step !== 'write' || reads.length >= 2) return;
			await new Promise<void>((resolve) => {
				reads.push(resolve);
				if (reads.length === 2) reads.forEach((release) => release());
			});
		};
		const outputs = await Promise.all([a.run(copyA.result), b.run(copyB.result)]);
		expect(outputs.map((o) => o.length).sort()).toEqual([0, 1]);
	});

	it('the first-ever check of a trigger in two processes at once (one insert hits the unique key) fails neither run', async () => {
		const [a, b] = [anotherProcess('wf-first-insert'), anotherProcess('wf-first-insert')];
		const [copyA, copyB] = [
			await a.deliver(signed(event('order.created'))),
			await b.deliver(signed(event('order.created'))),
		];
		let held = 0;
		let releaseBoth: () => void = () => {};
		const bothRead = new Promise<void>((resolve) => (releaseBoth = resolve));
		store.pause = async (step) => {
			if (step !== 'write' || held >= 2) return;
			if (++held === 2) releaseBoth();
			await bothRead;
		};
		const outputs = await Promise.all([a.run(copyA.result), b.run(copyB.result)]);
		expect(outputs.map((o) => o.length)).toEqual([1, 1]); // two different events: both run
	});

	it("runs the event when n8n's database cannot be asked (nothing is lost), and checks again once it can", async () => {
		const payload = event('order.updated');
		const down = anotherProcess('wf-database-down');
		const accepted = await down.deliver(signed(payload));
		store.pause = async () => {
			throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
		};
		expect(await down.run(accepted.result)).toHaveLength(1);
		store.pause = undefined;
		const later = anotherProcess('wf-database-down');
		expect(await later.run((await later.deliver(signed(payload))).result)).toHaveLength(1); // it was never recorded
		const again = anotherProcess('wf-database-down');
		expect(await again.run((await again.deliver(signed(payload))).result)).toEqual([]);
	});

	it('remembers claimed event ids for Remember Events For (72 hours by default), however many: a redelivery after 2,000 newer ones, or a day later, is dropped; past the time, they are forgotten', async () => {
		let now = Date.parse('2026-11-20T00:00:00Z');
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
		const rowOf = () => store.rows.get('wf-shared-retention|n:trigger-node-id') ?? [];
		const redelivered = async (id: string) => {
			const process = anotherProcess('wf-shared-retention');
			return await process.run(
				(await process.deliver(signed(event('order.created', { id })))).result,
			);
		};
		try {
			const node = anotherProcess('wf-shared-retention');
			const ids = Array.from({ length: 2_000 }, (_, i) => `evt_keep_${i}`);
			for (const id of ids) {
				expect(
					await node.run((await node.deliver(signed(event('order.created', { id })))).result),
				).toHaveLength(1);
				now += 1_000;
			}
			expect(rowOf().length).toBeGreaterThanOrEqual(2_000); // one value per id (every claim had the lock), and a marker
			expect(await redelivered(ids[0])).toEqual([]); // after 1,999 newer claims (n8n's row used to keep 1,500)
			now += 24 * 3_600_000;
			expect(await redelivered(ids[0])).toEqual([]); // a day later
			now = Date.parse('2026-11-20T00:00:00Z') + 72 * 3_600_000 + 60_000;
			expect(await redelivered(ids[1])).toEqual([]); // 72 hours later: still remembered
			now += 24 * 3_600_000;
			const fresh = anotherProcess('wf-shared-retention');
			expect(
				await fresh.run(
					(await fresh.deliver(signed(event('order.created', { id: 'evt_keep_new' })))).result,
				),
			).toHaveLength(1);
			expect(rowOf().length).toBeLessThan(100); // the claims older than 72 hours (and a period) were dropped
			expect(await redelivered(ids[2])).toHaveLength(1); // so this one is forgotten
			expect(await redelivered('evt_keep_new')).toEqual([]); // and the new one is not
		} finally {
			clock.mockRestore();
		}
	}, 60_000); // 2,000 runs through WorkflowExecute: seconds on a busy machine

	it('a retry from the executions list and a test run always run, whatever the database says', async () => {
		const payload = event('order.created');
		const node = anotherProcess('wf-shared-retry');
		const accepted = await node.deliver(signed(payload));
		expect(await node.run(accepted.result)).toHaveLength(1);
		const other = anotherProcess('wf-shared-retry');
		expect(await other.run(accepted.result, 'retry')).toHaveLength(1);
		expect(await other.run(accepted.result, 'manual')).toHaveLength(1);
		expect(await other.run(accepted.result, 'webhook')).toEqual([]);
	});
});

/**
 * n8n's Remove Duplicates node (Remove Items Processed in Previous Executions), as far as n8n's store goes: one
 * check-and-record of the items' keys in the row of its scope. n8n-nodes-base is not installed for the unit tests; the
 * catch-up suite runs the real node in real n8n.
 */
class RemoveDuplicatesStandIn implements INodeType {
	description = {
		displayName: 'Remove Duplicates',
		name: 'removeDuplicates',
		group: ['transform'],
		version: 2,
		description: '',
		defaults: { name: 'Remove Duplicates' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'string',
				default: 'removeDuplicateInputItems',
			},
			{ displayName: 'Value to Dedupe On', name: 'dedupeValue', type: 'string', default: '' },
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				default: {},
				options: [{ displayName: 'Scope', name: 'scope', type: 'string', default: 'node' }],
			},
		],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions) {
		const items = this.getInputData();
		const scope = this.getNodeParameter('options.scope', 0, 'node') as DeduplicationScope;
		const keys = items.map((_, index) => String(this.getNodeParameter('dedupeValue', index)));
		const { processed } = await this.helpers.checkProcessedAndRecord(keys, scope, {
			mode: 'entries',
			maxEntries: 10_000,
		});
		return [items.filter((_, index) => !processed.includes(keys[index]))];
	}
}

describe("n8n's Remove Duplicates node after the trigger keeps its memory (the trigger never uses its row)", () => {
	const store = sharedDeduplicator();

	it.each(['workflow', 'node'])(
		'scope %s, deliveries one at a time: of 30 orders it passed, the updates are all dropped by it',
		async (scope) => {
			const removeDuplicates: INode = {
				id: `remove-duplicates-${scope}`,
				name: 'Remove Duplicates',
				type: 'n8n-nodes-base.removeDuplicates',
				typeVersion: 2,
				position: [200, 0],
				parameters: {
					operation: 'removeItemsSeenInPreviousExecutions',
					dedupeValue: '={{ $json.data.order_id }}',
					options: { scope },
				},
			};
			const workflowId = `wf-remove-duplicates-${scope}`;
			const flow = trigger({ events: ['*'] }, undefined, {
				workflowId,
				after: {
					nodes: [removeDuplicates],
					types: { [removeDuplicates.type]: new RemoveDuplicatesStandIn() },
				},
			});
			const passed: string[] = [];
			for (const type of ['order.created', 'order.updated']) {
				for (let i = 0; i < 30; i++) {
					const payload = event(type, {
						data: { ...sampleData[type], order_id: `ord_rd_${scope}_${i}` },
					});
					expect(await flow.run((await flow.deliver(signed(payload))).result)).toHaveLength(1);
					passed.push(...flow.output('Remove Duplicates').map(({ json }) => String(json.type)));
					await sleep(5); // what a lock would do after the run's claim (its release) has happened
				}
			}
			expect(passed).toEqual(Array(30).fill('order.created'));
			// The workflow's row is the node's alone (scope Workflow), or nobody's: the trigger never wrote to it.
			expect(store.rows.get(`${workflowId}|`)?.length).toBe(scope === 'workflow' ? 30 : undefined);
		},
		30_000,
	);
});

describe('secret rotation (Previous Webhook Secret)', () => {
	const OLD = 'whsec_trigger_old';
	const signedWith = (payload: unknown, secret: string) => {
		const delivery = signed(payload);
		(delivery.headers as Record<string, string>)['X-Service-Signature'] = sign(
			delivery.body,
			secret,
		);
		return delivery;
	};

	it('runs deliveries signed with the new or the previous secret while both are set', async () => {
		const node = trigger({ events: ['*'] }, { webhookSecret: SECRET, previousWebhookSecret: OLD });
		expectRan(await node.deliver(signedWith(event('order.created'), SECRET)));
		expectRan(await node.deliver(signedWith(event('order.created'), OLD)));
	});

	it('refuses the old secret with 401 once the previous secret is cleared', async () => {
		const node = trigger({ events: ['*'] }, { webhookSecret: SECRET, previousWebhookSecret: '' });
		const body = expectNoRun(await node.deliver(signedWith(event('order.created'), OLD)), 401);
		expect(body.error?.code).toBe('invalid_signature');
		expect(JSON.stringify(body)).not.toContain(OLD);
	});
});

describe('Include Headers', () => {
	it('adds the request headers without the signature or credentials', async () => {
		const delivery = signed(event('order.created'), {
			Authorization: 'Bearer proxy-token',
			Cookie: 'sid=1',
		});
		const item = expectRan(
			await trigger({ events: ['*'], options: { includeHeaders: true } }).deliver(delivery),
		);
		expect(item.headers).toMatchObject({
			'content-type': 'application/json',
			'x-service-event': 'order.created',
			'x-service-delivery': 'dlv_1',
			'x-service-attempt': '1',
		});
		expect(item.headers).not.toHaveProperty('x-service-signature');
		expect(item.headers).not.toHaveProperty('authorization');
		expect(item.headers).not.toHaveProperty('cookie');
	});

	it('adds no headers by default', async () => {
		expect(expectRan(await trigger().deliver(signed(event('order.created'))))).not.toHaveProperty(
			'headers',
		);
	});
});

describe('secrets never leave the node', () => {
	it('neither the webhook secret, the API key nor the expected digest appear in any answer or item', async () => {
		const node = trigger({
			events: ['order.created'],
			options: { includeHeaders: true, dropDuplicates: true, rejectOlderThanMinutes: 5 },
		});
		const good = signed(event('order.created'));
		const bad = signed(event('order.created'));
		const expectedDigest = sign(bad.body).slice(7);
		(bad.headers as Record<string, string>)['X-Service-Signature'] = sign(bad.body, 'x');
		const outcomes = [
			await node.deliver(good),
			await node.deliver(good),
			await node.deliver(bad),
			await node.deliver(signed(event('order.updated'))),
			await node.deliver(signed(event('order.created', { created_at: '2001-01-01T00:00:00Z' }))),
			await node.deliver({
				body: 'nope',
				headers: { 'x-service-signature': sign('nope'), 'content-type': 'text/plain' },
			}),
			await trigger({ events: ['*'] }, { webhookSecret: '' }).deliver(good),
		];
		const everything = JSON.stringify(
			outcomes.map(({ result, body, status }) => ({ result, body, status })),
		);
		expect(everything).not.toContain(SECRET);
		expect(everything).not.toContain('sf_test_key_never_shown');
		expect(everything).not.toContain(expectedDigest);
		expect(outcomes.map((outcome) => outcome.status ?? 'ran')).toEqual([
			'ran',
			200,
			401,
			200,
			400,
			400,
			401,
		]);
	});
});

describe('lifecycle (no registration API: activation checks the secret)', () => {
	/** An activation as n8n's webhook service runs it (createWebhookIfNotExists): create only what does not exist. */
	async function activate(node: ReturnType<typeof trigger>) {
		if (!(await node.hook('checkExists'))) await node.hook('create');
	}

	it('activates with a secret, with nothing to create or delete: the static data is left alone', async () => {
		const node = trigger();
		await expect(activate(node)).resolves.toBeUndefined();
		expect(await node.hook('checkExists')).toBe(true);
		expect(await node.hook('delete')).toBe(true);
		await expect(activate(node)).resolves.toBeUndefined();
		expect(node.staticData()).toEqual({});
	});

	it('keeps the remembered event ids across deactivation', async () => {
		const node = trigger({ events: ['*'], options: { dropDuplicates: true } });
		const payload = event('order.created');
		await activate(node);
		expectRan(await node.deliver(signed(payload)));
		await node.hook('delete');
		await activate(node);
		expectNoRun(await node.deliver(signed(payload)), 200);
	});

	it('keeps what it knows through a publish (deactivated, activated again at once); releases it 10 minutes after a deactivation', async () => {
		const options = { dropDuplicates: true, catchUp: false };
		const [node, other] = [
			trigger({ events: ['*'], options }),
			trigger({ events: ['*'], options }),
		];
		const payload = event('order.created');
		await node.trigger('activate');
		const first = await node.deliver(signed(payload));
		expectRan(first);
		expect(await node.run(first.result)).toHaveLength(1);
		// A publish: n8n calls the closeFunction, then trigger() again; the redelivery is still known at the door.
		await node.trigger('activate');
		expect(expectNoRun(await node.deliver(signed(payload)), 200).skipped).toBe('duplicate_event');
		// Deactivated. Ten minutes later another workflow's delivery lets what this process kept of it go.
		await node.close();
		await other.trigger('activate');
		const later = Date.now() + RELEASE_AFTER_MS;
		const clock = jest.spyOn(Date, 'now').mockReturnValue(later);
		try {
			expectRan(await other.deliver(signed(event('order.created'))));
			await node.trigger('activate');
			// Not known at the door any more: the claim in n8n's database drops it in its run, which passes nothing.
			const again = await node.deliver(signed(payload));
			expectRan(again);
			expect(await node.run(again.result)).toEqual([]);
		} finally {
			clock.mockRestore();
		}
	});

	it.each([
		['an empty secret', ''],
		['no secret', undefined],
	])('refuses to activate with %s, at every activation', async (_case, webhookSecret) => {
		const node = trigger({ events: ['*'] }, { webhookSecret });
		await expect(activate(node)).rejects.toThrow(/no Webhook Secret/);
		await expect(activate(node)).rejects.toThrow(/no Webhook Secret/);
		expect(node.staticData()).toEqual({});
	});
});

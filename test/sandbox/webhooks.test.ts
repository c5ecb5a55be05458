/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// Webhooks from real state changes, signed over the exact bytes a real local receiver gets (contract rows 13, 14, 16).
import * as crypto from 'crypto';
import * as http from 'http';
import type { AddressInfo } from 'net';
import { api, startSandbox, type Sandbox } from '../helpers/sandbox';

interface Received {
	headers: http.IncomingHttpHeaders;
	raw: Buffer;
}

/** A local receiver recording raw bodies; `statuses` are answered in turn (then 200). */
async function receiver(statuses: number[] = []) {
	const received: Received[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
			res.writeHead(statuses.shift() ?? 200, { 'Content-Type': 'application/json' });
			res.end('{"received":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	return {
		url,
		received,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

const SECRET = 'whsec_test_secret';

/** Verifies a delivery the way a receiver must: HMAC over the raw bytes, no re-serialisation. */
function verify(r: Received, secret = SECRET) {
	const expected = 'sha256=' + crypto.createHmac('sha256', secret).update(r.raw).digest('hex');
	const got = String(r.headers['x-service-signature']);
	return (
		got.length === expected.length &&
		crypto.timingSafeEqual(Buffer.from(got), Buffer.from(expected))
	);
}

let sb: Sandbox;
let rx: Awaited<ReturnType<typeof receiver>>;
beforeEach(async () => {
	rx = await receiver();
	sb = await startSandbox({
		webhook: { url: rx.url, secret: SECRET },
		delivery: { attempts: 3, baseDelayMs: 20, timeoutMs: 2000 },
	});
});
afterEach(async () => {
	await sb.stop();
	await rx.close();
});

function onlyEvent(type: string) {
	const matching = rx.received.filter((r) => r.headers['x-service-event'] === type);
	expect(matching).toHaveLength(1);
	const r = matching[0];
	expect(verify(r)).toBe(true);
	expect(verify(r, 'whsec_other')).toBe(false);
	const event = JSON.parse(r.raw.toString('utf8'));
	expect(Object.keys(event).sort()).toEqual(['created_at', 'data', 'id', 'type']);
	expect(event.type).toBe(type);
	expect(event.id).toMatch(/^evt_/);
	expect(new Date(event.created_at).toISOString()).toBe(event.created_at);
	expect(r.headers['content-type']).toBe('application/json');
	expect(r.headers['x-service-attempt']).toBe('1');
	expect(r.headers['x-service-delivery']).toMatch(/^dlv_/);
	expect(r.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
	// The signed bytes are exactly the compact JSON of the event.
	expect(r.raw.toString('utf8')).toBe(JSON.stringify(event));
	return event;
}

test('order.created from a simulated checkout, with the spec payload', async () => {
	const product = [...sb.state.products.values()].find(
		(p) => p.status === 'active' && p.stock > 20,
	)!;
	const customer = [...sb.state.customers.values()][0];
	const res = await sb.admin('POST', '/simulate/checkout', {
		customer_id: customer.id,
		items: [{ product_id: product.id, quantity: 2 }],
	});
	expect(res.status).toBe(201);
	await sb.idle();
	const event = onlyEvent('order.created');
	expect(event.data).toEqual({
		order_id: res.body.id,
		store_id: 'store_001',
		total: Math.round(product.price * 2 * 100) / 100,
		currency: 'USD',
		status: 'pending',
		items: [{ product_id: product.id, name: product.name, quantity: 2, price: product.price }],
	});
	expect(res.body.customer_id).toBe(customer.id);
	expect(sb.state.products.get(product.id)!.stock).toBe(product.stock); // same object, decremented
});

test('order.updated on a status change, with previous_status; none for a no-op', async () => {
	const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
	await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'pending' });
	await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'processing' });
	await sb.idle();
	const event = onlyEvent('order.updated');
	expect(event.data).toMatchObject({
		order_id: order.id,
		status: 'processing',
		previous_status: 'pending',
		total: order.total,
		items: order.items,
	});
});

test('payment.completed from a simulated payment; paying twice → 409', async () => {
	const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
	const paid = await sb.admin('POST', '/simulate/payment', {
		order_id: order.id,
		method: 'paypal',
	});
	expect(paid.status).toBe(200);
	expect(paid.body.order.paid_at).toEqual(expect.any(String));
	expect((await api(sb, 'GET', `/orders/${order.id}`)).json.paid_at).toBe(paid.body.order.paid_at);
	expect((await sb.admin('POST', '/simulate/payment', { order_id: order.id })).status).toBe(409);
	expect((await sb.admin('POST', '/simulate/payment', { order_id: 'ord_99999' })).status).toBe(404);
	await sb.idle();
	const event = onlyEvent('payment.completed');
	expect(event.data).toEqual({
		payment_id: paid.body.payment.payment_id,
		order_id: order.id,
		store_id: 'store_001',
		amount: order.total,
		currency: 'USD',
		method: 'paypal',
	});
});

test('product.created from POST /products', async () => {
	const created = (
		await api(sb, 'POST', '/products', {
			name: 'Webhook Mug',
			price: 9.5,
			sku: 'MUG-1',
			category: 'Kitchen',
			stock: 12,
		})
	).json;
	await sb.idle();
	expect(onlyEvent('product.created').data).toEqual({
		product_id: created.id,
		store_id: 'store_001',
		name: 'Webhook Mug',
		sku: 'MUG-1',
		category: 'Kitchen',
		price: 9.5,
		currency: 'USD',
		stock: 12,
		status: 'active',
	});
});

test('inventory.low when stock crosses the threshold: admin stock, PUT /products, and checkout', async () => {
	const [a, b, c] = [...sb.state.products.values()].filter(
		(p) => p.status === 'active' && p.stock > 10,
	);
	// From above to at-or-below the threshold (5): fires; staying below: does not.
	await sb.admin('POST', '/simulate/stock', { product_id: a.id, stock: 5 });
	await sb.admin('POST', '/simulate/stock', { product_id: a.id, stock: 2 });
	await sb.idle();
	expect(onlyEvent('inventory.low').data).toEqual({
		product_id: a.id,
		store_id: 'store_001',
		name: a.name,
		sku: a.sku,
		stock: 5,
		threshold: 5,
	});

	await api(sb, 'PUT', `/products/${b.id}`, { stock: 1 });
	await api(sb, 'PUT', `/products/${c.id}`, { stock: 7 });
	await sb.admin('POST', '/simulate/checkout', { items: [{ product_id: c.id, quantity: 3 }] });
	await sb.idle();
	const low = rx.received
		.filter((r) => r.headers['x-service-event'] === 'inventory.low')
		.map((r) => JSON.parse(r.raw.toString()).data);
	expect(low.map((d) => [d.product_id, d.stock])).toEqual([
		[a.id, 5],
		[b.id, 1],
		[c.id, 4],
	]);
	expect(rx.received.every((r) => verify(r))).toBe(true);
});

/** The `data` of the delivered events of one type, in the order they were emitted (delivery order is not guaranteed). */
function deliveredData(type: string) {
	const byId = new Map(
		rx.received.map((r) => JSON.parse(r.raw.toString('utf8'))).map((e) => [e.id, e]),
	);
	expect(rx.received.every((r) => verify(r))).toBe(true);
	return sb.events.filter((e) => e.type === type).map((e) => byId.get(e.id).data);
}

test('compat order_transitions any: pending → processing → shipped → processing, one order.updated each; unknown and same status as under the contract', async () => {
	expect(
		(await sb.admin('PUT', '/compat', { order_transitions: 'any' })).body.order_transitions,
	).toBe('any');
	const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
	const stamps = [order.updated_at];
	for (const status of ['processing', 'shipped', 'processing']) {
		const res = await api(sb, 'PUT', `/orders/${order.id}/status`, { status });
		expect(res.status).toBe(200);
		expect(res.json).toMatchObject({ id: order.id, status });
		stamps.push(res.json.updated_at);
	}
	// Each change sets updated_at to the time of the change, as every other change does (never earlier).
	expect([...stamps].sort()).toEqual(stamps);
	// The same status again: 200, no change, no event; an unknown status: 422 invalid_status.
	expect(
		(await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'processing' })).status,
	).toBe(200);
	const unknown = await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'lost' });
	expect(unknown.status).toBe(422);
	expect(unknown.json.error.code).toBe('invalid_status');
	await sb.idle();
	const updates = deliveredData('order.updated');
	expect(updates.map((d) => [d.order_id, d.previous_status, d.status])).toEqual([
		[order.id, 'pending', 'processing'],
		[order.id, 'processing', 'shipped'],
		[order.id, 'shipped', 'processing'],
	]);
});

test('compat order_transitions contract (the default): shipped → processing is refused, 409 invalid_transition, no event', async () => {
	const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
	for (const status of ['processing', 'shipped'])
		expect((await api(sb, 'PUT', `/orders/${order.id}/status`, { status })).status).toBe(200);
	const back = await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'processing' });
	expect(back.status).toBe(409);
	expect(back.json.error).toEqual({
		code: 'invalid_transition',
		message: `Cannot change order ${order.id} from "shipped" to "processing" (allowed: delivered)`,
	});
	expect(sb.state.orders.get(order.id)!.status).toBe('shipped');
	await sb.idle();
	expect(deliveredData('order.updated').map((d) => d.status)).toEqual(['processing', 'shipped']);
});

test("compat event_data object: every event's data keyed by its own id (payment.completed the payment, orders and products by id)", async () => {
	expect((await sb.admin('PUT', '/compat', { event_data: 'object' })).body.event_data).toBe(
		'object',
	);
	const order = (await sb.admin('POST', '/simulate/checkout', {})).body;
	expect(
		(await api(sb, 'PUT', `/orders/${order.id}/status`, { status: 'processing' })).status,
	).toBe(200);
	const paid = await sb.admin('POST', '/simulate/payment', {
		order_id: order.id,
		method: 'paypal',
	});
	expect(paid.status).toBe(200);
	const product = (
		await api(sb, 'POST', '/products', { name: 'Object Mug', price: 4, sku: 'OBJ-1', stock: 12 })
	).json;
	await sb.admin('POST', '/simulate/stock', { product_id: product.id, stock: 2 });
	await sb.idle();
	const orderData = {
		store_id: 'store_001',
		total: order.total,
		currency: 'USD',
		items: order.items,
	};
	expect(onlyEvent('order.created').data).toEqual({
		id: order.id,
		...orderData,
		status: 'pending',
	});
	expect(onlyEvent('order.updated').data).toEqual({
		id: order.id,
		...orderData,
		status: 'processing',
		previous_status: 'pending',
	});
	const payment = onlyEvent('payment.completed').data;
	expect(payment.id).toMatch(/^pay_/);
	expect(payment).toEqual({
		id: paid.body.payment.payment_id,
		order_id: order.id,
		store_id: 'store_001',
		amount: order.total,
		currency: 'USD',
		method: 'paypal',
		paid_at: paid.body.order.paid_at,
	});
	expect(onlyEvent('product.created').data).toMatchObject({
		id: product.id,
		name: 'Object Mug',
		sku: 'OBJ-1',
		stock: 12,
	});
	expect(onlyEvent('product.created').data).not.toHaveProperty('product_id');
	expect(deliveredData('inventory.low').find((d) => d.id === product.id)).toEqual({
		id: product.id,
		store_id: 'store_001',
		name: 'Object Mug',
		sku: 'OBJ-1',
		stock: 2,
		threshold: 5,
	});
	// Simulated events too.
	const from = sb.events.length;
	expect((await sb.admin('POST', '/simulate/events', { count: 5 })).status).toBe(201);
	for (const e of sb.events.slice(from)) {
		expect(e.data.id).toMatch(/^(ord|pay|prod)_/);
		expect(e.data).not.toHaveProperty(
			e.type === 'payment.completed'
				? 'payment_id'
				: e.type.startsWith('order.')
					? 'order_id'
					: 'product_id',
		);
	}
});

test('checkout validation writes nothing: unknown product, too little stock, bad quantity, unknown customer', async () => {
	const p = [...sb.state.products.values()].find((x) => x.status === 'active' && x.stock > 0)!;
	const orders = sb.state.orders.size;
	const res = await sb.admin('POST', '/simulate/checkout', {
		customer_id: 'cus_99999',
		items: [
			{ product_id: p.id, quantity: p.stock + 1 },
			{ product_id: 'prod_99999', quantity: 1 },
			{ product_id: p.id, quantity: 0 },
		],
	});
	expect(res.status).toBe(422);
	expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([
		'customer_id',
		'items[0].quantity',
		'items[1].product_id',
		'items[2].quantity',
	]);
	expect(sb.state.orders.size).toBe(orders);
	expect(sb.state.products.get(p.id)!.stock).toBe(p.stock);
	expect(sb.events).toHaveLength(0);
});

test('a failing receiver is retried with backoff, same event id and bytes, until it answers 2xx', async () => {
	await rx.close();
	rx = await receiver([500, 503]);
	await sb.admin('PUT', '/webhook', { url: rx.url });
	await api(sb, 'POST', '/products', { name: 'Retry', price: 1 });
	await sb.idle();
	expect(rx.received).toHaveLength(3);
	expect(rx.received.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
	expect(new Set(rx.received.map((r) => r.raw.toString('hex'))).size).toBe(1);
	expect(new Set(rx.received.map((r) => r.headers['x-service-delivery'])).size).toBe(1);
	expect(rx.received.every((r) => verify(r))).toBe(true);

	const log = (await sb.admin('GET', '/deliveries')).body;
	expect(log).toHaveLength(1);
	expect(log[0]).toMatchObject({
		status: 'delivered',
		event_id: JSON.parse(rx.received[0].raw.toString()).id,
		type: 'product.created',
		url: rx.url,
	});
	expect(log[0].attempts.map((a: { status: number }) => a.status)).toEqual([500, 503, 200]);
	// Exponential backoff: the waits are at least 1x and 2x the base delay (20 ms).
	const starts = log[0].attempts.map((a: { at: string }) => Date.parse(a.at));
	expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(19);
	expect(starts[2] - starts[1]).toBeGreaterThanOrEqual(39);
	expect(log[0].attempts[2].response).toBe('{"received":true}');
	expect(JSON.stringify(log)).not.toContain(SECRET);
});

test('an unreachable receiver is given up after the configured attempts', async () => {
	await rx.close(); // nothing listens there any more
	await api(sb, 'POST', '/products', { name: 'Nobody home', price: 1 });
	await sb.idle();
	const [delivery] = (await sb.admin('GET', '/deliveries')).body;
	expect(delivery.status).toBe('failed');
	expect(delivery.attempts).toHaveLength(3);
	expect(delivery.attempts[0].error).toMatch(/ECONNREFUSED/);
	rx = await receiver(); // for afterEach
});

test('a receiver that does not answer in time counts as a failure', async () => {
	const silent = http.createServer(() => undefined); // never responds
	await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
	await sb.stop();
	sb = await startSandbox({
		webhook: { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, secret: SECRET },
		delivery: { attempts: 2, baseDelayMs: 10, timeoutMs: 150 },
	});
	await api(sb, 'POST', '/products', { name: 'Slow receiver', price: 1 });
	await sb.idle();
	const [delivery] = sb.deliveries;
	expect(delivery.status).toBe('failed');
	expect(delivery.attempts.map((a) => a.error)).toEqual([
		expect.stringMatching(/timeout/i),
		expect.stringMatching(/timeout/i),
	]);
	silent.closeAllConnections();
	await new Promise<void>((resolve) => silent.close(() => resolve()));
});

test('webhook settings: GET/PUT /__admin/webhook, validation, no URL = events recorded but not sent', async () => {
	expect((await sb.admin('GET', '/webhook')).body).toEqual({ url: rx.url, secret: SECRET });
	expect((await sb.admin('PUT', '/webhook', { url: 'ftp://x' })).status).toBe(422);
	expect((await sb.admin('PUT', '/webhook', { secret: '' })).status).toBe(422);
	expect((await sb.admin('PUT', '/webhook', { url: null, secret: 'whsec_new' })).body).toEqual({
		url: null,
		secret: 'whsec_new',
	});
	expect(sb.webhookSecret).toBe('whsec_new');
	await api(sb, 'POST', '/products', { name: 'Silent', price: 1 });
	const events = (await sb.admin('GET', '/events')).body;
	expect(events.map((e: { type: string }) => e.type)).toEqual(['product.created']);
	expect((await sb.admin('GET', '/deliveries')).body).toEqual([]);
	expect(rx.received).toHaveLength(0);
});

test('rotating the secret (admin API): new events are signed with the new secret, an earlier retry keeps the old one', async () => {
	await rx.close();
	rx = await receiver([500]); // the first delivery fails once, so its retry comes after the rotation
	await sb.admin('PUT', '/webhook', { url: rx.url });
	await api(sb, 'POST', '/products', { name: 'Before rotation', price: 1 });
	const rotated = await sb.admin('POST', '/webhook/rotate', { secret: 'whsec_rotated' });
	expect(rotated.status).toBe(200);
	expect(rotated.body).toEqual({ secret: 'whsec_rotated', previous: SECRET });
	await api(sb, 'POST', '/products', { name: 'After rotation', price: 1 });
	await sb.idle();
	const byName = (name: string) =>
		rx.received.filter((r) => JSON.parse(r.raw.toString('utf8')).data.name === name);
	expect(byName('Before rotation')).toHaveLength(2);
	for (const r of byName('Before rotation'))
		expect([verify(r, SECRET), verify(r, 'whsec_rotated')]).toEqual([true, false]);
	expect(
		byName('After rotation').map((r) => [verify(r, SECRET), verify(r, 'whsec_rotated')]),
	).toEqual([[false, true]]);
	expect((await sb.admin('GET', '/webhook')).body.secret).toBe('whsec_rotated');

	const generated = await sb.admin('POST', '/webhook/rotate', {});
	expect(generated.body.secret).toMatch(/^whsec_[0-9a-f]{32}$/);
	expect(generated.body.previous).toBe('whsec_rotated');
	expect(
		(await sb.admin('POST', '/webhook/rotate', { secret: generated.body.secret })).status,
	).toBe(422);
	expect((await sb.admin('POST', '/webhook/rotate', { secret: '' })).status).toBe(422);
});

test('simulated events: every kind, signed and delivered, with at most `concurrency` deliveries in flight', async () => {
	await sb.stop();
	let inFlight = 0;
	let peak = 0;
	const server = http.createServer((req, res) => {
		inFlight++;
		peak = Math.max(peak, inFlight);
		req.resume();
		req.on('end', () =>
			setTimeout(() => {
				inFlight--;
				res.end('{"received":true}');
			}, 20),
		);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
	sb = await startSandbox({
		webhook: { url, secret: SECRET },
		delivery: { attempts: 1, baseDelayMs: 20, timeoutMs: 2000, concurrency: 4 },
	});
	try {
		const res = await sb.admin('POST', '/simulate/events', { count: 25 });
		expect(res.status).toBe(201);
		expect(res.body.count).toBe(25);
		await sb.idle();
		const { body: deliveries } = await sb.admin('GET', '/deliveries');
		expect(deliveries.filter((d: { status: string }) => d.status === 'delivered')).toHaveLength(25);
		expect(new Set(deliveries.map((d: { type: string }) => d.type))).toEqual(
			new Set([
				'order.created',
				'order.updated',
				'payment.completed',
				'product.created',
				'inventory.low',
			]),
		);
		expect(peak).toBe(4);
		expect((await sb.admin('POST', '/simulate/events', { count: 0 })).status).toBe(422);
		expect(
			(await sb.admin('POST', '/simulate/events', { count: 1, kinds: ['order.deleted'] })).status,
		).toBe(422);
	} finally {
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
});

// The Storefront Polling Trigger through n8n-core's PollContext against the sandbox over real HTTP: each event kind
// in the webhook events' shape, the baseline, changes between two polls, equal timestamps at the cursor, a service
// listing in another order, the state's caps, restarts (static data as n8n saves it), Fetch Test Event, bad input.
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { exposed, httpCodeOf, useSandbox } from '../node/context';
import { createPoller, type Poller } from '../helpers/poll';
import type { SandboxEvent } from '../helpers/sandbox';
import { idKey, PROFILE, SPEC_LITERAL } from '../helpers/profile';
import { readChanges } from '../../nodes/shared/changes/read';
import { StorefrontClient } from '../../nodes/shared/transport';
import { MAX_AT_CURSOR, MAX_LOW, MAX_STATUSES } from '../../nodes/shared/changes/state';

const ALL = [
	'order.created',
	'order.updated',
	'payment.completed',
	'product.created',
	'inventory.low',
];

const ctx = useSandbox({ products: 250, orders: 60, customers: 30 });
// The oracle is the sandbox's webhook events with contract row 16's data, which the polling trigger's items mirror on
// every profile: the spec-literal profile's webhooks send the record instead (no previous_status, no payment_id).
beforeEach(async () => {
	await ctx.admin('PUT', '/compat', { event_data: 'contract' });
});

const poller = (events: string[] = ALL, options: IDataObject = {}) =>
	createPoller(ctx.credentials, { events, options: options as never });

async function api(method: string, path: string, body?: unknown) {
	const response = await fetch(`${ctx.sb.baseUrl}${path}`, {
		method,
		headers: { Authorization: `Bearer ${ctx.sb.apiKey}`, 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (response.status >= 300)
		throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
	const answer = (await response.json()) as IDataObject;
	// A record as the profile's service answers it: bare, or wrapped in `data` (spec-literal).
	return (SPEC_LITERAL ? answer.data : answer) as IDataObject;
}
/** A created product's id, under the key the profile's records use. */
const productIdOf = (product: IDataObject) => String(product[idKey('product')]);
const checkout = async () => await ctx.admin<IDataObject>('POST', '/simulate/checkout', {});
const setStatus = async (id: string, status: string) =>
	await api('PUT', `/orders/${id}/status`, { status });
const pay = async (id: string) => await ctx.admin('POST', '/simulate/payment', { order_id: id });
const setStock = async (id: string, stock: number) =>
	await ctx.admin('POST', '/simulate/stock', { product_id: id, stock });
const listRequests = async () => (await ctx.requests()).filter((r) => r.method === 'GET');

/** The records' own webhook events since `from`, in the sandbox's order. */
const webhookEvents = (from: number) => ctx.sb.events.slice(from) as SandboxEvent[];
type AnyEvent = IDataObject | SandboxEvent;
const dataOf = (e: AnyEvent) => e.data as IDataObject;
const recordIdOf = (e: AnyEvent) => String(dataOf(e).order_id ?? dataOf(e).product_id);
const summary = (e: AnyEvent) =>
	`${String(e.type)} ${recordIdOf(e)}${e.type === 'order.updated' ? ` ${String(dataOf(e).previous_status)}→${String(dataOf(e).status)}` : ''}`;

async function baseline(p: Poller) {
	expect(await p.activate()).toBeNull();
}

test('the first activation sets a baseline: nothing is reported, then nothing new costs one request per list', async () => {
	const p = poller();
	await ctx.admin('DELETE', '/requests');
	await baseline(p);
	const atActivation = await listRequests();
	// 60 orders and 250 products: one page of orders, three of products (at most 5 pages each are read).
	expect(atActivation.map((r) => `${r.path} ${r.query.page}`)).toEqual([
		'/v1/orders 1',
		'/v1/products 1',
		'/v1/products 2',
		'/v1/products 3',
	]);
	const state = p.savedState();
	expect(state.orders?.statuses).toHaveLength(60);
	await ctx.admin('DELETE', '/requests');
	for (let i = 0; i < 3; i++) expect(await p.poll()).toBeNull();
	const later = await listRequests();
	// Records without updated_at (spec-literal) may have changed anywhere: every page of both lists, on every poll.
	const perPoll = SPEC_LITERAL
		? ['/v1/orders 1 100', '/v1/products 1 100', '/v1/products 2 100', '/v1/products 3 100']
		: ['/v1/orders 1 100', '/v1/products 1 100'];
	expect(later.map((r) => `${r.path} ${r.query.page} ${r.query.limit}`)).toEqual(
		Array(3).fill(perPoll).flat(),
	);
});

test('each kind arrives once in the webhook shape: the same records and data as the webhook events', async () => {
	const p = poller();
	await baseline(p);
	const from = ctx.sb.events.length;
	const pending = [...ctx.sb.state.orders.values()]
		.filter((o) => o.status === 'pending' && !o.paid_at)
		.map((o) => String(o.id));
	const order = await checkout();
	await setStatus(pending[0], 'processing');
	await pay(pending[1]);
	await api('POST', '/products', { name: 'Poll lamp', price: 12.5, stock: 40, sku: 'POLL-1' });
	const high = [...ctx.sb.state.products.values()].find((x) => Number(x.stock) > 20) as IDataObject;
	await setStock(String(high.id), 3);
	const items = (await p.poll()) as IDataObject[];
	const expected = webhookEvents(from);
	expect(items.map(summary).sort()).toEqual(expected.map(summary).sort());
	for (const item of items) {
		expect(Object.keys(item).sort()).toEqual(['created_at', 'data', 'id', 'type']);
		const twin = expected.find((e) => summary(e) === summary(item)) as SandboxEvent;
		if (item.type === 'payment.completed') {
			// What an order record does not show: the payment's id and method (null); paid_at is added.
			const { payment_id, method, ...rest } = twin.data;
			expect(payment_id).toEqual(expect.any(String));
			expect(method).toEqual(expect.any(String));
			expect(item.data).toEqual({
				...rest,
				payment_id: null,
				method: null,
				paid_at: ctx.sb.state.orders.get(pending[1])?.paid_at,
			});
		} else {
			expect(item.data).toEqual(twin.data);
		}
	}
	const created = items.find((i) => i.type === 'order.created') as IDataObject;
	expect(created.id).toBe(`poll_order.created_${String(order.id)}`);
	expect(created.created_at).toBe(order.created_at);
	const times = items.map((i) => String(i.created_at));
	expect([...times].sort()).toEqual(times);
	expect(await p.poll()).toBeNull();
});

test('several changes of one order between two polls: one order.updated from the status at the last poll', async () => {
	const p = poller(['order.updated']);
	await baseline(p);
	const id = String([...ctx.sb.state.orders.values()].find((o) => o.status === 'pending')?.id);
	await setStatus(id, 'processing');
	await setStatus(id, 'shipped');
	const items = (await p.poll()) as IDataObject[];
	expect(items.map(summary)).toEqual([`order.updated ${id} pending→shipped`]);
	await setStatus(id, 'delivered');
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([
		`order.updated ${id} shipped→delivered`,
	]);
	expect(await p.poll()).toBeNull();
});

test('an order created and changed between two polls: order.created (pending), then the change, in order', async () => {
	const p = poller();
	await baseline(p);
	const order = await checkout();
	const id = String(order.id);
	await pay(id);
	await setStatus(id, 'processing');
	const items = (await p.poll()) as IDataObject[];
	const mine = items.filter((i) => recordIdOf(i as never) === id);
	expect(mine.map(summary)).toEqual([
		`order.created ${id}`,
		`payment.completed ${id}`,
		`order.updated ${id} pending→processing`,
	]);
	expect((mine[0].data as IDataObject).status).toBe('pending');
});

test('a burst: 40 orders and 25 status changes between two polls arrive once each, oldest first, across pages', async () => {
	const p = poller(['order.created', 'order.updated']);
	await baseline(p);
	const from = ctx.sb.events.length;
	const known = [...ctx.sb.state.orders.values()]
		.filter((o) => o.status === 'pending')
		.slice(0, 25);
	for (let i = 0; i < 40; i++) {
		await checkout();
		if (i < known.length) await setStatus(String(known[i].id), 'cancelled');
	}
	for (let i = 40; i < known.length; i++) await setStatus(String(known[i].id), 'cancelled');
	await ctx.admin('DELETE', '/requests');
	const items = (await p.poll()) as IDataObject[];
	const expected = webhookEvents(from).filter((e) => e.type.startsWith('order.'));
	expect(items).toHaveLength(expected.length);
	expect(items.map(summary).sort()).toEqual(expected.map(summary).sort());
	expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
	const times = items.map((i) => String(i.created_at));
	expect([...times].sort()).toEqual(times);
	// 65 orders changed since the cursor (40 new, 25 changed): page 1 reaches back past the cursor.
	expect((await listRequests()).map((r) => r.query.page)).toEqual(['1']);
	expect(await p.poll()).toBeNull();
});

test('inventory.low: once per fall to the threshold, again only after the stock was above it; a product created low is not a fall', async () => {
	const p = poller(['inventory.low', 'product.created'], { lowStockThreshold: 10 });
	await baseline(p);
	const high = [...ctx.sb.state.products.values()].find((x) => Number(x.stock) > 20) as IDataObject;
	const id = String(high.id);
	await setStock(id, 10);
	const first = (await p.poll()) as IDataObject[];
	expect(first.map(summary)).toEqual([`inventory.low ${id}`]);
	expect(first[0].data).toMatchObject({ product_id: id, stock: 10, threshold: 10 });
	await setStock(id, 4);
	expect(await p.poll()).toBeNull();
	await setStock(id, 50);
	expect(await p.poll()).toBeNull();
	await setStock(id, 0);
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([`inventory.low ${id}`]);
	const created = await api('POST', '/products', { name: 'Empty shelf', price: 1 });
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([
		`product.created ${productIdOf(created)}`,
	]);
	// Created above the threshold and lowered before the next poll: a fall the webhook reports. A record without
	// updated_at (spec-literal) cannot show it: new and low looks like created low (docs/polling-trigger.md, Limits).
	const lamp = await api('POST', '/products', { name: 'Poll lamp', price: 12.5, stock: 40 });
	// Lowered in a later millisecond than its creation: in the same one, updated_at = created_at reads as created low
	// (docs/polling-trigger.md, Limits). The sandbox runs in this process, on this clock: a wait of at most 1 ms.
	const createdAt = Date.parse(String(lamp.created_at));
	while (Date.now() <= createdAt) continue;
	await setStock(productIdOf(lamp), 3);
	const both = ((await p.poll()) as IDataObject[]).map(summary);
	const lampCreated = `product.created ${productIdOf(lamp)}`;
	expect(both).toEqual(
		SPEC_LITERAL ? [lampCreated] : [lampCreated, `inventory.low ${productIdOf(lamp)}`],
	);
});

test('a change in the same millisecond as the cursor, after the poll that set it, is reported once', async () => {
	const p = poller(['order.created', 'order.updated']);
	await baseline(p);
	const a = await checkout();
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([
		`order.created ${String(a.id)}`,
	]);
	const cursor = p.savedState().orders?.cursor;
	expect(cursor).toBe(Date.parse(String(a.updated_at)));
	// Another order and a status change stamped with exactly the cursor's millisecond.
	const b = await checkout();
	const before = ctx.sb.state.orders.get(String(a.id)) as IDataObject;
	await setStatus(String(a.id), 'processing');
	for (const record of [ctx.sb.state.orders.get(String(b.id)), before] as IDataObject[]) {
		record.updated_at = String(a.created_at);
		if (record.id === b.id) record.created_at = String(a.created_at);
	}
	(ctx.sb.state as unknown as { changed(): void }).changed();
	const items = (await p.poll()) as IDataObject[];
	expect(items.map(summary).sort()).toEqual(
		[`order.created ${String(b.id)}`, `order.updated ${String(a.id)} pending→processing`].sort(),
	);
	expect(await p.poll()).toBeNull();
	expect(await p.poll()).toBeNull();
});

test('an order whose paid_at runs ahead of its updated_at (at the baseline) is not reported as a new payment', async () => {
	const newest = ctx.sb.state.orders.get('ord_00060') as IDataObject;
	newest.updated_at = '2026-06-01T00:00:00.000Z';
	newest.paid_at = '2026-06-01T00:30:00.000Z';
	(ctx.sb.state as unknown as { changed(): void }).changed();
	const p = poller(['payment.completed', 'order.created']);
	await baseline(p);
	expect(await p.poll()).toBeNull();
	const order = await checkout();
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([
		`order.created ${String(order.id)}`,
	]);
});

test('a payment made before the activation is not reported, even one dated after the newest creation (no updated_at)', async () => {
	// Without updated_at the cursor is the newest created_at: an older order paid since is dated after it.
	await ctx.admin('PUT', '/compat', { updated_at: false });
	const old = ctx.sb.state.orders.get('ord_00001') as IDataObject;
	old.paid_at = new Date(Date.now() - 60_000).toISOString();
	old.updated_at = old.paid_at;
	(ctx.sb.state as unknown as { changed(): void }).changed();
	const p = poller(['payment.completed']);
	await baseline(p);
	expect(Date.parse(String(old.paid_at))).toBeGreaterThan(Number(p.savedState().orders?.cursor));
	expect(await p.poll()).toBeNull();
	const order = await checkout();
	await pay(String(order.id));
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([
		`payment.completed ${String(order.id)}`,
	]);
});

test('a service listing in another order (compat list_order "id") is read whole, with the same events, and a warning', async () => {
	await ctx.admin('PUT', '/compat', { list_order: 'id' });
	const p = poller(['order.created', 'order.updated']);
	await baseline(p);
	const order = await checkout();
	const old = String(
		[...ctx.sb.state.orders.values()].find((o) => o.status === 'pending' && o.id !== order.id)?.id,
	);
	await setStatus(old, 'processing');
	await ctx.admin('DELETE', '/requests');
	const items = (await p.poll()) as IDataObject[];
	expect(items.map(summary).sort()).toEqual(
		[`order.created ${String(order.id)}`, `order.updated ${old} pending→processing`].sort(),
	);
	expect((await listRequests()).length).toBe(1); // 61 orders: the whole list is one page
	// spec-literal lists oldest first too, but what the warning names is the missing updated_at (the bigger loss).
	expect(p.warnings.join('\n')).toMatch(
		SPEC_LITERAL
			? /gives orders no "updated_at"/
			: /does not list orders most recently changed first/,
	);
	expect(await p.poll()).toBeNull();
});

test('restarts: a poll that emitted nothing is not saved by n8n, and repeating it reports nothing twice; lost state is a new baseline', async () => {
	const p = poller(['order.created', 'order.updated']);
	await baseline(p);
	const a = await checkout();
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([
		`order.created ${String(a.id)}`,
	]);
	expect(await p.poll()).toBeNull();
	p.restart();
	expect(await p.activate()).toBeNull();
	const b = await checkout();
	p.restart();
	// Changes made while n8n was stopped come with the first poll after the start.
	expect(((await p.activate()) as IDataObject[]).map(summary)).toEqual([
		`order.created ${String(b.id)}`,
	]);
	p.restart();
	expect(await p.activate()).toBeNull();
	// A new workflow (no static data): a baseline again, no flood of old orders.
	const fresh = poller(['order.created', 'order.updated']);
	await checkout();
	expect(await fresh.activate()).toBeNull();
});

test('the saved state stays within its caps however many orders change', async () => {
	await ctx.admin('POST', '/reset', { sizes: { products: 50, orders: 3000, customers: 30 } });
	const p = poller(['order.updated']);
	await baseline(p);
	for (const order of ctx.sb.state.orders.values()) {
		if (order.status === 'pending') {
			order.status = 'processing';
			order.updated_at = new Date().toISOString();
		}
	}
	(ctx.sb.state as unknown as { changed(): void }).changed();
	const items = (await p.poll()) as IDataObject[];
	expect(items.length).toBeGreaterThan(0);
	const state = p.savedState();
	expect(state.orders?.statuses.length).toBeLessThanOrEqual(MAX_STATUSES);
	expect(state.orders?.atCursor.length).toBeLessThanOrEqual(MAX_AT_CURSOR);
	expect(MAX_LOW).toBe(2000);
	expect(p.saved.length).toBeLessThan(80_000);
});

test('Fetch Test Event returns one realistic item of the first chosen kind and leaves the state alone', async () => {
	const p = poller(['payment.completed', 'order.created']);
	await baseline(p);
	const saved = p.saved;
	const items = (await p.poll('manual')) as IDataObject[];
	expect(items).toHaveLength(1);
	expect(items[0]).toMatchObject({
		type: 'payment.completed',
		data: { payment_id: null, method: null, amount: expect.any(Number) },
	});
	expect(items[0].id).toMatch(/^poll_payment\.completed_ord_\d+_sample$/);
	expect(p.saved).toBe(saved);
	// order.created: the newest order created, even when an older one changed after it.
	const order = await checkout();
	const older = String(
		[...ctx.sb.state.orders.values()].find((o) => o.status === 'pending' && o.id !== order.id)?.id,
	);
	await setStatus(older, 'processing');
	// …and as a poll reports a creation: pending, whatever the order's status is by now.
	await setStatus(String(order.id), 'processing');
	const created = (await poller(['order.created']).poll('manual')) as IDataObject[];
	expect(created.map(summary)).toEqual([`order.created ${String(order.id)}`]);
	expect(created[0].created_at).toBe(order.created_at);
	expect(created[0].data).toMatchObject({ order_id: String(order.id), status: 'pending' });
	const low = createPoller(ctx.credentials, {
		events: ['inventory.low'],
		options: { lowStockThreshold: 1000 },
	});
	expect(((await low.poll('manual')) as IDataObject[])[0]).toMatchObject({
		type: 'inventory.low',
		data: { threshold: 1000 },
	});
});

test('records without an id: the activation fails naming the fields looked for; a later poll skips them with a warning', async () => {
	await ctx.admin('PUT', '/compat', { record_ids: 'none' });
	await ctx.admin('DELETE', '/requests');
	const p = poller(['order.created', 'product.created']);
	const error = (await p.activate().catch((e: unknown) => e)) as Error;
	expect(error.message).toBe(
		'Storefront Polling Trigger: 60 without an id ("id" or "order_id") among the orders read, so their changes cannot be reported',
	);
	expect(p.savedState()).toBeUndefined();
	// With ids the activation is a baseline; records that later come without them are skipped, and n8n's log says so.
	await ctx.admin('PUT', '/profile', { profile: PROFILE });
	await baseline(p);
	await checkout();
	await ctx.admin('PUT', '/compat', { record_ids: 'none' });
	expect(await p.poll()).toBeNull();
	expect(p.warnings.join('\n')).toMatch(
		/61 without an id \("id" or "order_id"\) among the orders read, so their changes cannot be reported; they are skipped/,
	);
});

test('records without a time field: the activation fails naming the fields it looked for', async () => {
	// A service whose orders say neither when they changed nor when they were created (edited in the sandbox's memory).
	for (const order of ctx.sb.state.orders.values()) {
		delete order.created_at;
		delete order.updated_at;
	}
	(ctx.sb.state as unknown as { changed(): void }).changed();
	const error = (await poller(['order.created'])
		.activate()
		.catch((e: unknown) => e)) as Error;
	expect(error.message).toBe(
		'Storefront Polling Trigger: 60 without a time field ("updated_at" or "created_at") among the orders read, so their changes cannot be reported',
	);
});

test("Fetch Test Event: the newest order on any page of the service's list (oldest first on spec-literal: the last page)", async () => {
	await ctx.admin('POST', '/reset', { sizes: { products: 20, orders: 150, customers: 10 } });
	const order = await checkout();
	const items = (await poller(['order.created']).poll('manual')) as IDataObject[];
	expect(items.map(summary)).toEqual([`order.created ${String(order.id)}`]);
	// Page 1 is enough where page 1 holds the newest changes (contract row 21); otherwise the whole list is read.
	expect((await listRequests()).map((r) => `${r.path} ${r.query.page}`)).toEqual(
		SPEC_LITERAL ? ['/v1/orders 1', '/v1/orders 2'] : ['/v1/orders 1'],
	);
});

test('bad input: no events is an error naming the parameter, before any request; a wrong key is a NodeApiError with the status', async () => {
	await ctx.admin('DELETE', '/requests');
	await expect(poller([]).poll()).rejects.toThrow(/Choose at least one event in "Events"/);
	await expect(poller(['order.created'], { lowStockThreshold: -1 }).poll()).rejects.toThrow(
		/Low Stock Threshold/,
	);
	expect(await ctx.requests()).toHaveLength(0);
	const revoked = ['sk', 'revoked', String(Date.now())].join('_');
	const wrong = createPoller(
		{ ...ctx.credentials, apiKey: revoked },
		{ events: ['order.created'], options: {} },
	);
	const error = await wrong.activate().catch((e: unknown) => e);
	expect(httpCodeOf(error)).toBe('401');
	expect(String((error as Error).message)).toMatch(/Missing or invalid API key|401/);
	expect(exposed(error)).not.toContain(revoked);
});

test('a poll due while the last one still runs skips its turn: the changes come once', async () => {
	const p = poller(['order.created']);
	await baseline(p);
	const order = await checkout();
	// The first poll's page of orders is served slowly, so the second starts while the first is still reading.
	await ctx.admin('POST', '/faults', {
		type: 'slow',
		delay_ms: 400,
		path: '/v1/orders',
		method: 'GET',
		count: 1,
	});
	const [first, second] = await Promise.all([
		p.poll(),
		sleep(100).then(async () => await p.poll()),
	]);
	expect(((first ?? []) as IDataObject[]).map(summary)).toEqual([
		`order.created ${String(order.id)}`,
	]);
	expect(second).toBeNull();
	expect(await p.poll()).toBeNull();
});

test('a deletion while the pages are read (total went down) reads the list again, so no record is skipped', async () => {
	const items = Array.from({ length: 250 }, (_, i) => ({
		id: `p${250 - i}`,
		updated_at: new Date(Date.UTC(2026, 0, 1) + (250 - i) * 1000).toISOString(),
	}));
	let deleted = false;
	const reads: number[] = [];
	// The list as the client's getPage serves it: its pages, and the total with each (the client's walk ends on it).
	const getPage = async (_resource: string, _query: IDataObject, page: number) => {
		reads.push(page);
		// After page 1 was read, the record at position 10 is deleted: every later one moves up by one.
		if (page === 2 && !deleted) {
			items.splice(10, 1);
			deleted = true;
		}
		const slice = items.slice((page - 1) * 100, page * 100);
		return { items: slice, meta: { total: items.length }, total: items.length };
	};
	const cursor = Date.parse(items[249].updated_at);
	const client = Object.assign(Object.create(StorefrontClient.prototype) as StorefrontClient, {
		getPage,
	});
	const read = await readChanges(client, 'products', cursor, 5);
	expect(reads).toEqual([1, 2, 3, 1, 2, 3]);
	expect([...read.records.keys()].sort()).toEqual(items.map((i) => i.id).sort());
	expect(read.sorted).toBe(true);
});

test('a service that silently caps the page size, with no end signal: the whole list is read, no change missed', async () => {
	// 40 a page whatever the limit asks, listed oldest first: a new product is on the last page.
	await ctx.admin('PUT', '/compat', { page_size_cap: 40, pagination: 'none', list_order: 'id' });
	const p = poller(['product.created']);
	await baseline(p);
	const body = { name: 'Capped lamp', price: 9, stock: 40, sku: 'CAP-1' };
	const product = await api('POST', '/products', body);
	await ctx.admin('DELETE', '/requests');
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([
		`product.created ${productIdOf(product)}`,
	]);
	// 251 products: six pages of 40, then the short seventh ends the read.
	const pages = (await listRequests()).map((r) => String(r.query.page));
	expect(pages).toEqual(['1', '2', '3', '4', '5', '6', '7']);
	expect(await p.poll()).toBeNull();
});

test('a service that ignores `page`, with no end signal: a read ends at the repeated page, and the next polls run', async () => {
	// 250 products: every page is page 1, most recently changed first.
	await ctx.admin('PUT', '/compat', {
		ignore_page: true,
		pagination: 'none',
		list_order: 'recent',
	});
	const p = poller(['product.created']);
	await ctx.admin('DELETE', '/requests');
	await baseline(p);
	expect((await listRequests()).map((r) => String(r.query.page))).toEqual(['1', '2']);
	const body = { name: 'Paged lamp', price: 9, stock: 40, sku: 'PAGE-1' };
	const product = await api('POST', '/products', body);
	expect(((await p.poll()) as IDataObject[]).map(summary)).toEqual([
		`product.created ${productIdOf(product)}`,
	]);
	expect(await p.poll()).toBeNull();
});

test("the rate limit: the poll's requests wait in the key's governor (the Storefront node's transport) instead of failing", async () => {
	// 3 requests per second on a Starter key: the baseline's 4 list reads and a Storefront node's run (1) share them,
	// so some wait for the next window; a poll that did not wait for the limit would fail its activation with a 429.
	await ctx.admin('PUT', '/ratelimit', { window_ms: 1000, limits: { starter: 3 } });
	const apiKey = ['sk', 'starter', 'poll', String(Date.now())].join('_');
	await ctx.admin('POST', '/keys', { key: apiKey, plan: 'starter' });
	const credentials = { baseUrl: ctx.sb.baseUrl, apiKey };
	const p = createPoller(credentials, { events: ALL, options: {} });
	const [activation, run] = await Promise.all([
		p.activate(),
		ctx.run({
			credentials,
			parameters: { resource: 'product', operation: 'getAll', returnAll: false, limit: 5 },
		}),
	]);
	expect(activation).toBeNull();
	expect(run.error).toBeUndefined();
	const mine = (await ctx.requests()).filter((r) => r.path.startsWith('/v1/'));
	// Every request was answered in the end: the poll and the run waited for the window, neither failed.
	expect(mine.filter((r) => r.status === 200).length).toBe(5);
	expect(p.savedState().products?.cursor).toEqual(expect.any(Number));
	await ctx.admin('DELETE', '/ratelimit');
});

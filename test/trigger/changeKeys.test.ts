// The table of change keys (nodes/StorefrontTrigger/changeKeys.ts), one test per row: what each change is claimed by
// and what it looks for. Then the rows at work in n8n's claims store (n8n-core's row as the test store keeps it, under
// the lock), nothing in memory: a delivery, a catch-up and a check of one change meet there whichever comes first and
// however many restarts lie between, a return to a status runs again, and a reading that cannot date a change meets
// what ran within its window and nothing outside it.
import type { IDataObject } from 'n8n-workflow';

import { InMemoryDeduplicator, storeRowOf, triggerContext } from '../helpers/deduplication';
import { changeClaim } from '../../nodes/StorefrontTrigger/changeKeys';
import type { Judgement } from '../../nodes/StorefrontTrigger/statusesKnown';
import { claimShared, storeOver, type Claim } from '../../nodes/shared/claims';

/** A claim by one key alone. */
const claimedAs = (id: string): Claim => ({ key: id });
const T = Date.parse('2026-12-02T10:00:00.000Z');
const second = Math.floor(T / 1_000);
const minute = Math.floor(T / 60_000);
const hour = Math.floor(T / 3_600_000);
const iso = (ms: number) => new Date(ms).toISOString();
const tenth = Math.floor(T / 100);
const S = 'order.updated/ord_1/shipped';
/** The integers from `a` to `b`, both included. */
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
/** The window of the table's row: from 2 minutes before T to 90 minutes and 5 seconds after it. */
const minutes = [minute - 2, minute - 1, ...Array.from({ length: 30 }, (_, i) => minute + 60 + i)];
const seconds = Array.from({ length: 6 }, (_, i) => second + 90 * 60 + i);

const rows: Array<
	[string, [unknown, IDataObject, unknown, boolean?, Judgement?], Claim | undefined]
> = [
	[
		'order.created: the order, whatever its shape',
		['order.created', { id: 'ord_1', status: 'pending' }, iso(T)],
		claimedAs('order.created/ord_1'),
	],
	[
		'payment.completed: the order paid (a payment in any shape: the paid order, its own id, the contract’s)',
		['payment.completed', { id: 'pay_9', order_id: 'ord_1' }, iso(T)],
		claimedAs('payment.completed/ord_1'),
	],
	[
		'product.created: the product',
		['product.created', { product_id: 'prod_1', sku: 'A' }, iso(T)],
		claimedAs('product.created/prod_1'),
	],
	[
		'order.updated delivered (its created_at, to the millisecond): its tenth, second, minute and hour marked once it ran, and the order’s activity in that second noted; a reading of the order updated from a second before to 10 ms after it looked for, by the tenths it touches, and a window reading of its second, minute or hour',
		[
			'order.updated',
			{ order_id: 'ord_1', status: 'shipped', previous_status: 'processing' },
			iso(T + 7),
		],
		{
			key: `${S}@${T + 7}`,
			alike: range(tenth - 10, tenth).map((t) => `${S}@rd${t}`),
			notes: [`order/ord_1@a${second}`],
			marks: [`${S}@d${tenth}`, `${S}@s${second}`, `${S}@m${minute}`, `${S}@h${hour}`],
			probes: [`${S}@ws${second}`, `${S}@wm${minute}`, `${S}@wh${hour}`],
		},
	],
	[
		"order.updated read, dated by the order's updated_at: the same the other way, a delivery from 10 ms before to a second after it",
		['order.updated', { id: 'ord_1', status: 'shipped', previous_status: null }, iso(T + 7), true],
		{
			key: `${S}@r${T + 7}`,
			alike: range(tenth - 1, tenth + 10).map((t) => `${S}@d${t}`),
			notes: [`order/ord_1@a${second}`],
			marks: [`${S}@rd${tenth}`, `${S}@rs${second}`, `${S}@m${minute}`, `${S}@h${hour}`],
			probes: [`${S}@ws${second}`, `${S}@wm${minute}`, `${S}@wh${hour}`],
		},
	],
	[
		'what this n8n knows narrows it: not the claims of an earlier stay in the same status (here 30 ms before), and the claim of the stay it saw',
		[
			'order.updated',
			{ id: 'ord_1', status: 'shipped' },
			iso(T + 7),
			false,
			{ earlier: T - 23, stay: `${S}@r${T - 5}` },
		],
		{
			key: `${S}@${T + 7}`,
			alike: [`${S}@rd${tenth}`, `${S}@r${T - 5}`],
			notes: [`order/ord_1@a${second}`],
			marks: [`${S}@d${tenth}`, `${S}@s${second}`, `${S}@m${minute}`, `${S}@h${hour}`],
			probes: [`${S}@ws${second}`, `${S}@wm${minute}`, `${S}@wh${hour}`],
		},
	],
	[
		"a delivery does not look for the stay it saw delivered at another time: two deliveries of one change have one created_at (the order's return, its status between at another webhook processor)",
		[
			'order.updated',
			{ id: 'ord_1', status: 'shipped' },
			iso(T + 7),
			false,
			{ stay: `${S}@${T - 900}` },
		],
		{
			key: `${S}@${T + 7}`,
			alike: range(tenth - 10, tenth).map((t) => `${S}@rd${t}`),
			notes: [`order/ord_1@a${second}`],
			marks: [`${S}@d${tenth}`, `${S}@s${second}`, `${S}@m${minute}`, `${S}@h${hour}`],
			probes: [`${S}@ws${second}`, `${S}@wm${minute}`, `${S}@wh${hour}`],
		},
	],
	[
		'order.updated to a status within a window (a reading that cannot date it): its seconds, whole minutes and whole hours marked once it ran, and the minutes and hours they lie in marked touched; the times claimed within them and another window’s marks looked for (a whole minute or hour’s touched marks, a second or minute’s whole ones), the stay this n8n saw, and the order’s activity in the second it was read',
		[
			'order.updated',
			{ order_id: 'ord_1', status: 'shipped', previous_status: null },
			iso(T + 90 * 60_000 + 5_000),
			true,
			{ window: T - 2 * 60_000, stay: 'order.updated/ord_1/shipped@1' },
		],
		{
			key: `${S}@w${T + 90 * 60_000 + 5_000}`,
			notes: [`order/ord_1@a${second + 90 * 60 + 5}`],
			// Its seconds lie in minute + 90, its minutes and seconds in the hours either side of the whole one.
			marks: [
				...seconds.map((s) => `${S}@ws${s}`),
				...minutes.map((m) => `${S}@wm${m}`),
				`${S}@wh${hour}`,
				`${S}@wtm${minute + 90}`,
				`${S}@wth${hour + 1}`,
				`${S}@wth${hour - 1}`,
			],
			alike: ['order.updated/ord_1/shipped@1'],
			probes: [
				...seconds.map((s) => `${S}@s${s}`),
				...seconds.map((s) => `${S}@rs${s}`),
				...minutes.map((m) => `${S}@m${m}`),
				`${S}@h${hour}`,
				...seconds.map((s) => `${S}@ws${s}`),
				...minutes.map((m) => `${S}@wm${m}`),
				`${S}@wh${hour}`,
				`${S}@wm${minute + 90}`,
				`${S}@wh${hour + 1}`,
				`${S}@wh${hour - 1}`,
				...minutes.map((m) => `${S}@wtm${m}`),
				`${S}@wth${hour}`,
			],
		},
	],
	[
		'other kinds, an update that kept its status, an update without a time, incomplete data: none (the event id is claimed)',
		['inventory.low', { product_id: 'prod_1', stock: 3 }, iso(T)],
		undefined,
	],
];

describe('the table of change keys', () => {
	it.each(rows)('%s', (_, [type, data, createdAt, read, known], claim) => {
		expect(changeClaim(type, data, createdAt, read, known)).toEqual(claim);
	});

	it('the last row, each case of it', () => {
		const order = { order_id: 'ord_1', status: 'shipped' };
		expect(changeClaim('order.updated', { ...order, previous_status: 'shipped' }, iso(T))).toBe(
			undefined,
		);
		expect(changeClaim('order.updated', order, undefined)).toBeUndefined();
		expect(changeClaim('order.refunded', order, iso(T))).toBeUndefined();
		expect(changeClaim('order.created', { total: 1 }, iso(T))).toBeUndefined();
	});
});

/** A claim store of its own (n8n's row as the test store keeps it, under the lock): whether a change runs there. */
function claims() {
	const store = new InMemoryDeduplicator();
	const context = triggerContext(`wf-claims-${Math.random()}`);
	const shared = storeOver(context.workflow.id, {
		data: storeRowOf(store, 'node', context),
		lock: storeRowOf(store, 'workflow', context),
		lockKey: context.workflow.id,
	});
	let token = 0;
	/** Whether the change runs: a delivery's (`read` false) or a reading's; `from`: a window's start. */
	return async (type: string, data: IDataObject, at: number, read = false, from?: number) =>
		await claimShared(
			shared,
			changeClaim(type, data, iso(at), read, from === undefined ? {} : { window: from })!,
			`t${++token}`,
		);
}

const order = (status: string, previous?: string | null) => ({
	order_id: 'ord_1',
	store_id: 's',
	status,
	...(previous === undefined ? {} : { previous_status: previous }),
});

describe('the rows at work in the claims store, with nothing in memory', () => {
	it('a delivery and a reading of one change, in either order, a few milliseconds apart across a second: once', async () => {
		const runs = claims();
		// The delivery's created_at and the order's updated_at on either side of a second.
		expect(await runs('order.updated', order('shipped', 'processing'), T - 3)).toBe(true);
		expect(await runs('order.updated', order('shipped', null), T + 2, true)).toBe(false);
		// A reading first (its delivery was lost), then the service's late retry.
		expect(await runs('order.updated', order('delivered', null), T + 60_000, true)).toBe(true);
		expect(await runs('order.updated', order('delivered', 'shipped'), T + 59_999)).toBe(false);
		expect(await runs('order.created', { order_id: 'ord_1' }, T)).toBe(true);
		expect(await runs('order.created', { id: 'ord_1', status: 'pending' }, T + 5, true)).toBe(
			false,
		);
	});

	it('an order that returns to a status runs each change once, its return too, whether the event says the status before or not', async () => {
		const runs = claims();
		const flips: Array<[IDataObject, number]> = [
			[order('processing', 'pending'), T],
			[order('on-hold'), T + 10_000],
			[order('processing', 'on-hold'), T + 20_000],
			[order('on-hold'), T + 30_000],
			[order('processing'), T + 40_000],
		];
		for (const [change, at] of flips) expect(await runs('order.updated', change, at)).toBe(true);
		for (const [change, at] of flips) expect(await runs('order.updated', change, at)).toBe(false); // redelivered
		// A reading of its status now: the last return.
		expect(await runs('order.updated', order('processing', null), T + 40_001, true)).toBe(false);
	});

	it('a change a catch-up ran, then n8n restarts again and its late retry comes: it does not run again (issue 69, first case)', async () => {
		const runs = claims();
		// created → processing → completed while n8n was down; the first catch-up ran processing, the second completed.
		expect(await runs('order.updated', order('processing', null), T + 1, true)).toBe(true);
		expect(await runs('order.updated', order('completed', null), T + 20_001, true)).toBe(true);
		// The late retries of both deliveries, after another restart: nothing in memory, only the claims.
		expect(await runs('order.updated', order('processing', 'pending'), T)).toBe(false);
		expect(await runs('order.updated', order('completed', 'processing'), T + 20_000)).toBe(false);
	});

	it('a return whose delivery failed while n8n was down: the catch-up runs it, and its late retry does not (issue 69, lost return)', async () => {
		const runs = claims();
		expect(await runs('order.updated', order('processing', 'on-hold'), T)).toBe(true);
		expect(await runs('order.updated', order('on-hold', 'processing'), T + 5_000)).toBe(true);
		// The return to processing, made while n8n was down: read at the start (its updated_at), then retried.
		expect(await runs('order.updated', order('processing', null), T + 9_000, true)).toBe(true);
		expect(await runs('order.updated', order('processing', 'on-hold'), T + 8_999)).toBe(false);
	});

	it('a reading that loses to an earlier stay in its tenth (a return whose status between never came, after a restart) marks nothing: the return’s own late delivery runs (soak seed 1320115180, 500 orders)', async () => {
		const runs = claims();
		expect(await runs('order.updated', order('processing', 'delivered'), T + 426)).toBe(true);
		// Delivered at T + 464 (its delivery lost), processing again at T + 505 (held back). After a restart a reading
		// sees the order processing, updated at T + 505: the first stay's tenth is within its reach, so it runs nothing.
		expect(await runs('order.updated', order('processing', null), T + 505, true)).toBe(false);
		// The return's delivery, another created_at than the first stay's: it runs, once.
		expect(await runs('order.updated', order('processing', 'delivered'), T + 505)).toBe(true);
		expect(await runs('order.updated', order('processing', 'delivered'), T + 505)).toBe(false);
	});

	it('a reading that cannot date a change meets what ran within its window, and nothing before it', async () => {
		const runs = claims();
		// Shipped once, an hour ago, delivered; then a return to shipped the delivery of which never came.
		expect(await runs('order.updated', order('shipped'), T - 3_600_000)).toBe(true);
		expect(await runs('order.updated', order('on-hold'), T - 1_800_000)).toBe(true);
		// A reading sees it shipped at T, the order last seen on hold 30 minutes before: the return runs.
		expect(await runs('order.updated', order('shipped'), T, true, T - 1_800_000 + 1)).toBe(true);
		// The same reading again (another check, n8n restarted): its window's marks say it ran.
		expect(
			await runs('order.updated', order('shipped'), T + 120_000, true, T - 1_800_000 + 1),
		).toBe(false);
		// Its late retry, dated inside that window: the window's claim.
		expect(await runs('order.updated', order('shipped'), T - 600_000)).toBe(false);
		// A window reading of a change that a delivery already ran inside it: found.
		expect(await runs('order.updated', order('delivered'), T + 200_000)).toBe(true);
		expect(await runs('order.updated', order('delivered'), T + 300_000, true, T + 100_000)).toBe(
			false,
		);
	});

	it('two readings that cannot date a change meet however their windows were cut: to seconds, whole minutes, whole hours (soak seed 539768729, queue mode, no updated_at: a lost cancellation run by the catch-ups of two restarts)', async () => {
		/** Two windows [from, at] of a cancellation, read one after the other; whether the second one runs. */
		const cases: Array<[string, [number, number], [number, number], boolean]> = [
			// The first catch-up's window lies within a minute; the next one's, after another restart, covers that minute.
			['seconds, then their whole minute', [T + 729, T + 33_415], [T + 729, T + 119_702], false],
			[
				'a whole minute, then some of its seconds',
				[T, T + 119_702],
				[T + 10_000, T + 20_000],
				false,
			],
			['seconds, then their whole hour', [T + 729, T + 33_415], [T - 1, T + 3_700_000], false],
			[
				'a whole hour, then some of its seconds',
				[T, T + 3_700_000],
				[T + 1_200_500, T + 1_230_500],
				false,
			],
			// Windows in one minute that do not overlap do not meet: a return to the status between them runs.
			['two windows apart in one minute', [T + 729, T + 10_000], [T + 20_000, T + 40_000], true],
		];
		const results: boolean[][] = [];
		for (const [, [fromA, atA], [fromB, atB]] of cases) {
			const runs = claims();
			results.push([
				await runs('order.updated', order('cancelled'), atA, true, fromA),
				await runs('order.updated', order('cancelled'), atB, true, fromB),
			]);
		}
		expect(Object.fromEntries(cases.map(([name], i) => [name, results[i]]))).toEqual(
			Object.fromEntries(cases.map(([name, , , second]) => [name, [true, second]])),
		);
	});

	it('a reading that cannot date a change and finds it claimed marks nothing: a late delivery inside its window runs (a return after a restart, no updated_at)', async () => {
		const runs = claims();
		expect(await runs('order.updated', order('processing'), T - 1_800_000)).toBe(true);
		expect(await runs('order.updated', order('on-hold'), T - 1_200_000)).toBe(true);
		// After a restart nothing narrows the window: from the order's creation, so it holds the first stay.
		expect(await runs('order.updated', order('processing'), T, true, T - 2_400_000)).toBe(false);
		// The return's late retry: it did not run, so it runs now; again, it does not.
		expect(await runs('order.updated', order('processing'), T - 600_000)).toBe(true);
		expect(await runs('order.updated', order('processing'), T - 600_000)).toBe(false);
	});
});

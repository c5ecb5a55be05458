// The soak's judge (./plan, judgeRuns) on runs written by hand: each fault the soak exists to find is named in the
// verdict's list for it, and sound runs leave every list empty. The soak in n8n trusts this judge for its pass/fail.
import { judgeRuns, returnTakenForReading, type RunItem, type SoakEvent } from './plan';

let serial = 0;
const at = (second: number) => new Date(Date.UTC(2026, 11, 2, 12, 0, second)).toISOString();

/** What the shop did to order `id`: created, then each status, then paid if `paid`. */
function shop(id: string, statuses: string[], paid = false): SoakEvent[] {
	const events: SoakEvent[] = [
		{
			id: `evt_${id}_c`,
			type: 'order.created',
			created_at: at(0),
			data: { id, status: 'pending' },
		},
		...statuses.map((status, i) => ({
			id: `evt_${id}_${i}`,
			type: 'order.updated',
			created_at: at(i + 1),
			data: { id, status },
		})),
	];
	if (paid)
		events.push({
			id: `evt_${id}_p`,
			type: 'payment.completed',
			created_at: at(9),
			data: { order_id: id },
		});
	return events;
}

/** A run of `event` as the trigger passes it on: by delivery (its own id) or by a reading (an id of its own). */
const ran = (
	event: SoakEvent,
	{
		source = 'webhook',
		superseded = false,
		crashed = false,
		passedAt,
	}: { source?: string; superseded?: boolean; crashed?: boolean; passedAt?: number } = {},
): RunItem => ({
	json: {
		...event,
		id: source === 'webhook' ? event.id : `read_${++serial}`,
		source,
		...(superseded ? { superseded: true } : {}),
	},
	execution: String(++serial),
	crashed,
	passedAt,
});

const nothingUnreadable = () => false;
const empty = {
	eventsTwice: [],
	moreThanChanged: [],
	lost: [],
	staleLast: [],
	paymentsNotOnce: [],
	crashWindow: [],
	unreadable: [],
};

test('sound runs: each change once, by either path, the last item current or marked superseded: every list empty', () => {
	const [created, processing, completed, payment] = shop('o1', ['processing', 'completed'], true);
	const verdict = judgeRuns(
		[created, processing, completed, payment],
		[
			ran(created),
			ran(completed, { source: 'catch-up' }),
			ran(payment),
			ran(processing, { superseded: true }),
		],
		nothingUnreadable,
	);
	expect(verdict).toEqual({ orders: 1, products: 0, ...empty });
});

test('each fault lands in its own list', () => {
	const [a0, a1] = shop('twice', ['processing']);
	const [b0, b1] = shop('again', ['processing']);
	const [c0, , c2] = shop('lost', ['processing', 'on-hold']);
	const [d0, d1, d2] = shop('stale', ['processing', 'on-hold']);
	const [e0, e1, e2] = shop('unpaid', ['processing'], true);
	const verdict = judgeRuns(
		[a0, a1, b0, b1, c0, c2, d0, d1, d2, e0, e1, e2],
		[
			// One delivery ran twice.
			...[a0, a1, a1].map((e) => ran(e)),
			// One change ran by the catch-up, and again by its late delivery, unmarked.
			ran(b0),
			ran(b1, { source: 'catch-up' }),
			ran(b1),
			// The final change never ran.
			ran(c0),
			// Every change ran, then an older one again as the last item, unmarked.
			...[d0, d2].map((e) => ran(e)),
			ran(d1, { source: 'catch-up' }),
			// The payment never ran.
			...[e0, e1].map((e) => ran(e)),
		],
		nothingUnreadable,
	);
	expect(verdict.eventsTwice).toEqual([`${a1.id}: 2 runs`]);
	expect(verdict.moreThanChanged.map((line) => line.split(':')[0])).toEqual(['twice', 'again']);
	expect(verdict.lost.map((line) => line.split(':')[0])).toEqual(['lost']);
	// The lost order's last item is its creation, unmarked: stale too.
	expect(verdict.staleLast.map((line) => line.split(':')[0])).toEqual(['lost', 'stale']);
	expect(verdict.paymentsNotOnce).toEqual(['unpaid: 0 payment runs']);
	expect([verdict.crashWindow, verdict.unreadable]).toEqual([[], []]);
});

test('a run that crashed is reported apart and counts for nothing twice; a final change no path can read is reported apart, not lost', () => {
	const [a0, a1] = shop('crashed', ['processing']);
	const [b0, b1] = shop('unreadable', ['processing']);
	const verdict = judgeRuns(
		[a0, a1, b0, b1],
		[ran(a0), ran(a1, { crashed: true }), ran(a1), ran(b0)],
		(order) => order === 'unreadable',
	);
	expect(verdict.crashWindow.map((line) => line.split(':')[0])).toEqual(['crashed']);
	expect(verdict.unreadable.map((line) => line.split(':')[0])).toEqual(['unreadable']);
	expect([verdict.eventsTwice, verdict.moreThanChanged, verdict.lost]).toEqual([[], [], []]);
});

test('the last word is the item passed on last, whichever execution began first (queue mode: runs overlap)', () => {
	const [a0, a1, a2] = shop('overlapped', ['on-hold', 'shipped']);
	const [b0, b1, b2] = shop('stale', ['on-hold', 'shipped']);
	const passed = (second: number) => Date.parse(at(30 + second));
	const verdict = judgeRuns(
		[a0, a1, a2, b0, b1, b2],
		[
			// The held on-hold's execution began after shipped's, but passed its item on first.
			...[a0, a2, a1].map((e, i) => ran(e, { passedAt: passed([0, 2, 1][i]) })),
			// Here the on-hold passed on after shipped, unmarked: the workflow's last word is stale.
			...[b0, b2, b1].map((e, i) => ran(e, { passedAt: passed(i) })),
		],
		nothingUnreadable,
	);
	expect(verdict.staleLast.map((line) => line.split(':')[0])).toEqual(['stale']);
	expect(verdict.staleLast[0]).toContain('webhook:on-hold@01.000 [passed 32.000]');
});

test('a last item from a run that crashed is its input, not what the trigger passed on: the crash window, not a stale last word (soak seed 31728347, queue mode)', () => {
	const [a0, a1, a2] = shop('cut', ['on-hold', 'shipped']);
	const passed = (second: number) => Date.parse(at(30 + second));
	const verdict = judgeRuns(
		[a0, a1, a2],
		[
			ran(a0, { passedAt: passed(0) }),
			ran(a2, { passedAt: passed(1) }),
			ran(a1, { passedAt: passed(2), crashed: true }),
		],
		nothingUnreadable,
	);
	expect(verdict.staleLast).toEqual([]);
	expect(verdict.crashWindow.map((line) => line.split(':')[0])).toEqual(['cut']);
});

test('a return made within a second after a reading ran the stay it returns to is what the claims cannot tell apart (soak seed 1573681994, queue mode): reported apart; later, or the return read itself, is not', () => {
	// refunded at 1 (its delivery lost, run by a reading that could not date it, dated 1.5), shipped at 2, refunded at
	// 2 + `after` s (the return).
	const order = (after: number) => {
		const [created, refunded, shipped] = shop('ord', ['refunded', 'shipped']);
		const time = (seconds: number) => new Date(Date.parse(at(0)) + seconds * 1_000).toISOString();
		const back = { ...refunded, id: 'evt_ord_back', created_at: time(2 + after) };
		const read = ran({ ...refunded, created_at: time(1.5) }, { source: 'check' });
		return {
			made: [created, refunded, shipped, back],
			back,
			items: [ran(created), read, ran(shipped)],
		};
	};
	const within = order(0.4);
	expect(returnTakenForReading(within.made, within.back, within.items)).toBe(true);
	const later = order(0.6);
	expect(returnTakenForReading(later.made, later.back, later.items)).toBe(false);
	// The return's own reading (dated at it), and a reading of the stay after the change between: not this limit.
	const own = ran(within.back, { source: 'check' });
	expect(
		returnTakenForReading(within.made, within.back, [
			...within.items.filter((i) => i.json.source === 'webhook'),
			own,
		]),
	).toBe(false);
	// A change that is no return: never.
	expect(returnTakenForReading(within.made, within.made[2], within.items)).toBe(false);
});

test('products: created twice, or never, is found', () => {
	const product = (id: string): SoakEvent => ({
		id: `evt_${id}`,
		type: 'product.created',
		created_at: at(0),
		data: { id },
	});
	const [twice, never] = [product('p1'), product('p2')];
	const verdict = judgeRuns(
		[twice, never],
		[ran(twice), ran(twice, { source: 'catch-up' })],
		nothingUnreadable,
	);
	expect(verdict.products).toBe(2);
	expect(verdict.moreThanChanged).toEqual(['p1: product.created 2, inventory.low 0 of 0']);
	expect(verdict.lost).toEqual(['p2: product.created never ran']);
});

/* eslint-disable @typescript-eslint/no-explicit-any -- test code, not node code: events and items are untyped JSON */
// The soak's two halves that need no n8n (./soak.test.ts runs them against a real one): what the shop and the service do,
// drawn from a seed, and what the trigger's runs must show of it, checked per order and per product.

// The sandbox's own seeded generator (mulberry32): the same seed draws the same soak.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createRng } = require('../../sandbox/seed') as {
	createRng(seed: number): {
		next(): number;
		int(min: number, max: number): number;
		pick<T>(list: readonly T[]): T;
	};
};

/** A generator with a printable seed: `chance(p)` is true with probability p. */
export function randomFrom(seed: number) {
	const rng = createRng(seed);
	return { ...rng, chance: (p: number) => rng.next() < p };
}
export type Random = ReturnType<typeof randomFrom>;

/** What the shop does next: one call to the sandbox. */
export type ShopAction =
	| { kind: 'checkout'; order: number }
	| { kind: 'status'; order: number; status: string }
	| { kind: 'pay'; order: number }
	| { kind: 'product'; product: number }
	| { kind: 'lower'; product: number };

/** Statuses an order moves between (compat order_transitions "any"): returns and cancellations included. */
const STATUSES = ['processing', 'on-hold', 'shipped', 'delivered', 'cancelled', 'refunded'];

/** One to four status changes from pending; a third of the changes after the first return to the status before. */
export function statusPath(random: Random): string[] {
	const path: string[] = [];
	let now = 'pending';
	let before: string | undefined;
	for (let n = random.int(1, 4); path.length < n; ) {
		const next =
			before !== undefined && before !== 'pending' && random.chance(1 / 3)
				? before
				: random.pick(STATUSES.filter((s) => s !== now));
		[before, now] = [now, next];
		path.push(next);
	}
	return path;
}

/**
 * The shop's calls, interleaved: orders made one by one (a new one while fewer than `window` are under way), each then
 * changed along its status path, half of them paid at a random point; a product made per ten orders, most of them then
 * lowered under the stock threshold (inventory.low).
 */
export function shopActions(random: Random, orders: number, window = 6): ShopAction[] {
	const pending: ShopAction[][] = [];
	for (let order = 0; order < orders; order++) {
		const steps: ShopAction[] = [{ kind: 'checkout', order }];
		for (const status of statusPath(random)) steps.push({ kind: 'status', order, status });
		if (random.chance(0.5)) steps.splice(random.int(1, steps.length), 0, { kind: 'pay', order });
		pending.push(steps);
	}
	for (let product = 0; product < Math.ceil(orders / 10); product++) {
		const steps: ShopAction[] = [{ kind: 'product', product }];
		if (random.chance(0.7)) steps.push({ kind: 'lower', product });
		pending.splice(random.int(0, pending.length), 0, steps);
	}
	const actions: ShopAction[] = [];
	const open: ShopAction[][] = [];
	while (pending.length || open.length) {
		while (open.length < window && pending.length) open.push(pending.shift()!);
		const i = random.int(0, open.length - 1);
		actions.push(open[i].shift()!);
		if (open[i].length === 0) open.splice(i, 1);
	}
	return actions;
}

/** What the service does with one event's delivery. */
export type DeliveryFate = 'once' | 'twice' | 'lost' | 'held';

/** Most deliveries arrive once; some twice at the same moment, some never, some only after the record's next event. */
export const fateOf = (random: Random): DeliveryFate => {
	const r = random.next();
	return r < 0.06 ? 'lost' : r < 0.16 ? 'twice' : r < 0.28 ? 'held' : 'once';
};

export interface SoakEvent {
	id: string;
	type: string;
	created_at: string;
	data: any;
}

/** The order or product an event is about (both service shapes: `<resource>_id`, else `id`). */
export const recordOf = (e: { type: string; data: any }) =>
	String(
		e.type.startsWith('order.') || e.type === 'payment.completed'
			? (e.data.order_id ?? e.data.id)
			: (e.data.product_id ?? e.data.id),
	);

/** One item the trigger passed on, where: the execution (in the order n8n made them) and its place in it. */
export interface RunItem {
	json: any;
	execution: string;
	/** The execution crashed or failed after the trigger's step: its item ran, how far is left to a person. */
	crashed: boolean;
	/**
	 * When the trigger passed it on (its step ended), where n8n logged it. Runs overlap (queue mode: two workers, ten
	 * runs each), so the workflow's last word on an order is the item passed on last, whichever execution began first.
	 */
	passedAt?: number;
}

/**
 * Whether `final`, an order's return to a status, was made within a second after a reading ran the stay it returns to
 * (its item dated before the change the return comes back from): an event may be stamped up to a second after its
 * update (docs/api-contract.md, row 23), so to the claims the return's delivery is that stay's (docs/trigger.md, What
 * a second cannot tell apart). `made`: the order's events, in the order the service made them.
 */
export function returnTakenForReading(made: SoakEvent[], final: SoakEvent, items: RunItem[]) {
	const at = made.indexOf(final);
	const before = made.slice(0, at).filter((e) => e.type !== 'payment.completed');
	if (!before.some((e) => e.type === 'order.updated' && e.data.status === final.data.status))
		return false;
	const from = Date.parse(before[before.length - 1].created_at);
	const madeAt = Date.parse(final.created_at);
	return items.some(({ json }) => {
		const read = Date.parse(json.created_at);
		return (
			json.source !== 'webhook' &&
			recordOf(json) === recordOf(final) &&
			json.data?.status === final.data.status &&
			read < from &&
			madeAt - read <= 1_000
		);
	});
}

export interface Verdict {
	orders: number;
	products: number;
	/** Each a list of "record: what" lines; a sound trigger leaves all empty. */
	eventsTwice: string[];
	moreThanChanged: string[];
	lost: string[];
	staleLast: string[];
	paymentsNotOnce: string[];
	/** Reported, not failed: what the spec's limits or a crash leave (docs/trigger.md). */
	crashWindow: string[];
	unreadable: string[];
}

/**
 * Per order and product, what its runs say against what the shop did (`events`, in the order the service made them).
 * `unreadable(order)`: its final status change can be found by no path (its delivery lost, made before n8n's last start,
 * on a spec-literal service without updated_at, or a return the order's payment then made undatable; in queue mode a
 * return on that service, as main reads but receives nothing): reported apart.
 */
export function judgeRuns(
	events: SoakEvent[],
	items: RunItem[],
	unreadable: (order: string, final: SoakEvent) => boolean,
	/** How the report names an event's delivery (its fate, whether n8n took it). */
	delivery: (event: SoakEvent) => string = () => '',
): Verdict {
	const verdict: Verdict = {
		orders: 0,
		products: 0,
		eventsTwice: [],
		moreThanChanged: [],
		lost: [],
		staleLast: [],
		paymentsNotOnce: [],
		crashWindow: [],
		unreadable: [],
	};
	const byEvent = new Map<string, number>();
	for (const { json, crashed } of items)
		if (json.source === 'webhook' && !crashed)
			byEvent.set(json.id, (byEvent.get(json.id) ?? 0) + 1);
	verdict.eventsTwice = [...byEvent].filter(([, n]) => n > 1).map(([id, n]) => `${id}: ${n} runs`);

	const records = new Map<string, SoakEvent[]>();
	for (const e of events) records.set(recordOf(e), [...(records.get(recordOf(e)) ?? []), e]);
	const runs = new Map<string, RunItem[]>();
	for (const item of items) {
		const id = recordOf(item.json);
		runs.set(id, [...(runs.get(id) ?? []), item]);
	}
	for (const [id, made] of records) {
		const ran = runs.get(id) ?? [];
		const ok = ran.filter((r) => !r.crashed);
		const count = (type: string, from = ok) => from.filter((r) => r.json.type === type).length;
		if (made[0].type.startsWith('product.') || made[0].type === 'inventory.low') {
			verdict.products++;
			const falls = made.filter((e) => e.type === 'inventory.low').length;
			if (count('product.created') > 1 || count('inventory.low') > falls)
				verdict.moreThanChanged.push(
					`${id}: product.created ${count('product.created')}, inventory.low ${count('inventory.low')} of ${falls}`,
				);
			if (count('product.created', ran) === 0)
				verdict.lost.push(`${id}: product.created never ran`);
			continue;
		}
		verdict.orders++;
		const updates = made.filter((e) => e.type === 'order.updated');
		const final = updates[updates.length - 1];
		const status = final ? String(final.data.status) : 'pending';
		const words = ran
			.filter((r) => ['order.created', 'order.updated'].includes(r.json.type))
			.map((r) => ({ ...r, status: String(r.json.data?.status ?? 'pending') }));
		const ranUpdates = count('order.updated');
		const at = (time: unknown) => String(time).slice(17, 23);
		const made_ = made.map(
			(e) =>
				`${e.type === 'order.updated' ? e.data.status : e.type}@${at(e.created_at)}${delivery(e)}`,
		);
		const said = `${made_.join(' → ')}; ran ${words
			.map(
				(w) =>
					`${w.json.source}:${w.status}@${at(w.json.created_at)}${w.json.superseded ? '(superseded)' : ''}` +
					(w.passedAt === undefined ? '' : ` [passed ${at(new Date(w.passedAt).toISOString())}]`),
			)
			.join(', ')}`;
		if (ran.some((r) => r.crashed)) verdict.crashWindow.push(`${id}: ${said}`);
		if (count('order.created') > 1 || ranUpdates > updates.length)
			verdict.moreThanChanged.push(`${id}: ${said}`);
		// A payment in runs that ended more than once ran twice, whatever a crash cut besides.
		if (count('payment.completed') > 1)
			verdict.moreThanChanged.push(
				`${id}: payment.completed ran ${count('payment.completed')} times`,
			);
		const paid = made.some((e) => e.type === 'payment.completed');
		const payments = count('payment.completed', ran);
		if (paid ? payments !== 1 : payments !== 0)
			verdict.paymentsNotOnce.push(`${id}: ${payments} payment runs`);
		if (final && unreadable(id, final)) {
			verdict.unreadable.push(`${id}: ${said}`);
			continue;
		}
		const finalRan = words.some((w) => w.status === status && w.json.superseded !== true);
		if (count('order.created', ran) === 0 || !finalRan) verdict.lost.push(`${id}: ${said}`);
		const passed = (w: RunItem) => w.passedAt ?? Infinity;
		const last = words.length
			? words.reduce((latest, w) => (passed(w) < passed(latest) ? latest : w))
			: undefined;
		// A crashed run's item is its input as n8n kept it, not what the trigger passed on (marked or not): the crash
		// window, where the order is reported already.
		if (last && !last.crashed && last.status !== status && last.json.superseded !== true)
			verdict.staleLast.push(`${id}: ${said}`);
	}
	return verdict;
}

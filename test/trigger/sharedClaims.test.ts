/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; the schedules' outcome counts are printed */
// The shared-database claim (nodes/StorefrontTrigger/sharedClaims.ts) against every kind of interleaving n8n's
// deduplication helper allows: each call of each n8n process is a read of the row and, later, a write of the whole
// row, and the test decides — from a seeded random generator — which pending read or write happens next. Thousands of
// schedules, with copies of one event in two or three processes and another process recording other events meanwhile
// (whose writes replace what they did not read). Asserted in every schedule: the event runs at least once (a claim
// never loses an event) and every other event runs. Counted: schedules in which a copy ran twice, for the claim and
// for a single check-and-record call (what n8n's Remove Duplicates node does), which the claim must beat.
import { claimShared, claimValues, type SharedStore } from '../../nodes/StorefrontTrigger/sharedClaims';
import { InMemoryDeduplicator } from '../helpers/deduplication';

const workflow = { id: 'wf-schedules', active: true };
const node = { id: 'trigger', name: 'Storefront Trigger', type: 'storefrontTrigger', typeVersion: 1.2, position: [0, 0] as [number, number], parameters: {} };

function recorder(store: InMemoryDeduplicator): SharedStore {
	return {
		record: async (values) => {
			const { processed } = await store.checkProcessedAndRecord(values, 'node', { workflow, node }, { mode: 'entries', maxEntries: 100_000 });
			return new Set(processed.map(String));
		},
		pass: async () => {
			await store.getProcessedDataCount('node', { workflow, node });
		},
	};
}

/** A single check-and-record of the event id: what the Remove Duplicates node does for each item. */
const singleCheck = async (store: SharedStore, id: string) => !(await store.record([`event:${id}`])).has(`event:${id}`);

/** mulberry32: a small seeded generator, so a failing schedule can be replayed from its seed. */
function seeded(seed: number) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** A read or write held until the schedule lets it happen: which actor's, and (timed schedules) when it is due. */
interface Pending {
	actor: number;
	step: 'read' | 'write';
	due: number;
	go: () => void;
}

/**
 * Runs the actors (one per n8n process) against one store; `choose` picks which pending read or write happens next
 * (`timing` gives each one its due time). Resolves to what each actor returned.
 */
async function playOut<T>(
	store: InMemoryDeduplicator,
	actors: Array<() => Promise<T>>,
	choose: (pending: Pending[]) => number,
	timing: (actor: number, step: 'read' | 'write', now: number) => number = () => 0,
): Promise<T[]> {
	const pending: Pending[] = [];
	const actorOf = new WeakMap<object, number>();
	let current = -1;
	let now = 0;
	store.pause = (step, _values, call) => {
		// A read is paused synchronously inside the actor's call, so `current` names its actor; its write follows it.
		if (step === 'read') actorOf.set(call, current);
		const actor = actorOf.get(call) as number;
		return new Promise<void>((go) => pending.push({ actor, step, due: timing(actor, step, now), go }));
	};
	const results: T[] = [];
	let done = 0;
	const runs = actors.map((actor, i) => {
		// An actor's first call starts synchronously in here, so `current` names it when that call pauses to read.
		const tagged = async () => {
			current = i;
			return await actor();
		};
		return tagged().then(
			(result) => {
				results[i] = result;
				done++;
			},
			(error) => {
				done++;
				throw error;
			},
		);
	});
	while (done < actors.length) {
		// Let every actor reach its next read or write (or finish) before choosing.
		await new Promise((resolve) => setImmediate(resolve));
		if (!pending.length) continue;
		const [next] = pending.splice(choose(pending), 1);
		now = Math.max(now, next.due);
		current = next.actor;
		next.go();
	}
	await Promise.all(runs);
	store.pause = undefined;
	return results;
}

type Check = (store: SharedStore, id: string, token: string) => Promise<boolean>;

type Model = 'any order' | 'timed';

/**
 * How the next read or write is chosen:
 * - any order: uniformly among all pending ones, as if every call could take any time (all copies arrive at once);
 * - timed: each process starts at a random moment within 20 time units; a call reads 0.5–1.5 units after the
 *   previous call of its process ended (a database round trip) and writes 1–3 units after its read (the answer, the
 *   node's work on the row, the write), whichever is due first goes first.
 */
function scheduler(model: Model, random: () => number) {
	if (model === 'any order') return { choose: (pending: Pending[]) => Math.floor(random() * pending.length), timing: undefined };
	const started = new Set<number>();
	const timing = (actor: number, step: 'read' | 'write', now: number) => {
		if (step === 'write') return now + 1 + 2 * random();
		if (!started.has(actor)) {
			started.add(actor);
			return random() * 20;
		}
		return now + 0.5 + random();
	};
	const choose = (pending: Pending[]) => pending.reduce((best, p, i) => (p.due < pending[best].due ? i : best), 0);
	return { choose, timing };
}

/**
 * `copies` processes each run one copy of event E; one more process records `others` other events meanwhile.
 * Returns how many copies of E ran, and whether every other event ran.
 */
async function schedule(check: Check, model: Model, seed: number, copies: number, others: number) {
	const store = new InMemoryDeduplicator();
	// The row exists already (the trigger has run before): its very first insert is a test of its own.
	store.rows.set(`${workflow.id}|n:${node.id}`, []);
	const { choose, timing } = scheduler(model, seeded(seed));
	const actors = Array.from({ length: copies }, (_, i) => () => check(recorder(store), 'evt_E', `token_${i}`));
	const bystander = async () => {
		let ran = 0;
		for (let i = 0; i < others; i++) if (await check(recorder(store), `evt_other_${i}`, `token_other_${i}`)) ran++;
		return ran;
	};
	const results = await playOut<boolean | number>(store, [...actors, bystander], choose, timing);
	const ranE = results.slice(0, copies).filter((r) => r === true).length;
	return { ranE, othersRan: results[copies] === others };
}

const SCHEDULES = 1000;

describe.each([
	{ model: 'any order' as const, copies: 2, others: 0 },
	{ model: 'any order' as const, copies: 2, others: 3 },
	{ model: 'any order' as const, copies: 3, others: 2 },
	{ model: 'timed' as const, copies: 2, others: 0 },
	{ model: 'timed' as const, copies: 2, others: 3 },
	{ model: 'timed' as const, copies: 3, others: 2 },
])('the claim, reads and writes interleaved in $model: $copies copies of an event, another process recording $others other events', ({ model, copies, others }) => {
	it(`never loses the event nor another one, and lets a copy through twice less often than a single check (${SCHEDULES} schedules)`, async () => {
		let claimTwice = 0;
		let singleTwice = 0;
		for (let seed = 1; seed <= SCHEDULES; seed++) {
			const claim = await schedule(claimShared, model, seed, copies, others);
			expect({ seed, ranE: claim.ranE >= 1, othersRan: claim.othersRan }).toEqual({ seed, ranE: true, othersRan: true });
			if (claim.ranE > 1) claimTwice++;
			const single = await schedule((store, id) => singleCheck(store, id), model, seed, copies, others);
			expect(single.ranE).toBeGreaterThanOrEqual(1);
			if (single.ranE > 1) singleTwice++;
		}
		console.log(`${model}, ${copies} copies + ${others} other events, ${SCHEDULES} schedules: a copy ran twice in ${claimTwice} with the claim, ${singleTwice} with a single check`);
		expect(claimTwice).toBeLessThan(singleTwice);
	}, 120_000);
});

describe('the claim, step by step', () => {
	it('a later copy is dropped at its first call; the first copy records the event, its token and the run marker', async () => {
		const store = new InMemoryDeduplicator();
		const shared = recorder(store);
		expect(await claimShared(shared, 'evt_1', 'a')).toBe(true);
		expect(await claimShared(shared, 'evt_1', 'b')).toBe(false);
		const values = claimValues('evt_1', 'a');
		expect(await shared.record([values.event, values.delivery, values.run])).toEqual(new Set([values.event, values.delivery, values.run]));
	});

	it('a copy still finds the run marker when the event value itself was lost to a concurrent write', async () => {
		const store = new InMemoryDeduplicator();
		const shared = recorder(store);
		expect(await claimShared(shared, 'evt_2', 'a')).toBe(true);
		// Another process's write replaces the row with an older copy that has the run marker but not the event:
		// in n8n that is a whole-row write based on a read taken between the claim's last two calls.
		const row = store.rows.get(`${workflow.id}|n:${node.id}`) as string[];
		row.splice(0, row.length - 1);
		expect(await claimShared(shared, 'evt_2', 'b')).toBe(false);
	});
});

// Create or Update's runs take turns per account in one n8n process (nodes/Storefront/v1/actions/eachItem.ts, turnOf):
// a bounded wait ends when the run ahead lets go, or at the bound when it never does, so a run that never ends holds
// the later ones no longer. On a virtual clock: 20 minutes of waiting take milliseconds.
import { turnOf, type Turn } from '../../nodes/Storefront/v1/actions/eachItem';
import { TURN_WAIT_MS } from '../../nodes/Storefront/v1/actions/product/createClaims';
import { report } from '../../nodes/Storefront/v1/actions/product/report';
import { VirtualTime } from '../claims/virtualTime';

const MAX_WAIT_MS = TURN_WAIT_MS;

test('a run that never ends holds the next one for the bound only; a third waits for the second, not the first', async () => {
	const clock = new VirtualTime();
	const turns = new Map<string, Turn>();
	const bound = { clock, maxWaitMs: MAX_WAIT_MS };
	await turnOf(turns, 'acct', bound); // the first run takes its turn and never lets go
	const [second, third] = await clock.run(
		async () => {
			const release = await turnOf(turns, 'acct', bound);
			clock.at(clock.now() + 60_000, release); // the second run ends a minute later
			return clock.now();
		},
		async () => {
			await clock.sleep(1); // asks just after the second
			await turnOf(turns, 'acct', bound);
			return clock.now();
		},
	);
	expect(second).toBeGreaterThanOrEqual(MAX_WAIT_MS);
	expect(second).toBeLessThan(MAX_WAIT_MS + 2_000);
	// The bound counts from the second's turn: the third waited for the second's end, though it asked 20 minutes before.
	expect(third).toBe(second + 60_000);
});

test('a bounded wait ends when the run ahead lets go, not at the next look at the clock; another account never waits', async () => {
	const clock = new VirtualTime();
	const turns = new Map<string, Turn>();
	const bound = { clock, maxWaitMs: MAX_WAIT_MS };
	const first = await turnOf(turns, 'acct', bound);
	clock.at(4_321, first);
	const [next, other] = await clock.run(
		async () => {
			await turnOf(turns, 'acct', bound);
			return clock.now();
		},
		async () => {
			await turnOf(turns, 'other', bound);
			return clock.now();
		},
	);
	expect({ next, other }).toEqual({ next: 4_321, other: 0 });
});

test('the output panel says how long a run waited, and that it went on beside a run that has not finished', () => {
	const result = (turnWaitedMs: number) =>
		report({
			field: 'sku',
			counts: { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 },
			done: [],
			numeric: 0,
			turnWaitedMs,
		}).slice(1);
	expect(result(500)).toEqual([]);
	expect(result(12_000)).toEqual([
		'Waited 12 s for another Create or Update run on this API key to finish',
	]);
	expect(result(MAX_WAIT_MS)).toEqual([
		'Waited 20 min 0 s for another Create or Update run on this API key, which has not finished: went on ' +
			'beside it (a product it creates is still created once)',
	]);
});

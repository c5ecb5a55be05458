// "Remember Events For" (nodes/shared/claims/index.ts) on an in-memory row that keeps values as n8n's does:
// hashed, oldest first, dropped only from the front. Each claim under the lock first turns the period, then records
// itself, as the claim store does; the table says what the row held before, when each claim was made (in hours, for a
// retention of 3 hours: periods of one hour, unless a claim says otherwise), and which claims must still be found after
// the last one. A claim is kept at least the retention and dropped once it is older than the retention and a third,
// at the first claim of the period after that.
import { MAX_ROW_VALUES, periodOf, turnPeriod } from '../../nodes/shared/claims';
import { MemoryRow } from './memoryRow';

const HOUR = 3_600_000;
const RETENTION_HOURS = 3;

/**
 * One step of a case, in words:
 * - `a at 1.5`: claim "a" made under the lock at hour 1.5 (the period turned first), by process A;
 * - `a at 1.5 by B`: the same by process B, which has its own memory of the periods it marked (a restart is a new one);
 * - `a at 1.5 with 6h`: the same with a retention of 6 hours;
 * - `a at 1.5 without the lock`: claim "a" recorded without turning the period (a claim that could not have the lock);
 * - `cap keeps 60`: n8n's cap drops the row's oldest values until 60 remain.
 */
interface Step {
	name: string;
	hour: number;
	by: string;
	hours: number;
	locked: boolean;
	cap?: number;
}

const STEP = /^(\S+) at ([\d.]+)(?: by (\w+))?(?: with (\d+)h)?( without the lock)?$/;

function parse(step: string): Step {
	const cap = /^cap keeps (\d+)$/.exec(step);
	if (cap) return { name: '', hour: 0, by: '', hours: 0, locked: false, cap: Number(cap[1]) };
	const [, name, hour, by = 'A', hours = RETENTION_HOURS, unlocked] = STEP.exec(step) ?? [];
	if (name === undefined) throw new Error(`not a step: ${step}`);
	return { name, hour: Number(hour), by, hours: Number(hours), locked: !unlocked };
}

/** The values a row held before: "old-1" … (claims an older version or claims without the lock left there). */
const olds = (n: number) => Array.from({ length: n }, (_, i) => `old-${i + 1}`);

let cases = 0;

/** Plays the steps on a row that held `before` old values; `oldLeft`: those of them still there before the last step. */
async function play(before: number, steps: string[]) {
	const row = new MemoryRow(olds(before), MAX_ROW_VALUES);
	// The periods a process marked are remembered per scope: a scope of its own per process of each case.
	const scope = `retention-case-${++cases}`;
	let oldLeft: string[] = [];
	for (const [i, step] of steps.map(parse).entries()) {
		if (i === steps.length - 1) oldLeft = olds(before).filter((value) => row.has(value));
		if (step.cap !== undefined) {
			row.trimTo(step.cap);
			continue;
		}
		if (step.locked)
			await turnPeriod(`${scope}:${step.by}`, row, step.hours * HOUR, step.hour * HOUR);
		await row.record([step.name]);
	}
	return { row, oldLeft };
}

describe('claims are kept for the retention, and no longer than a third more', () => {
	test.each([
		{
			case: 'claims younger than the retention are kept',
			before: 0,
			steps: ['a at 0.5', 'b at 1.5', 'c at 2.5', 'now at 3.4'],
			found: 'a b c now',
			gone: '',
		},
		{
			case: 'a claim older than the retention is kept until its period is a full retention back',
			before: 0,
			steps: ['a at 0.1', 'b at 1.5', 'c at 2.5', 'now at 3.9'],
			found: 'a b c now',
			gone: '',
		},
		{
			case: 'a claim older than the retention and a third goes at the first claim of the new period',
			before: 0,
			steps: ['a at 0.5', 'b at 1.5', 'c at 2.5', 'd at 3.5', 'now at 4.5'],
			found: 'b c d now',
			gone: 'a',
		},
		{
			case: 'a claim made as its period began is gone once older than the retention and a third',
			before: 0,
			steps: ['a at 0', 'b at 1.5', 'c at 2.5', 'd at 3.5', 'now at 4.4'],
			found: 'b c d now',
			gone: 'a',
		},
		{
			case: 'values before the first marker (an older version, claims without the lock) go a retention later',
			before: 3,
			steps: ['a at 0.5', 'b at 1.5', 'c at 2.5', 'now at 3.5'],
			found: 'a b c now',
			gone: 'old',
		},
		{
			case: 'turns in consecutive periods drop one period each, counting what the turns between dropped',
			before: 10,
			steps: ['a at 0.5', 'b at 1.5', 'c at 2.5', 'd at 3.5', 'e at 4.5', 'f at 5.5', 'now at 6.5'],
			found: 'd e f now',
			gone: 'old a b c',
		},
		{
			case: 'quiet periods: claims after the newest marker a full retention back are kept',
			before: 0,
			steps: ['a at 0.5', 'b at 1.5', 'c at 5.5', 'now at 6.5'],
			found: 'b c now',
			gone: 'a',
		},
		{
			case: 'quiet for longer than the look-back: the old markers are out of sight, the new one takes over',
			before: 2,
			steps: ['a at 0.5', 'b at 12.5', 'c at 13.5', 'now at 15.5'],
			found: 'b c now',
			gone: 'old a',
		},
		{
			case: 'a row cut by its cap behind the markers: they no longer add up, nothing is dropped',
			before: 500,
			steps: ['a at 0.5', 'cap keeps 60', 'b at 1.5', 'c at 2.5', 'now at 3.5'],
			found: 'old a b c now',
			gone: '',
		},
		{
			case: 'after a cut by the cap, the markers written since drop again',
			before: 500,
			steps: ['a at 0.5', 'cap keeps 60', 'b at 1.5', 'c at 2.5', 'd at 3.5', 'now at 4.5'],
			found: 'b c d now',
			gone: 'old a',
		},
		{
			case: 'a restart mid-period: the new process keeps the period its predecessor marked',
			before: 0,
			steps: [
				'a at 0.2',
				'b at 0.6 by B',
				'c at 1.5 by B',
				'd at 2.5 by B',
				'e at 3.5 by B',
				'now at 4.5 by B',
			],
			found: 'c d e now',
			gone: 'a b',
		},
		{
			case: 'two processes take turns: each turns the periods the other left unmarked',
			before: 0,
			steps: ['a at 0.5', 'b at 1.5 by B', 'c at 2.5', 'd at 3.5 by B', 'now at 4.5'],
			found: 'b c d now',
			gone: 'a',
		},
		{
			case: 'a claim without the lock goes with the period marked before it',
			before: 0,
			steps: [
				'a at 0.5',
				'u at 1.2 without the lock',
				'b at 1.5',
				'c at 2.5',
				'd at 3.5',
				'now at 4.5',
			],
			found: 'b c d now',
			gone: 'a u',
		},
		{
			case: 'a retention lengthened from 3 to 6 hours keeps the claims younger than 6 hours',
			before: 0,
			steps: [
				'a at 0.5',
				'b at 1.5',
				'c at 2.5',
				'd at 3.5 with 6h',
				'e at 5.5 with 6h',
				'now at 7.9 with 6h',
			],
			found: 'a b c d e now',
			gone: '',
		},
		{
			case: 'a retention shortened from 6 to 3 hours keeps the claims younger than 3 hours',
			before: 0,
			steps: [
				'a at 1 with 6h',
				'b at 3 with 6h',
				'c at 5 with 6h',
				'd at 7 with 6h',
				'e at 9 with 6h',
				'now at 9.5',
			],
			found: 'b c d e now',
			gone: 'a',
		},
	])('$case', async ({ before, steps, found, gone }) => {
		const { row, oldLeft } = await play(before, steps);
		const names = (words: string) => words.split(' ').filter(Boolean);
		// Every claim of the case is said to be found or gone.
		const claims = steps.map(parse).flatMap(({ name }) => (name ? [name] : []));
		expect([...names(found), ...names(gone)].filter((name) => name !== 'old').sort()).toEqual(
			[...claims].sort(),
		);
		const where = (name: string) => (name === 'old' ? oldLeft : [name]);
		expect(
			names(found)
				.flatMap(where)
				.filter((value) => !row.has(value)),
		).toEqual([]);
		expect(
			names(gone)
				.flatMap(where)
				.filter((value) => row.has(value)),
		).toEqual([]);
	});
});

describe('the period marker is written once a period, by the first claim under the lock', () => {
	test.each([
		{
			case: 'the first claim of a period counts, looks, takes its look back and marks the period',
			steps: ['a at 0.1'],
			calls: 'count record remove record',
		},
		{
			case: 'the next claims of the period by the same process make no call',
			steps: ['a at 0.1', 'b at 0.2'],
			calls: '',
		},
		{
			case: 'a process new in a period already marked (a restart) looks, and writes no marker',
			steps: ['a at 0.1', 'b at 0.2 by B'],
			calls: 'count record remove',
		},
		{
			case: 'the first claim of the next period marks it',
			steps: ['a at 0.1', 'b at 0.2', 'c at 1.6'],
			calls: 'count record remove record',
		},
	])('$case', async ({ steps, calls }) => {
		const row = new MemoryRow([], MAX_ROW_VALUES);
		const scope = `marker-case-${++cases}`;
		let before = 0;
		for (const step of steps.map(parse)) {
			before = row.calls.length;
			await turnPeriod(`${scope}:${step.by}`, row, step.hours * HOUR, step.hour * HOUR);
			await row.record([step.name]);
		}
		// The calls of the last claim's turn (its own record is the last call).
		const made = row.calls.slice(before, -1).map(({ operation }) => operation);
		expect(made.join(' ')).toBe(calls);
		// The row holds the claims and, for each period, one marker (its values named period:<length>:<n>…, read back here in
		// plain words); the look's values were all taken back.
		const periods = [
			...new Set(steps.map(parse).map(({ hour }) => periodOf(hour * HOUR, RETENTION_HOURS * HOUR))),
		];
		const values = row.values() ?? [];
		const length = (RETENTION_HOURS * HOUR) / 3;
		const markers = values.filter((value) => /^period:\d+:-?\d+$/.test(value));
		expect(markers).toEqual(periods.map((period) => `period:${length}:${period}`));
		const ofMarked = (value: string) =>
			periods.some(
				(period) =>
					value === `period:${length}:${period}` || value.startsWith(`period:${length}:${period}:`),
			);
		expect(values.filter((value) => value.startsWith('period:') && !ofMarked(value))).toEqual([]);
	});
});

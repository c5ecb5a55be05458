// Statuses known (nodes/StorefrontTrigger/statusesKnown.ts), one table: what an order's sightings, noted as deliveries
// and readings bring them, tell of one more change of that order: the order's later status (superseded), and when it was
// last seen in another status before the change's stay (`after`: how far back another report of it can lie), and the
// claim of its stay where this n8n made one (the same change, reported again). Times are minutes; keys name claims.
import {
	judge,
	noteStatus,
	type Judgement,
	type Sighting,
} from '../../nodes/StorefrontTrigger/statusesKnown';

const at = (minute: number) => minute * 60_000;
const seen = (status: string, minute: number, key?: string): Sighting => ({
	status,
	at: at(minute),
	...(key ? { key } : {}),
});
/** A sighting read from the service: the order's state at the end of that millisecond. */
const read = (status: string, minute: number, key?: string): Sighting => ({
	...seen(status, minute, key),
	read: true,
});

let scopes = 0;
/** A trigger of its own with these sightings of order ord_1, noted in this order. */
function knowing(sightings: Sighting[]) {
	const scope = `wf-known-${++scopes}:trigger`;
	for (const s of sightings) noteStatus(scope, 'ord_1', s);
	return (status: string, minute: number) => {
		const { knownSince, lastSeen, ...judgement } = judge(scope, 'ord_1', status, at(minute));
		expect(knownSince).toBeLessThanOrEqual(Date.now());
		// The latest sighting, whatever its status and the change's.
		expect(lastSeen).toBe(sightings.length ? Math.max(...sightings.map((s) => s.at)) : undefined);
		return judgement;
	};
}

const flips = [
	seen('pending', 0),
	seen('processing', 10, 'to-processing'),
	seen('on-hold', 20, 'to-on-hold'),
];

const cases: Array<[string, Sighting[], [string, number], Judgement]> = [
	['nothing known', [], ['processing', 10], { later: false }],
	[
		'the order as created: seen in another status before',
		[seen('pending', 0)],
		['processing', 10],
		{ after: at(0), later: false },
	],
	[
		'a return to a status is a change of its own: it came after the status between, and the earlier stay before that',
		flips,
		['processing', 30],
		{ after: at(20), earlier: at(10), later: false },
	],
	[
		'an update that kept the status (an edit): the stay it belongs to',
		flips,
		['on-hold', 25],
		{ after: at(10), stay: 'to-on-hold', later: false },
	],
	[
		'the first change again (another event id), once the order moved on: its stay, and superseded',
		flips,
		['processing', 15],
		{ after: at(0), stay: 'to-processing', current: 'on-hold', later: true },
	],
	[
		'an earlier change arriving late: superseded by what came after it',
		[seen('pending', 0), seen('on-hold', 20)],
		['processing', 10],
		{ after: at(0), current: 'on-hold', later: true },
	],
	[
		"the catch-up read the order's status now: a late retry of that change is its stay, not superseded",
		[read('processing', 30, 'read-processing')],
		['processing', 29],
		{ stay: 'read-processing', later: true },
	],
	[
		"the catch-up read the order's status now: a late retry of the change before it is superseded",
		[read('processing', 30)],
		['on-hold', 20],
		{ current: 'processing', later: true },
	],
	[
		'the same millisecond: a change delivered then is before what a reading of that millisecond shows',
		[seen('processing', 10), read('processing', 30), seen('on-hold', 30)],
		['processing', 30],
		{ after: at(30), earlier: at(10), later: true },
	],
	[
		'the same millisecond: a delivered change another status was read at is superseded',
		[seen('processing', 10), read('processing', 30)],
		['on-hold', 30],
		{ after: at(10), current: 'processing', later: true },
	],
	[
		'the same millisecond, delivered: two changes of one millisecond came in no known order, so the status delivered first is no earlier stay of the status it left (soak seed 845937235: on-hold, then cancelled, both delivered, the on-hold last; the reading of cancelled ran it again)',
		[seen('pending', 0), seen('cancelled', 10, 'to-cancelled'), seen('on-hold', 10)],
		['cancelled', 10],
		{ after: at(10), stay: 'to-cancelled', later: false },
	],
	[
		'the same millisecond, delivered, then a later stay known: that stay is the change’s (processing and on hold in one millisecond, processing again a millisecond later, read since)',
		[
			seen('pending', 0),
			seen('processing', 10, 'to-processing'),
			seen('on-hold', 10),
			read('processing', 11, 'read-processing'),
		],
		['processing', 10.001],
		{ after: at(10), stay: 'read-processing', later: true },
	],
	[
		'a stay seen many times keeps its claim, whichever sighting brought it',
		[
			seen('pending', 0),
			seen('processing', 10),
			seen('processing', 11, 'to-processing'),
			seen('processing', 12),
			seen('processing', 13),
		],
		['processing', 14],
		{ after: at(0), stay: 'to-processing', later: false },
	],
	[
		'only the last six sightings are kept: the oldest status is forgotten',
		[
			seen('pending', 0),
			seen('processing', 1),
			seen('on-hold', 2),
			seen('processing', 3),
			seen('on-hold', 4),
			seen('processing', 5),
			seen('on-hold', 6),
		],
		['processing', 0.5],
		{ current: 'on-hold', later: true },
	],
];

describe('what the sightings of an order tell of one more change of it', () => {
	it.each(cases)('%s', (_, sightings, [status, minute], expected) => {
		expect(knowing(sightings)(status, minute)).toEqual(expected);
	});

	it('each trigger knows only its own sightings, all since this process started', () => {
		knowing(flips);
		expect(knowing([])('processing', 30)).toEqual({ later: false });
		const started = judge(`wf-known-${scopes}:trigger`, 'ord_1', 'processing', 0).knownSince;
		expect(judge('wf-known-other:trigger', 'ord_1', 'processing', 0).knownSince).toBe(started);
	});
});

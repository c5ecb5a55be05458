// Statuses known (nodes/StorefrontTrigger/statusesKnown.ts), one table: what an order's sightings, noted as deliveries
// and readings bring them, tell of one more change of that order: the status before it, the stay it belongs to (the
// same change again), and the order's later status (superseded). Times are minutes; keys name the claim of a stay.
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
	return (status: string, minute: number) => judge(scope, 'ord_1', status, at(minute));
}

const flips = [
	seen('pending', 0),
	seen('processing', 10, 'to-processing'),
	seen('on-hold', 20, 'to-on-hold'),
];

const cases: Array<[string, Sighting[], [string, number], Judgement]> = [
	['nothing known', [], ['processing', 10], { later: false }],
	[
		'the order as created: the status before',
		[seen('pending', 0)],
		['processing', 10],
		{ before: 'pending', later: false },
	],
	[
		'a return to a status is a change of its own: the status before is the one between',
		flips,
		['processing', 30],
		{ before: 'on-hold', later: false },
	],
	[
		'the first change again (another event id), once the order moved on: its stay, and superseded',
		flips,
		['processing', 15],
		{ before: 'pending', stay: 'to-processing', current: 'on-hold', later: true },
	],
	[
		'an earlier change arriving late: superseded by what came after it',
		[seen('pending', 0), seen('on-hold', 20, 'to-on-hold')],
		['processing', 10],
		{ before: 'pending', current: 'on-hold', later: true },
	],
	[
		"the catch-up read the order's status now: a late retry of that change is its stay",
		[seen('processing', 30, 'reached-processing')],
		['processing', 29],
		{ stay: 'reached-processing', later: true },
	],
	[
		"the catch-up read the order's status now: a late retry of the change before it is superseded",
		[seen('processing', 30, 'reached-processing')],
		['on-hold', 20],
		{ current: 'processing', later: true },
	],
	[
		'that late change noted, the retry of the last change is still the stay the catch-up ran',
		[seen('processing', 30, 'reached-processing'), seen('on-hold', 20, 'to-on-hold')],
		['processing', 29],
		{ before: 'on-hold', stay: 'reached-processing', later: true },
	],
	[
		'a late sighting splits a stay: each part keeps its own claim (the catch-up ran the later one)',
		[
			seen('processing', 30, 'reached-processing'),
			seen('processing', 10, 'to-processing'),
			seen('on-hold', 20),
		],
		['processing', 29],
		{ before: 'on-hold', stay: 'reached-processing', later: true },
	],
	[
		'the same millisecond: a change delivered then is before what a reading of that millisecond shows',
		[
			seen('processing', 10, 'to-processing'),
			read('processing', 30, 'reached-processing'),
			seen('on-hold', 30),
		],
		['processing', 30],
		{ before: 'on-hold', stay: 'reached-processing', later: true },
	],
	[
		'the same millisecond: a delivered change another status was read at is superseded',
		[seen('processing', 10, 'to-processing'), read('processing', 30, 'reached-processing')],
		['on-hold', 30],
		{ before: 'processing', current: 'processing', later: true },
	],
	[
		'a reading saw the status first (no claim), its delivery came later: not the same change as anything that ran',
		[seen('pending', 0), seen('processing', 12)],
		['processing', 10],
		{ before: 'pending', later: true },
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
		{ before: 'pending', stay: 'to-processing', later: false },
	],
	[
		'an update that kept the status (an edit): the stay it belongs to',
		flips,
		['on-hold', 25],
		{ before: 'processing', stay: 'to-on-hold', later: false },
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

	it('each trigger knows only its own sightings', () => {
		knowing(flips);
		expect(knowing([])('processing', 30)).toEqual({ later: false });
	});
});

// How Create or Update finds a run's products (Find Products By): read the whole catalog, look each value up, or read
// the catalog's first page to learn its size. A pure function of what is known before the next request; each row
// names the rule it holds and fails when that rule is broken.
import type { LookupAsk } from '../../nodes/Storefront/v1/actions/product/finder';
import { lookupChoice, UNSIZED_PAGES } from '../../nodes/Storefront/v1/actions/product/finder';

const auto: LookupAsk = { findBy: 'auto', field: 'sku', values: 3, pages: 200, firstRead: false };

describe('lookupChoice', () => {
	test.each<[string, Partial<LookupAsk>, ReturnType<typeof lookupChoice>]>([
		[
			'Reading the Whole Catalog reads it, however few the values',
			{ findBy: 'catalog' },
			'catalog',
		],
		['a run without values reads the catalog', { values: 0 }, 'catalog'],
		[
			'matching on Product ID reads the catalog: the API looks no product up by id',
			{ field: 'id' },
			'catalog',
		],
		[
			'Product ID reads the catalog even when Looking Each Up is chosen',
			{ field: 'id', findBy: 'lookup' },
			'catalog',
		],
		[
			'Looking Each Up looks up, however many the values',
			{ findBy: 'lookup', values: 5000, pages: 2 },
			'lookup',
		],
		['Looking Each Up needs no catalog size', { findBy: 'lookup', pages: undefined }, 'lookup'],
		[
			'automatic, the size unknown: the first page is read to learn it',
			{ pages: undefined },
			'first page',
		],
		[
			'automatic, the first page read and the length still unknown: taken as UNSIZED_PAGES, few values looked up',
			{ values: 10, pages: undefined, firstRead: true },
			'lookup',
		],
		[
			'automatic, the length unknown: the most values looked up is one request fewer than the pages left',
			{ values: UNSIZED_PAGES - 3, pages: undefined, firstRead: true },
			'lookup',
		],
		[
			'automatic, the length unknown and as many values as the pages left: the catalog, whose read learns it',
			{ values: UNSIZED_PAGES - 2, pages: undefined, firstRead: true },
			'catalog',
		],
		['automatic, few values against many pages: looked up', { values: 3, pages: 200 }, 'lookup'],
		[
			'automatic, a lookup a value plus one proving search as many as the pages: the catalog',
			{ values: 9, pages: 10 },
			'catalog',
		],
		['automatic, one request fewer than the pages: looked up', { values: 8, pages: 10 }, 'lookup'],
		[
			'automatic, the first page read counts as read',
			{ values: 8, pages: 10, firstRead: true },
			'catalog',
		],
		[
			'automatic, the first page read, the rest still more than the lookups',
			{ values: 7, pages: 10, firstRead: true },
			'lookup',
		],
		[
			'automatic, a catalog of one page read first: nothing more to read',
			{ values: 1, pages: 1, firstRead: true },
			'catalog',
		],
	])('%s', (_rule, ask, choice) => {
		expect(lookupChoice({ ...auto, ...ask })).toBe(choice);
	});
});

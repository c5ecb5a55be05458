// Pure helpers of the transport: end-of-list decisions, Retry-After parsing, error-message extraction, a record's id.
import {
	backoffMs,
	nextPageNumber,
	recordId,
	retryAfterMs,
	serviceMessage,
	unwrapList,
	unwrapSingle,
} from '../../nodes/shared/transport';

describe('nextPageNumber', () => {
	test.each([
		[{ has_more: false, next_page: 3 }, 2, 100, 100, 200, undefined],
		[{ next_page: null }, 2, 100, 100, 200, undefined],
		[{ next_page: 3 }, 2, 100, 100, 200, 3],
		[{ next_page: 2 }, 2, 100, 100, 200, undefined],
		[{ total_pages: 2 }, 2, 100, 100, 200, undefined],
		[{ total_pages: 3 }, 2, 100, 100, 200, 3],
		[{ total: 200 }, 2, 100, 100, 200, undefined],
		[{ has_more: true }, 2, 10, 100, 110, 3],
		[{}, 1, 40, 40, 40, 2],
		[{}, 2, 40, 40, 80, 3],
		[{}, 3, 10, 40, 90, undefined],
		[{}, 2, 0, 40, 40, undefined],
	])(
		'%j page %i with %i items (first page %i, %i so far) → %s',
		(meta, page, count, first, collected, expected) => {
			expect(nextPageNumber(meta, page, count, first, collected)).toBe(expected);
		},
	);
});

test('retryAfterMs reads seconds and HTTP dates', () => {
	const now = Date.parse('2026-01-01T00:00:00Z');
	expect(retryAfterMs('2', now)).toBe(2000);
	expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
	expect(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
	expect(retryAfterMs(undefined, now)).toBeUndefined();
	expect(retryAfterMs('soon', now)).toBeUndefined();
});

test('backoffMs doubles with jitter and is capped', () => {
	for (let attempt = 0; attempt < 5; attempt++) {
		const wait = backoffMs(attempt, 100);
		expect(wait).toBeGreaterThanOrEqual((100 * 2 ** attempt) / 2);
		expect(wait).toBeLessThanOrEqual(100 * 2 ** attempt);
	}
	expect(backoffMs(30, 1000)).toBeLessThanOrEqual(60_000);
});

test.each([
	[
		{
			error: {
				code: 'x',
				message: 'Contract says no',
				details: [{ field: 'price', message: 'must be >= 0' }],
			},
		},
		'Contract says no (price: must be >= 0)',
	],
	[{ message: 'Plain message' }, 'Plain message'],
	[{ error: 'String error' }, 'String error'],
	[{ error: 'invalid_request', error_description: 'Described' }, 'invalid_request: Described'],
	[
		{ errors: [{ field: 'name', message: 'is required' }, { message: 'second' }] },
		'name: is required; second',
	],
	[{ detail: 'Detail text' }, 'Detail text'],
	['Service down\nmore text', 'Service down'],
	[
		'<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><p>Upstream &quot;api&quot; failed</p></body></html>',
		'502 Bad Gateway — Upstream "api" failed',
	],
	['{"message": "JSON as text"}', 'JSON as text'],
])('serviceMessage(%j) = %s', (body, expected) => {
	expect(serviceMessage(body).message).toBe(expected);
});

test('envelopes', () => {
	expect(unwrapList({ products: [{ id: 1 }] }, 'products')).toEqual([{ id: 1 }]);
	expect(unwrapList({ results: [{ id: 2 }] }, 'products')).toEqual([{ id: 2 }]);
	expect(unwrapList([{ id: 3 }], 'products')).toEqual([{ id: 3 }]);
	expect(unwrapList({ nothing: true }, 'products')).toBeUndefined();
	expect(unwrapSingle({ product: { id: 'p' } }, 'product')).toEqual({ id: 'p' });
	expect(unwrapSingle({ data: { id: 'p' } }, 'product')).toEqual({ id: 'p' });
	expect(unwrapSingle({ id: 'p', data: { a: 1 } }, 'product')).toEqual({ id: 'p', data: { a: 1 } });
	// Keyed the spec's way: a bare record stays as it is, a wrapped one is unwrapped.
	expect(unwrapSingle({ product_id: 'p', data: { a: 1 } }, 'product')).toEqual({
		product_id: 'p',
		data: { a: 1 },
	});
	expect(unwrapSingle({ data: { order_id: 'o', store_id: 's' } }, 'order')).toEqual({
		order_id: 'o',
		store_id: 's',
	});
});

test("a record's id: `id`, else the resource's own `<resource>_id`, never another resource's", () => {
	expect(recordId({ id: 'ord_1', order_id: 'other' }, 'orders')).toBe('ord_1');
	expect(
		recordId({ order_id: 'ord_2', store_id: 'store_001', customer_id: 'cus_1' }, 'orders'),
	).toBe('ord_2');
	expect(recordId({ order_id: 'ord_3' }, 'order')).toBe('ord_3');
	expect(recordId({ product_id: 7 }, 'products')).toBe('7');
	expect(recordId({ store_id: 'store_001', customer_id: 'cus_1' }, 'orders')).toBeUndefined();
	expect(recordId({ id: '', product_id: null }, 'products')).toBeUndefined();
	expect(recordId({ store_id: 'store_001' }, 'store')).toBe('store_001');
});

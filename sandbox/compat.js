'use strict';
// Compatibility modes (admin PUT /__admin/compat): the sandbox can answer like a service that decided the
// contract's "not shown" points differently, one tolerated alternative at a time (contract rows 1, 4, 5, 6, 10, 12,
// 16, 17, 21). The default of every setting is the contract's own decision. A profile (PUT /__admin/profile) sets
// them all at once: 'spec-literal' is the other plausible reading of every point, as a service built from the spec
// alone.
const http = require('http');
const { validationError } = require('./errors');

const DEFAULT_COMPAT = Object.freeze({
	list_envelope: 'resource',
	pagination: 'full',
	page_size_cap: null,
	ignore_page: false,
	error_style: 'contract',
	wrap_single: null,
	list_order: 'recent',
	record_ids: 'id',
	updated_at: true,
	create_status: 201,
	event_data: 'contract',
	unique_sku: true,
	order_transitions: 'contract',
	product_search: 'contract',
});

const CHOICES = {
	list_envelope: ['resource', 'data', 'items', 'array'],
	// 'total_pages_top': {total_pages} beside the list; 'last_page': {meta: {current_page, last_page}} (Laravel's names).
	pagination: [
		'full',
		'has_more',
		'next_page',
		'total_pages',
		'total_pages_top',
		'last_page',
		'none',
		'meta',
	],
	error_style: ['contract', 'message', 'string', 'errors', 'text', 'html'],
	wrap_single: [null, 'resource', 'data'],
	// 'id': products and orders listed oldest id first, as a service that never decided contract row 21 might.
	list_order: ['recent', 'id'],
	// 'resource': a record's own id under `<resource>_id` (product_id, order_id…), as the spec's field tables name it.
	record_ids: ['id', 'resource', 'none'],
	// false: no updated_at in records (the spec lists none; the service keeps it internally for row 21's order).
	updated_at: [true, false],
	// 200: POST /products answers 200 rather than 201 (the spec shows no status).
	create_status: [201, 200],
	// 'record': events other than order.created carry the record as a list shows it (the spec shows only order.created's
	// data): order.updated the order without previous_status, payment.completed the paid order, no payment_id.
	// 'object': every event's data is the contract's with its own resource's id under `id` (objectEventData).
	event_data: ['contract', 'record', 'object'],
	// false: a SKU another product has is accepted (the spec states no unique rule; the contract decided one).
	unique_sku: [true, false],
	// 'any': PUT /orders/{id}/status moves an order from any status to any other known one, "on-hold" too (contract
	// row 12 refuses the moves it does not list with 409); an unknown status is still 422, the same status a no-op.
	order_transitions: ['contract', 'any'],
	// 'name': GET /products?search= matches product names only (contract row 7: name, sku or description; the spec
	// does not say), as a service whose search is a name search would.
	product_search: ['contract', 'name'],
};

/** The key of an event's own resource id in the contract's event data (row 16). */
const OWN_ID = {
	'order.created': 'order_id',
	'order.updated': 'order_id',
	'payment.completed': 'payment_id',
	'product.created': 'product_id',
	'inventory.low': 'product_id',
};

/**
 * An event's data under event_data 'object' (as Stripe-like APIs send): the contract's data with its own resource's id
 * under `id`, first; a payment also gets `paidAt` as `paid_at`.
 */
function objectEventData(type, data, paidAt) {
	const { [OWN_ID[type]]: id, ...rest } = data;
	return type === 'payment.completed' ? { id, ...rest, paid_at: paidAt ?? null } : { id, ...rest };
}

/**
 * Named sets of every compat setting plus the rate-limit headers switch: the contract's decisions, and the spec read
 * literally (its field names, no updated_at, a {data, meta} envelope, {message} errors, 200 on create, oldest first,
 * no X-RateLimit-* headers).
 */
const PROFILES = Object.freeze({
	contract: Object.freeze({ compat: DEFAULT_COMPAT, rateHeaders: true }),
	'spec-literal': Object.freeze({
		compat: Object.freeze({
			...DEFAULT_COMPAT,
			list_envelope: 'data',
			pagination: 'meta',
			error_style: 'message',
			wrap_single: 'data',
			list_order: 'id',
			record_ids: 'resource',
			updated_at: false,
			create_status: 200,
			event_data: 'record',
		}),
		rateHeaders: false,
	}),
});

/** The profile the settings amount to, or null when they match none (a compat or rate-header change since). */
function profileOf(compat, rateHeaders) {
	const matches = ([, p]) =>
		p.rateHeaders === rateHeaders && Object.entries(p.compat).every(([k, v]) => compat[k] === v);
	return Object.entries(PROFILES).find(matches)?.[0] ?? null;
}

/** Validates a (partial) compat body and returns the merged settings. */
function mergeCompat(current, body) {
	const details = [];
	const next = { ...current };
	for (const [key, value] of Object.entries(body ?? {})) {
		if (CHOICES[key]) {
			if (!CHOICES[key].includes(value))
				details.push({
					field: key,
					message: `must be one of: ${CHOICES[key].map(String).join(', ')}`,
				});
		} else if (key === 'page_size_cap') {
			if (value !== null && (!Number.isInteger(value) || value < 1))
				details.push({ field: key, message: 'must be a positive integer or null' });
		} else if (key === 'ignore_page') {
			if (typeof value !== 'boolean') details.push({ field: key, message: 'must be a boolean' });
		} else {
			details.push({ field: key, message: 'is not a compat setting' });
		}
		next[key] = value;
	}
	if (details.length) throw validationError(details);
	return next;
}

/**
 * The JSON text of a list response, the page's records given as JSON texts (joined, not re-serialised).
 * @param {string} resource 'products' | 'orders' | 'customers'
 * @param {string[]} items the page's records as JSON
 * @param {{page: number, limit: number, total: number}} p
 */
function listJson(compat, resource, items, p) {
	const list = `[${items.join(',')}]`;
	if (compat.list_envelope === 'array') return list;
	const key = compat.list_envelope === 'resource' ? resource : compat.list_envelope;
	const rest = JSON.stringify(listMeta(compat, p));
	return `{${JSON.stringify(key)}:${list}${rest === '{}' ? '}' : ',' + rest.slice(1)}`;
}

/** The pagination fields that follow the list, in the current pagination style. */
function listMeta(compat, p) {
	const totalPages = Math.ceil(p.total / p.limit);
	const hasMore = p.page < totalPages;
	const body = {};
	switch (compat.pagination) {
		case 'full':
			body.pagination = {
				page: p.page,
				limit: p.limit,
				total: p.total,
				total_pages: totalPages,
				has_more: hasMore,
				next_page: hasMore ? p.page + 1 : null,
			};
			break;
		case 'has_more':
			body.has_more = hasMore;
			break;
		case 'next_page':
			body.meta = { next_page: hasMore ? p.page + 1 : null };
			break;
		case 'total_pages':
			body.meta = { page: p.page, total_pages: totalPages };
			break;
		case 'total_pages_top':
			body.page = p.page;
			body.total_pages = totalPages;
			break;
		case 'last_page':
			body.meta = { current_page: p.page, last_page: totalPages };
			break;
		case 'meta':
			body.meta = { page: p.page, limit: p.limit, total: p.total, total_pages: totalPages };
			break;
	}
	return body;
}

/**
 * The key of a record's own id in the API: `id`, or `<resource>_id` under record_ids 'resource'; none under 'none' (a
 * service whose records carry no id the nodes know: they must say so, never act on `undefined`).
 */
const idKey = (compat, resource) =>
	({ id: 'id', resource: `${resource}_id`, none: undefined })[compat.record_ids];

/**
 * A record (resource: 'store' | 'product' | 'order' | 'customer') as the API shows it, keys in the record's order;
 * the record itself when the settings change nothing, so callers can reuse its memoised JSON.
 */
function recordView(compat, resource, record) {
	if (compat.record_ids === 'id' && compat.updated_at) return record;
	const view = {};
	for (const [key, value] of Object.entries(record)) {
		if (key === 'id') {
			if (idKey(compat, resource)) view[idKey(compat, resource)] = value;
		} else if (key !== 'updated_at' || compat.updated_at) view[key] = value;
	}
	return view;
}

/** A single resource as the API shows it, bare or wrapped as {<resource>: …} / {data: …}. */
function singleBody(compat, resource, record) {
	const value = recordView(compat, resource, record);
	if (compat.wrap_single === 'resource') return { [resource]: value };
	if (compat.wrap_single === 'data') return { data: value };
	return value;
}

const escapeHtml = (s) =>
	s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** Content type and body text of an error response in the current error style. */
function errorPayload(compat, err) {
	const { status, code, message, details } = err;
	switch (compat.error_style) {
		case 'message':
			return json({ message });
		case 'string':
			return json({ error: message });
		case 'errors':
			return json({
				errors: details
					? details.map((d) => ({ field: d.field, message: d.message }))
					: [{ message }],
			});
		case 'text':
			return { type: 'text/plain; charset=utf-8', text: `${message}\ncode: ${code}\n` };
		case 'html': {
			const reason = `${status} ${http.STATUS_CODES[status] ?? 'Error'}`;
			return {
				type: 'text/html; charset=utf-8',
				text: `<html>\r\n<head><title>${reason}</title></head>\r\n<body>\r\n<center><h1>${reason}</h1></center>\r\n<p>${escapeHtml(message)}</p>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
			};
		}
		default:
			return json({ error: details ? { code, message, details } : { code, message } });
	}
}
const json = (value) => ({ type: 'application/json', text: JSON.stringify(value) });

module.exports = {
	DEFAULT_COMPAT,
	PROFILES,
	profileOf,
	mergeCompat,
	listJson,
	idKey,
	recordView,
	singleBody,
	errorPayload,
	objectEventData,
};

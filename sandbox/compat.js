'use strict';
// Compatibility modes (admin PUT /__admin/compat): the sandbox can answer like a service that decided the
// contract's "not shown" points differently, one tolerated alternative at a time (contract rows 4, 5, 6, 10).
// The default of every setting is the contract's own decision.
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
});

const CHOICES = {
	list_envelope: ['resource', 'data', 'items', 'array'],
	pagination: ['full', 'has_more', 'next_page', 'total_pages', 'none'],
	error_style: ['contract', 'message', 'string', 'errors', 'text', 'html'],
	wrap_single: [null, 'resource', 'data'],
	// 'id': products and orders listed oldest id first, as a service that never decided contract row 21 might.
	list_order: ['recent', 'id'],
};

/** Validates a (partial) compat body and returns the merged settings. */
function mergeCompat(current, body) {
	const details = [];
	const next = { ...current };
	for (const [key, value] of Object.entries(body ?? {})) {
		if (CHOICES[key]) {
			if (!CHOICES[key].includes(value)) details.push({ field: key, message: `must be one of: ${CHOICES[key].map(String).join(', ')}` });
		} else if (key === 'page_size_cap') {
			if (value !== null && (!Number.isInteger(value) || value < 1)) details.push({ field: key, message: 'must be a positive integer or null' });
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
			body.pagination = { page: p.page, limit: p.limit, total: p.total, total_pages: totalPages, has_more: hasMore, next_page: hasMore ? p.page + 1 : null };
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
	}
	return body;
}

/** A single resource, bare or wrapped as {<resource>: …} / {data: …}. */
function singleBody(compat, resource, value) {
	if (compat.wrap_single === 'resource') return { [resource]: value };
	if (compat.wrap_single === 'data') return { data: value };
	return value;
}

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** Content type and body text of an error response in the current error style. */
function errorPayload(compat, err) {
	const { status, code, message, details } = err;
	switch (compat.error_style) {
		case 'message':
			return json({ message });
		case 'string':
			return json({ error: message });
		case 'errors':
			return json({ errors: details ? details.map((d) => ({ field: d.field, message: d.message })) : [{ message }] });
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

module.exports = { DEFAULT_COMPAT, mergeCompat, listJson, singleBody, errorPayload };

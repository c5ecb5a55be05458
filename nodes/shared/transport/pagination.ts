// Pagination rules (docs/api-contract.md row 6): where the pagination fields are, when a walk ends.
import type { IDataObject } from 'n8n-workflow';

import { isObject } from './envelope';
import { recordId } from './identity';

export interface Page {
	items: IDataObject[];
	/** Next page number, or undefined when this page was the last one. */
	nextPage: number | undefined;
	/** The list's length as the service reports it (`total`), when it does. */
	total?: number;
	/** How many pages the list has, where the service says it (pagesOf). */
	pages?: number;
}

/** A count the service gives: a whole number of 0 or more, or its text. */
export function countIn(value: unknown): number | undefined {
	const count = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
}

/**
 * The list's pages, wherever the service says how long it is: `total_pages` or `last_page`, else `total` items in pages
 * as long as this one (a full page of `size` where this is the last), at the top level, in `meta` or `pagination`.
 */
export function pagesOf(meta: IDataObject, size: number, count: number): number | undefined {
	const pages = countIn(meta.total_pages) ?? countIn(meta.last_page);
	if (pages !== undefined) return Math.max(1, pages);
	const total = countIn(meta.total);
	if (total === undefined) return undefined;
	return Math.max(1, Math.ceil(total / Math.max(1, total > count ? count : size)));
}

/** Pagination fields wherever the service puts them: top level, `meta` or `pagination`. */
export function paginationMeta(body: unknown): IDataObject {
	if (!isObject(body)) return {};
	return {
		...body,
		...(isObject(body.meta) ? body.meta : {}),
		...(isObject(body.pagination) ? body.pagination : {}),
	};
}

/**
 * The next page by the contract's end signals (row 6). Without one, only a page shorter than the first ends the walk,
 * so a silent size cap is not taken for the end (a short first page costs one more request).
 */
export function nextPageNumber(
	meta: IDataObject,
	page: number,
	count: number,
	firstPageCount: number,
	collected: number,
): number | undefined {
	if (count === 0 || meta.has_more === false) return undefined;
	const total = countIn(meta.total);
	if (total !== undefined && collected >= total) return undefined;
	if ('next_page' in meta) {
		// null, absent or not a later page (Number(null) is 0): the end.
		const next = Number(meta.next_page);
		return Number.isInteger(next) && next > page ? next : undefined;
	}
	const pages = countIn(meta.total_pages) ?? countIn(meta.last_page);
	if (pages !== undefined) return page >= pages ? undefined : page + 1;
	if (meta.has_more === true) return page + 1;
	if (page > 1 && count < firstPageCount) return undefined;
	return page + 1;
}

/** Cheap fingerprint of a page, to stop when a service ignoring `page` serves the same page again. */
export function pageSignature(items: IDataObject[], resourceKey: string): string {
	const ids = items.map((item) => recordId(item, resourceKey));
	if (ids.every((id) => id !== undefined)) return ids.join('\u0000');
	return JSON.stringify(items);
}

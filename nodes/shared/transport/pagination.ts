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
	if (typeof meta.total === 'number' && collected >= meta.total) return undefined;
	if ('next_page' in meta) {
		// null, absent or not a later page (Number(null) is 0): the end.
		const next = Number(meta.next_page);
		return Number.isInteger(next) && next > page ? next : undefined;
	}
	if (typeof meta.total_pages === 'number') return page >= meta.total_pages ? undefined : page + 1;
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

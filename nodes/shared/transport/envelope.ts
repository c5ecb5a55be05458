// JSON envelopes of the Storefront API (docs/api-contract.md rows 1-6): where a record or a list sits in a body.
import type { IDataObject } from 'n8n-workflow';

import { recordId } from './identity';

export function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The list of a list response: under the resource key, `data`, `items`, `results`, or a bare array. */
export function unwrapList(body: unknown, resourceKey: string): IDataObject[] | undefined {
	if (Array.isArray(body)) return body as IDataObject[];
	if (!isObject(body)) return undefined;
	const lists = [body[resourceKey], body.data, body.items, body.results];
	return lists.find((list) => Array.isArray(list)) as IDataObject[] | undefined;
}

/** A single resource, unwrapped from `{product: …}` / `{data: …}` when the service wraps it (a body without an id). */
export function unwrapSingle(body: unknown, resourceKey: string): IDataObject {
	if (!isObject(body)) return {};
	if (recordId(body, resourceKey) !== undefined) return body;
	return [body[resourceKey], body.data].find(isObject) ?? body;
}

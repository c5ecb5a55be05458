// JSON envelopes of the Storefront API (docs/api-contract.md rows 1-6): where a record or a list sits in a body.
import type { IDataObject } from 'n8n-workflow';

import { recordId } from './identity';

const LIST_KEYS = ['data', 'items', 'results'];

export function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The list of a list response: under the resource key, `data`, `items`, `results`, or a bare array. */
export function unwrapList(body: unknown, resourceKey: string): IDataObject[] | undefined {
	if (Array.isArray(body)) return body as IDataObject[];
	if (!isObject(body)) return undefined;
	for (const key of [resourceKey, ...LIST_KEYS]) {
		if (Array.isArray(body[key])) return body[key] as IDataObject[];
	}
	return undefined;
}

/** A single resource, unwrapped from `{product: …}` / `{data: …}` when the service wraps it (a body without an id). */
export function unwrapSingle(body: unknown, resourceKey: string): IDataObject {
	if (!isObject(body)) return {};
	if (recordId(body, resourceKey) === undefined) {
		for (const key of [resourceKey, 'data']) {
			if (isObject(body[key])) return body[key] as IDataObject;
		}
	}
	return body;
}

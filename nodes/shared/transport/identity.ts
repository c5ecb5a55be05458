// A record's identity, the one rule for every path that reads an id from a record (docs/api-contract.md row 22): the
// contract says `id`, the spec's only record shape says `order_id`, so `<resource>_id` is accepted too.
import type { IDataObject } from 'n8n-workflow';

/** Where a record's id may be, in the order tried: `id`, then `order_id` for `orders` or `order` (list, record key). */
const idFields = (resource: string) => ['id', `${resource.replace(/s$/, '')}_id`];

/** The record's id as a string, if it has one under an accepted name. */
export function recordId(
	record: IDataObject,
	resource: string,
	fields = idFields(resource),
): string | undefined {
	for (const field of fields) {
		const value = record[field];
		if (typeof value === 'string' ? value !== '' : Number.isFinite(value)) return String(value);
	}
	return undefined;
}

/** The id of an event's record, `<resource>_id` first: its data may be another object (a payment `{id, order_id}`). */
export const eventRecordId = (data: IDataObject, resource: string) =>
	recordId(data, resource, idFields(resource).reverse());

/** `"id" or "order_id"`: the fields named in errors and warnings about records without an id. */
export function idFieldNames(resource: string): string {
	return idFields(resource)
		.map((field) => `"${field}"`)
		.join(' or ');
}

// A record's identity (docs/api-contract.md row 22), the one rule every path that reads an id from a record uses:
// resource-locator lists, page fingerprints, wrapped single records, the AI tools' simplified records and the
// polling trigger. The contract names a record's id `id`; the spec's only record shape (the webhook's order) names
// it `order_id`, its items' `product_id`, so a service may well key its records `<resource>_id` alone.
import type { IDataObject } from 'n8n-workflow';

/** Where a record's id may be, in the order tried: `id`, then `order_id` for `orders` or `order` (list, record key). */
const idFields = (resource: string) => ['id', `${resource.replace(/s$/, '')}_id`];

/** The record's id as a string, or undefined when it has none under any accepted name. */
export function recordId(
	record: IDataObject,
	resource: string,
	fields = idFields(resource),
): string | undefined {
	for (const field of fields) {
		const value = record[field];
		if (
			(typeof value === 'string' && value !== '') ||
			(typeof value === 'number' && Number.isFinite(value))
		) {
			return String(value);
		}
	}
	return undefined;
}

/**
 * The id of the record an event is about: `<resource>_id` first, then `id`. An event's data may be another object that
 * names the record (a payment `{id: "pay_…", order_id}`), while a record's own `<resource>_id` is its id.
 */
export const eventRecordId = (data: IDataObject, resource: string) =>
	recordId(data, resource, idFields(resource).reverse());

/** `"id" or "order_id"`: the fields named in errors and warnings about records without an id. */
export function idFieldNames(resource: string): string {
	return idFields(resource)
		.map((field) => `"${field}"`)
		.join(' or ');
}

/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The sandbox profile a suite runs against (sandbox/compat.js): the contract's decisions (jest project `unit`, matrix
// cells by default), or the spec read literally (project `unit-spec-literal`, jest.config.js: SANDBOX_PROFILE; the
// matrix cell 2/community/spec-literal: E2E_PROFILE). What differs is written here once, from the profile's definition
// (sandbox/compat.js PROFILES), never from the node's code.
import { PROFILES, recentFirst, type Json } from './sandbox';

export type Profile = 'contract' | 'spec-literal';
export const PROFILE = (process.env.SANDBOX_PROFILE ??
	process.env.E2E_PROFILE ??
	'contract') as Profile;
export const SPEC_LITERAL = PROFILE === 'spec-literal';

/** The profile's definition: every compat setting and whether X-RateLimit-* headers are sent. */
const DEFINITION = PROFILES[PROFILE];
if (!DEFINITION)
	throw new Error(
		`The profile "${PROFILE}" (SANDBOX_PROFILE, E2E_PROFILE) is not a sandbox profile (${Object.keys(PROFILES).join(', ')})`,
	);
const COMPAT = DEFINITION.compat;

export type Resource = 'store' | 'product' | 'order' | 'customer';

/** Where the service's records keep their own id: `id`, or `product_id` / `order_id` / … on spec-literal. */
export const idKey = (resource: Resource) =>
	COMPAT.record_ids === 'resource' ? `${resource}_id` : 'id';

/** Ids in id order, i.e. of creation (length first, so prod_100000 follows prod_99999). */
const idOrder = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** Products or orders in the order the API lists them: most recently changed first, or oldest id first. */
export function listed<T extends Record<string, Json>>(records: Iterable<T>): T[] {
	return COMPAT.list_order === 'id'
		? [...records].sort((a, b) => idOrder(String(a.id), String(b.id)))
		: recentFirst(records);
}

/** The ids of products or orders in list order. */
export const listedIds = (records: Iterable<Record<string, Json>>): string[] =>
	listed(records).map((r) => String(r.id));

/** The status `POST /products` answers a created product with: 201, or 200 on spec-literal. */
export const CREATE_STATUS = COMPAT.create_status as number;

/**
 * Whether the service's error bodies carry field-level validation details (the contract's `{error: {details}}`),
 * or only the summary sentence (spec-literal's `{message}`).
 */
export const ERROR_DETAILS = ['contract', 'errors'].includes(COMPAT.error_style as string);

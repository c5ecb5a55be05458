/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The nodes and the sandbox each keep their own copy of the contract's lists (a real service has its own);
// these assertions keep the two copies equal, so neither can drift from docs/api-contract.md alone.
import { readFileSync } from 'fs';
import path from 'path';

import {
	EVENT_KINDS,
	MAX_PAGE_SIZE,
	ORDER_STATUSES,
	ORDER_TRANSITIONS,
	PRODUCT_STATUSES,
	RATE_LIMIT_PLANS,
} from '../nodes/shared/constants';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const catalog = require('../sandbox/catalog');

const contract = readFileSync(path.join(__dirname, '../docs/api-contract.md'), 'utf8');

test('event kinds: nodes, sandbox and contract agree', () => {
	const kinds = EVENT_KINDS.map((k) => k.value);
	expect(kinds).toEqual(catalog.EVENT_KINDS);
	for (const kind of kinds) expect(contract).toContain(`\`${kind}\``);
});

test('order statuses: nodes, sandbox and contract agree, and every status is reachable or initial', () => {
	const statuses = ORDER_STATUSES.map((s) => s.value);
	expect(statuses).toEqual(catalog.ORDER_STATUSES);
	expect(Object.keys(catalog.ORDER_TRANSITIONS).sort()).toEqual([...statuses].sort());
	expect(ORDER_TRANSITIONS).toEqual(catalog.ORDER_TRANSITIONS);
	const reachable = new Set(
		Object.values(catalog.ORDER_TRANSITIONS as Record<string, string[]>).flat(),
	);
	expect(statuses.filter((s) => s !== 'pending' && !reachable.has(s))).toEqual([]);
	// The node's option descriptions name the statuses each one is allowed from: check them against the sandbox.
	for (const status of ORDER_STATUSES) {
		const from = Object.entries(catalog.ORDER_TRANSITIONS as Record<string, string[]>)
			.filter(([, to]) => to.includes(status.value))
			.map(([name]) => name.charAt(0).toUpperCase() + name.slice(1));
		for (const name of from) expect(status.description).toContain(name);
	}
});

test('product statuses, page size and plans agree', () => {
	expect(PRODUCT_STATUSES.map((s) => s.value)).toEqual(catalog.PRODUCT_STATUSES);
	expect(MAX_PAGE_SIZE).toBe(catalog.MAX_PAGE_SIZE);
	for (const plan of Object.values(
		catalog.PLANS as Record<string, { name: string; limit: number | null }>,
	)) {
		expect(RATE_LIMIT_PLANS).toContain(
			plan.limit === null ? `${plan.name} unlimited` : `${plan.name} ${plan.limit}/min`,
		);
	}
});

'use strict';
// The sandbox's own lists, kept apart from the node code as a real service would keep them
// (docs/api-contract.md rows 7, 12, 15, 16); test/contract.test.ts compares them with nodes/shared/constants.ts.

const EVENT_KINDS = [
	'order.created',
	'order.updated',
	'payment.completed',
	'product.created',
	'inventory.low',
];

const ORDER_STATUSES = ['pending', 'processing', 'shipped', 'delivered', 'cancelled', 'refunded'];
/** Statuses a service with more of them has (WooCommerce's "on-hold"): known under compat order_transitions 'any'. */
const MORE_ORDER_STATUSES = ['on-hold'];

/** Allowed moves between order statuses; `cancelled` and `refunded` are final. */
const ORDER_TRANSITIONS = {
	pending: ['processing', 'cancelled'],
	processing: ['shipped', 'cancelled'],
	shipped: ['delivered'],
	delivered: ['refunded'],
	cancelled: [],
	refunded: [],
};

/** Orders whose totals do not count as revenue (or as a customer's spending). */
const NON_REVENUE_STATUSES = ['cancelled', 'refunded'];

const PRODUCT_STATUSES = ['active', 'draft', 'archived'];

/** Requests per fixed one-minute window; `null` = unlimited. */
const PLANS = {
	starter: { name: 'Starter', limit: 100 },
	pro: { name: 'Pro', limit: 500 },
	business: { name: 'Business', limit: null },
};

const RATE_WINDOW_MS = 60_000;
const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;
const MAX_BODY_BYTES = 1024 * 1024;
const LOW_STOCK_THRESHOLD = 5;

const DEFAULT_KEYS = [
	{ key: 'sf_test_demo', plan: 'business' },
	{ key: 'sf_test_pro', plan: 'pro' },
	{ key: 'sf_test_starter', plan: 'starter' },
];
const DEFAULT_WEBHOOK_SECRET = 'whsec_demo';
const DEFAULT_SIZES = { products: 3000, orders: 1200, customers: 400 };
const DEFAULT_SEED = 42;
const STORE_ID = 'store_001';

module.exports = {
	EVENT_KINDS,
	ORDER_STATUSES,
	MORE_ORDER_STATUSES,
	ORDER_TRANSITIONS,
	NON_REVENUE_STATUSES,
	PRODUCT_STATUSES,
	PLANS,
	RATE_WINDOW_MS,
	MAX_PAGE_SIZE,
	DEFAULT_PAGE_SIZE,
	MAX_BODY_BYTES,
	LOW_STOCK_THRESHOLD,
	DEFAULT_KEYS,
	DEFAULT_WEBHOOK_SECRET,
	DEFAULT_SIZES,
	DEFAULT_SEED,
	STORE_ID,
};

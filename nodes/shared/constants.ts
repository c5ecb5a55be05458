// Lists defined once for the whole package (docs/api-contract.md rows 7, 12, 15, 16). The sandbox keeps its
// own copy, as a real service would; test/contract.test.ts asserts the two agree.

export const EVENT_KINDS = [
	{ value: 'order.created', name: 'Order Created', description: 'A new order is created (checkout completed)' },
	{ value: 'order.updated', name: 'Order Updated', description: "An order's status changes" },
	{ value: 'payment.completed', name: 'Payment Completed', description: 'A payment for an order is completed' },
	{ value: 'product.created', name: 'Product Created', description: 'A new product is created' },
	{ value: 'inventory.low', name: 'Inventory Low', description: "A product's stock falls to its low-stock threshold" },
] as const;

export type EventKind = (typeof EVENT_KINDS)[number]['value'];

/** The event kinds as both triggers' Events parameter offers them, by name. */
export const EVENT_OPTIONS = [...EVENT_KINDS]
	.sort((a, b) => a.name.localeCompare(b.name))
	.map(({ name, value, description }) => ({ name, value, description }));

export const ORDER_STATUSES = [
	{ value: 'pending', name: 'Pending', description: 'New order, not yet processed' },
	{ value: 'processing', name: 'Processing', description: 'Being prepared (allowed from Pending)' },
	{ value: 'shipped', name: 'Shipped', description: 'Handed to the carrier (allowed from Processing)' },
	{ value: 'delivered', name: 'Delivered', description: 'Received by the customer (allowed from Shipped)' },
	{ value: 'cancelled', name: 'Cancelled', description: 'Cancelled; final (allowed from Pending or Processing)' },
	{ value: 'refunded', name: 'Refunded', description: 'Refunded; final (allowed from Delivered)' },
] as const;

export const PRODUCT_STATUSES = [
	{ value: 'active', name: 'Active' },
	{ value: 'draft', name: 'Draft' },
	{ value: 'archived', name: 'Archived' },
] as const;

/** Largest page the API serves (contract row 7); Return All asks for exactly this. */
export const MAX_PAGE_SIZE = 100;

/** Plans and their per-minute request limits (spec, Limits); named in rate-limit error messages. */
export const RATE_LIMIT_PLANS = 'Starter 100/min, Pro 500/min, Business unlimited';

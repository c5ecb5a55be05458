// Lists defined once for the whole package (docs/api-contract.md rows 7, 12, 15, 16). The sandbox keeps its
// own copy, as a real service would; test/contract.test.ts asserts the two agree.

export const EVENT_KINDS = [
	{
		value: 'order.created',
		name: 'Order Created',
		description: 'A new order is created (checkout completed)',
	},
	{ value: 'order.updated', name: 'Order Updated', description: "An order's status changes" },
	{
		value: 'payment.completed',
		name: 'Payment Completed',
		description: 'A payment for an order is completed',
	},
	{ value: 'product.created', name: 'Product Created', description: 'A new product is created' },
	{
		value: 'inventory.low',
		name: 'Inventory Low',
		description: "A product's stock falls to its low-stock threshold",
	},
] as const;

export type EventKind = (typeof EVENT_KINDS)[number]['value'];

/** The event kinds as both triggers' Events parameter offers them, by name. */
export const EVENT_OPTIONS = [...EVENT_KINDS]
	.sort((a, b) => a.name.localeCompare(b.name))
	.map(({ name, value, description }) => ({ name, value, description }));

/** The moves an order's status may make (contract row 12); setting the current status again changes nothing. */
export const ORDER_TRANSITIONS = {
	pending: ['processing', 'cancelled'],
	processing: ['shipped', 'cancelled'],
	shipped: ['delivered'],
	delivered: ['refunded'],
	cancelled: [],
	refunded: [],
} as const;

type OrderStatus = keyof typeof ORDER_TRANSITIONS;
const capitalised = (status: string) => status.charAt(0).toUpperCase() + status.slice(1);
const moves = Object.entries(ORDER_TRANSITIONS) as Array<[OrderStatus, readonly string[]]>;

/** "pending → processing or cancelled; …": the allowed moves, as the Status parameter and the tool say them. */
export const ORDER_MOVES = moves
	.filter(([, to]) => to.length > 0)
	.map(([from, to]) => `${from} → ${to.join(' or ')}`)
	.join('; ');

const orderStatus = (value: OrderStatus, description: string) => {
	const from = moves.filter(([, to]) => to.includes(value)).map(([status]) => capitalised(status));
	return {
		value,
		name: capitalised(value),
		description: from.length ? `${description} (allowed from ${from.join(' or ')})` : description,
	};
};

export const ORDER_STATUSES = [
	orderStatus('pending', 'New order, not yet processed'),
	orderStatus('processing', 'Being prepared'),
	orderStatus('shipped', 'Handed to the carrier'),
	orderStatus('delivered', 'Received by the customer'),
	orderStatus('cancelled', 'Cancelled; final'),
	orderStatus('refunded', 'Refunded; final'),
];

export const PRODUCT_STATUSES = [
	{ value: 'active', name: 'Active' },
	{ value: 'draft', name: 'Draft' },
	{ value: 'archived', name: 'Archived' },
] as const;

/** Largest page the API serves (contract row 7); Return All asks for exactly this. */
export const MAX_PAGE_SIZE = 100;

/** Plans and their per-minute request limits (spec, Limits); named in rate-limit error messages. */
export const RATE_LIMIT_PLANS = 'Starter 100/min, Pro 500/min, Business unlimited';

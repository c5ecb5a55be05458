'use strict';
// Deterministic demo data: the same seed and sizes always give the same store, byte for byte.
const { STORE_ID } = require('./catalog');

/** mulberry32: tiny, fast, good enough for demo data, and identical on every Node version. */
function createRng(seed) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const int = (min, max) => min + Math.floor(next() * (max - min + 1));
	const pick = (list) => list[Math.floor(next() * list.length)];
	return { next, int, pick };
}

const pad = (n) => String(n).padStart(5, '0');
const round2 = (n) => Math.round(n * 100) / 100;

// Seeded timestamps are fixed (not "now") so that a seed always yields the same records.
const SEED_EPOCH = Date.parse('2026-06-01T00:00:00.000Z');
const DAY = 86_400_000;

const CATEGORIES = [
	{
		name: 'Apparel',
		sku: 'APP',
		price: [12, 120],
		nouns: [
			'T-Shirt',
			'Hoodie',
			'Denim Jacket',
			'Chinos',
			'Flannel Shirt',
			'Rain Jacket',
			'Wool Sweater',
			'Polo Shirt',
		],
	},
	{
		name: 'Footwear',
		sku: 'FTW',
		price: [35, 220],
		nouns: [
			'Running Shoes',
			'Leather Boots',
			'Sneakers',
			'Sandals',
			'Hiking Boots',
			'Loafers',
			'Slippers',
		],
	},
	{
		name: 'Home & Kitchen',
		sku: 'HOM',
		price: [8, 180],
		nouns: [
			'Chef Knife',
			'Cast Iron Skillet',
			'French Press',
			'Cutting Board',
			'Dutch Oven',
			'Mixing Bowl Set',
			'Tea Kettle',
		],
	},
	{
		name: 'Electronics',
		sku: 'ELE',
		price: [15, 900],
		nouns: [
			'Wireless Earbuds',
			'Bluetooth Speaker',
			'USB-C Charger',
			'Smart Watch',
			'Desk Lamp',
			'Mechanical Keyboard',
			'Webcam',
		],
	},
	{
		name: 'Beauty',
		sku: 'BEA',
		price: [6, 85],
		nouns: [
			'Face Serum',
			'Lip Balm',
			'Body Lotion',
			'Shampoo',
			'Hand Cream',
			'Sunscreen',
			'Face Mask',
		],
	},
	{
		name: 'Sports & Outdoors',
		sku: 'SPO',
		price: [10, 350],
		nouns: [
			'Yoga Mat',
			'Water Bottle',
			'Camping Tent',
			'Backpack',
			'Trekking Poles',
			'Sleeping Bag',
			'Headlamp',
		],
	},
	{
		name: 'Toys & Games',
		sku: 'TOY',
		price: [7, 90],
		nouns: [
			'Puzzle',
			'Board Game',
			'Building Blocks',
			'Plush Bear',
			'Kite',
			'Card Game',
			'Train Set',
		],
	},
	{
		name: 'Books',
		sku: 'BOO',
		price: [8, 45],
		nouns: ['Cookbook', 'Field Guide', 'Notebook', 'Travel Journal', 'Sketchbook', 'Atlas'],
	},
	{
		name: 'Garden',
		sku: 'GAR',
		price: [5, 260],
		nouns: ['Planter', 'Pruning Shears', 'Garden Hose', 'Seed Kit', 'Watering Can', 'Raised Bed'],
	},
	{
		name: 'Pet Supplies',
		sku: 'PET',
		price: [6, 140],
		nouns: ['Dog Leash', 'Cat Tree', 'Pet Bed', 'Chew Toy', 'Food Bowl', 'Grooming Brush'],
	},
	{
		name: 'Jewelry',
		sku: 'JEW',
		price: [20, 600],
		nouns: ['Necklace', 'Bracelet', 'Earrings', 'Ring', 'Pendant', 'Anklet'],
	},
	{
		name: 'Office',
		sku: 'OFF',
		price: [4, 400],
		nouns: [
			'Desk Organizer',
			'Fountain Pen',
			'Office Chair',
			'Monitor Stand',
			'Planner',
			'Stapler',
		],
	},
];
const ADJECTIVES = [
	'Classic',
	'Everyday',
	'Premium',
	'Organic',
	'Vintage',
	'Compact',
	'Deluxe',
	'Essential',
	'Eco',
	'Urban',
	'Alpine',
	'Coastal',
	'Nordic',
	'Heritage',
	'Lightweight',
	'Signature',
];
const COLORS = [
	'Black',
	'White',
	'Navy',
	'Olive',
	'Sand',
	'Charcoal',
	'Rust',
	'Sage',
	'Slate',
	'Ivory',
	'Teal',
	'Burgundy',
];
const MATERIALS = [
	'cotton',
	'recycled materials',
	'stainless steel',
	'bamboo',
	'leather',
	'aluminium',
	'oak',
	'merino wool',
	'ceramic',
	'canvas',
];
const FIRST_NAMES = [
	'Olivia',
	'Liam',
	'Emma',
	'Noah',
	'Ava',
	'Elijah',
	'Sophia',
	'Lucas',
	'Mia',
	'Mateo',
	'Amelia',
	'Levi',
	'Harper',
	'Kai',
	'Aisha',
	'Yuki',
	'Priya',
	'Diego',
	'Chloe',
	'Omar',
	'Ingrid',
	'Tariq',
	'Lena',
	'Marco',
	'Zoe',
	'Hiro',
	'Fatima',
	'Jonas',
	'Camila',
	'Arjun',
];
const LAST_NAMES = [
	'Smith',
	'Johnson',
	'Garcia',
	'Nguyen',
	'Kim',
	'Patel',
	'Müller',
	'Rossi',
	'Silva',
	'Okafor',
	'Andersen',
	'Kowalski',
	'Dubois',
	'Tanaka',
	'Haddad',
	'Murphy',
	'Costa',
	'Novak',
	'Schmidt',
	'Lopez',
	'Chen',
	'Brown',
	'Ivanova',
	'Moreau',
];
const STATUS_WEIGHTS = {
	pending: 10,
	processing: 15,
	shipped: 15,
	delivered: 45,
	cancelled: 8,
	refunded: 7,
};

function weighted(rng, weights) {
	let r = rng.next() * Object.values(weights).reduce((a, b) => a + b, 0);
	for (const [value, weight] of Object.entries(weights)) {
		if ((r -= weight) < 0) return value;
	}
	return Object.keys(weights)[0];
}

const iso = (ms) => new Date(ms).toISOString();
const ascii = (s) =>
	s
		.normalize('NFD')
		.replace(/[^\x20-\x7e]/g, '')
		.toLowerCase();

function seedStore() {
	return {
		id: STORE_ID,
		name: 'Northwind Outfitters',
		domain: 'northwind-outfitters.example',
		currency: 'USD',
		timezone: 'America/New_York',
		plan: 'business',
		created_at: iso(SEED_EPOCH - 400 * DAY),
	};
}

/** Builds the whole data set: {store, products, customers, orders, seq}. */
function generate(seed, sizes) {
	const rng = createRng(seed);
	const store = seedStore();

	const products = [];
	for (let i = 1; i <= sizes.products; i++) {
		const category = rng.pick(CATEGORIES);
		const noun = rng.pick(category.nouns);
		const color = rng.pick(COLORS);
		const created =
			SEED_EPOCH -
			365 * DAY +
			Math.floor((i / Math.max(1, sizes.products)) * 300 * DAY) +
			rng.int(0, DAY - 1);
		const lowStock = rng.next() < 0.06;
		products.push({
			id: `prod_${pad(i)}`,
			store_id: STORE_ID,
			name: `${rng.pick(ADJECTIVES)} ${noun} - ${color}`,
			description: `${color} ${noun.toLowerCase()} made from ${rng.pick(MATERIALS)}.`,
			sku: `${category.sku}-${pad(i)}`,
			category: category.name,
			price: round2(rng.int(category.price[0], category.price[1]) - 0.01 * rng.pick([1, 1, 5, 51])),
			currency: store.currency,
			stock: lowStock ? rng.int(0, 5) : rng.int(6, 250),
			status: weighted(rng, { active: 90, draft: 7, archived: 3 }),
			images: [`https://cdn.storefront.example/products/prod_${pad(i)}/1.jpg`],
			created_at: iso(created),
			updated_at: iso(created + rng.int(0, 30) * DAY),
		});
	}

	const customers = [];
	for (let i = 1; i <= sizes.customers; i++) {
		const first = rng.pick(FIRST_NAMES);
		const last = rng.pick(LAST_NAMES);
		customers.push({
			id: `cus_${pad(i)}`,
			store_id: STORE_ID,
			name: `${first} ${last}`,
			email: `${ascii(first)}.${ascii(last)}${i}@example.com`,
			orders_count: 0,
			total_spent: 0,
			created_at: iso(
				SEED_EPOCH - 380 * DAY + Math.floor((i / Math.max(1, sizes.customers)) * 200 * DAY),
			),
		});
	}

	const sellable = products.filter((p) => p.status === 'active');
	const orders = [];
	for (let i = 1; i <= sizes.orders && sellable.length > 0 && customers.length > 0; i++) {
		const customer = rng.pick(customers);
		const items = [];
		const count = rng.int(1, 4);
		for (let k = 0; k < count; k++) {
			const product = rng.pick(sellable);
			if (items.some((it) => it.product_id === product.id)) continue;
			items.push({
				product_id: product.id,
				name: product.name,
				quantity: rng.int(1, 3),
				price: product.price,
			});
		}
		const status = weighted(rng, STATUS_WEIGHTS);
		const created =
			SEED_EPOCH -
			180 * DAY +
			Math.floor((i / Math.max(1, sizes.orders)) * 179 * DAY) +
			rng.int(0, DAY - 1);
		const updated = status === 'pending' ? created : created + rng.int(1, 6 * 24) * 3_600_000;
		const paid = status !== 'pending' && !(status === 'cancelled' && rng.next() < 0.5);
		const total = round2(items.reduce((sum, it) => sum + it.price * it.quantity, 0));
		// A payment changes the order too (contract row 21's updated_at). Changes that would fall after the seed's end
		// are put just before it, one millisecond apart in order-id order, so seeded orders never share an updated_at
		// there (a poller's cursor would re-read them all) and paid_at never runs ahead of updated_at.
		let paidAt = paid ? created + rng.int(1, 120) * 60_000 : null;
		let changedAt = paidAt === null ? updated : Math.max(updated, paidAt);
		if (changedAt > SEED_EPOCH) changedAt = Math.max(created, SEED_EPOCH - (sizes.orders - i) - 1);
		if (paidAt !== null && paidAt > changedAt) paidAt = changedAt;
		orders.push({
			id: `ord_${pad(i)}`,
			store_id: STORE_ID,
			customer_id: customer.id,
			status,
			total,
			currency: store.currency,
			items,
			created_at: iso(created),
			updated_at: iso(changedAt),
			paid_at: paidAt === null ? null : iso(paidAt),
		});
		customer.orders_count++;
		if (status !== 'cancelled' && status !== 'refunded')
			customer.total_spent = round2(customer.total_spent + total);
	}

	return {
		store,
		products,
		customers,
		orders,
		seed,
		sizes: { ...sizes },
		seq: { product: products.length, order: orders.length, customer: customers.length, payment: 0 },
	};
}

module.exports = { createRng, generate, round2, pad };

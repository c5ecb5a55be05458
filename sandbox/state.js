'use strict';
// The store's live data and every state change the API and the admin simulations can make. Each change
// validates everything first and writes only afterwards, so a failed request never leaves half a change.
const crypto = require('crypto');
const {
	ORDER_STATUSES,
	MORE_ORDER_STATUSES,
	ORDER_TRANSITIONS,
	NON_REVENUE_STATUSES,
	PRODUCT_STATUSES,
	LOW_STOCK_THRESHOLD,
} = require('./catalog');
const { generate, createRng, round2, pad } = require('./seed');
const { ApiError, validationError, notFound } = require('./errors');

const PRODUCT_FIELDS = [
	'name',
	'price',
	'description',
	'sku',
	'category',
	'stock',
	'currency',
	'status',
	'images',
];
const READ_ONLY_FIELDS = ['id', 'store_id', 'created_at', 'updated_at'];

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isHttpUrl = (s) => {
	try {
		const u = new URL(s);
		return u.protocol === 'http:' || u.protocol === 'https:';
	} catch {
		return false;
	}
};

/** Field rules of contract row 1; each returns an error message or undefined. */
const PRODUCT_RULES = {
	name: (v) =>
		typeof v !== 'string' || v.trim() === ''
			? 'must be a non-empty string'
			: v.length > 200
				? 'must be at most 200 characters'
				: undefined,
	price: (v) =>
		typeof v !== 'number' || !Number.isFinite(v) || v < 0 ? 'must be a number >= 0' : undefined,
	description: (v) => (v !== null && typeof v !== 'string' ? 'must be a string' : undefined),
	sku: (v) => (v !== null && typeof v !== 'string' ? 'must be a string' : undefined),
	category: (v) => (v !== null && typeof v !== 'string' ? 'must be a string' : undefined),
	stock: (v) => (!Number.isInteger(v) || v < 0 ? 'must be an integer >= 0' : undefined),
	currency: (v) =>
		typeof v !== 'string' || !/^[A-Za-z]{3}$/.test(v)
			? 'must be a three-letter currency code'
			: undefined,
	status: (v) =>
		!PRODUCT_STATUSES.includes(v) ? `must be one of: ${PRODUCT_STATUSES.join(', ')}` : undefined,
	images: (v) =>
		!Array.isArray(v) || v.some((u) => typeof u !== 'string' || !isHttpUrl(u))
			? 'must be an array of http(s) URL strings'
			: undefined,
};

function requireObjectBody(body) {
	if (!isPlainObject(body))
		throw validationError([{ field: 'body', message: 'must be a JSON object' }]);
}

class State {
	/**
	 * @param {{seed: number, sizes: {products: number, orders: number, customers: number}, lowStockThreshold?: number,
	 *   data?: object, emit: (type: string, data: object) => void}} opts `data`: a snapshot to load instead of seeding
	 */
	constructor(opts) {
		this.threshold = opts.lowStockThreshold ?? LOW_STOCK_THRESHOLD;
		this.emit = opts.emit;
		/** Bumped on every data change; list caches compare against it. */
		this.rev = 0;
		if (opts.data) this.load(opts.data);
		else this.reset(opts.seed, opts.sizes);
	}

	reset(seed, sizes) {
		this.load(generate(seed, sizes));
	}

	load(data) {
		this.store = data.store;
		this.products = new Map(data.products.map((p) => [p.id, p]));
		this.orders = new Map(data.orders.map((o) => [o.id, o]));
		this.customers = new Map(data.customers.map((c) => [c.id, c]));
		this.seq = { ...data.seq };
		this.seed = data.seed;
		this.sizes = { ...data.sizes };
		this.changed();
	}

	toJSON() {
		return {
			version: 1,
			seed: this.seed,
			sizes: this.sizes,
			store: this.store,
			products: [...this.products.values()],
			orders: [...this.orders.values()],
			customers: [...this.customers.values()],
			seq: this.seq,
		};
	}

	changed() {
		this.rev++;
		this.lists = new Map();
		this.json = new Map();
	}

	/** A record's JSON text, memoised until the next change: list pages are joined from these. */
	jsonOf(record) {
		let text = this.json.get(record.id);
		if (text === undefined) {
			text = JSON.stringify(record);
			this.json.set(record.id, text);
		}
		return text;
	}

	/**
	 * A list of values, memoised until the next change (the hot path of GET /products). Product and order lists
	 * are in contract row 21's order: the most recently changed record first.
	 */
	cachedList(key, compute) {
		let list = this.lists.get(key);
		if (!list) {
			if (this.lists.size > 500) this.lists.clear(); // many distinct searches: keep memory bounded
			list = compute();
			this.lists.set(key, list);
		}
		return list;
	}

	/** A list in id order instead (compat list_order 'id'): the order of the store's maps, i.e. of creation. */
	inIdOrder(resource, list) {
		const ids = resource === 'orders' ? this.orders : this.products;
		const keep = new Set(list);
		return [...ids.values()].filter((r) => keep.has(r));
	}

	// ---- products -------------------------------------------------------------------------------------------

	/** `searchIn` 'name': `search` looks at names only (compat product_search), else at name, SKU and description. */
	listProducts({ category, search, searchIn = 'contract' }) {
		const c = category ? category.toLowerCase() : '';
		const s = search ? search.toLowerCase() : '';
		const all = this.cachedList('p||', () => byRecentChange([...this.products.values()]));
		if (!c && !s) return all;
		const fields = searchIn === 'name' ? ['name'] : ['name', 'sku', 'description'];
		return this.cachedList(`p|${c}|${s}|${searchIn}`, () =>
			all.filter(
				(p) =>
					(!c || (p.category ?? '').toLowerCase() === c) &&
					(!s || fields.some((f) => (p[f] ?? '').toLowerCase().includes(s))),
			),
		);
	}

	getProduct(id) {
		const product = this.products.get(id);
		if (!product) throw notFound('Product', id);
		return product;
	}

	/**
	 * Validates a product body; returns the normalised values to write. `idKey`: the id's key in the API's records
	 * (product_id under compat record_ids 'resource'), read-only like `id`, which stays so. `uniqueSku`: whether a SKU
	 * another product has is refused (compat unique_sku).
	 */
	checkProductBody(body, partial, selfId, idKey = 'id', uniqueSku = true) {
		requireObjectBody(body);
		const details = [];
		for (const key of Object.keys(body)) {
			if (READ_ONLY_FIELDS.includes(key) || key === idKey)
				details.push({ field: key, message: 'is read-only' });
			else if (!PRODUCT_FIELDS.includes(key))
				details.push({ field: key, message: 'is not a known product field' });
		}
		if (!partial) {
			for (const key of ['name', 'price']) {
				if (body[key] === undefined) details.push({ field: key, message: 'is required' });
			}
		} else if (!PRODUCT_FIELDS.some((k) => body[k] !== undefined) && details.length === 0) {
			details.push({
				field: 'body',
				message: `must contain at least one of: ${PRODUCT_FIELDS.join(', ')}`,
			});
		}
		const values = {};
		for (const key of PRODUCT_FIELDS) {
			if (body[key] === undefined) continue;
			const problem = PRODUCT_RULES[key](body[key]);
			if (problem) details.push({ field: key, message: problem });
			else values[key] = body[key];
		}
		if (uniqueSku && typeof values.sku === 'string' && values.sku !== '') {
			for (const p of this.products.values()) {
				if (p.sku === values.sku && p.id !== selfId) {
					details.push({ field: 'sku', message: `is already used by product ${p.id}` });
					break;
				}
			}
		}
		if (details.length) throw validationError(details);
		if (values.price !== undefined) values.price = round2(values.price);
		if (values.currency !== undefined) values.currency = values.currency.toUpperCase();
		if (values.name !== undefined) values.name = values.name.trim();
		if (values.images !== undefined) values.images = [...values.images];
		return values;
	}

	createProduct(body, idKey, uniqueSku) {
		const values = this.checkProductBody(body, false, undefined, idKey, uniqueSku);
		const now = new Date().toISOString();
		const id = `prod_${pad(++this.seq.product)}`;
		const product = {
			id,
			store_id: this.store.id,
			name: values.name,
			description: values.description ?? '',
			sku: values.sku ?? null,
			category: values.category ?? null,
			price: values.price,
			currency: values.currency ?? this.store.currency,
			stock: values.stock ?? 0,
			status: values.status ?? 'active',
			images: values.images ?? [],
			created_at: now,
			updated_at: now,
		};
		this.products.set(id, product);
		this.changed();
		this.emit('product.created', this.productEventData(product), ['product', product]);
		return product;
	}

	productEventData(product) {
		return {
			product_id: product.id,
			store_id: product.store_id,
			name: product.name,
			sku: product.sku,
			category: product.category,
			price: product.price,
			currency: product.currency,
			stock: product.stock,
			status: product.status,
		};
	}

	updateProduct(id, body, idKey, uniqueSku) {
		const product = this.getProduct(id);
		const values = this.checkProductBody(body, true, id, idKey, uniqueSku);
		const before = product.stock;
		Object.assign(product, values, { updated_at: new Date().toISOString() });
		this.changed();
		this.checkLowStock(product, before);
		return product;
	}

	deleteProduct(id) {
		this.getProduct(id);
		this.products.delete(id);
		this.changed();
	}

	setStock(body) {
		requireObjectBody(body);
		const details = [];
		if (typeof body.product_id !== 'string')
			details.push({ field: 'product_id', message: 'is required' });
		if (!Number.isInteger(body.stock) || body.stock < 0)
			details.push({ field: 'stock', message: 'must be an integer >= 0' });
		if (details.length) throw validationError(details);
		const product = this.getProduct(body.product_id);
		const before = product.stock;
		product.stock = body.stock;
		product.updated_at = new Date().toISOString();
		this.changed();
		this.checkLowStock(product, before);
		return product;
	}

	/** inventory.low fires when stock falls from above the threshold to at or below it (contract row 16). */
	checkLowStock(product, before) {
		if (before > this.threshold && product.stock <= this.threshold)
			this.emit('inventory.low', this.lowStockEventData(product), ['product', product]);
	}

	lowStockEventData(product, stock = product.stock) {
		return {
			product_id: product.id,
			store_id: product.store_id,
			name: product.name,
			sku: product.sku,
			stock,
			threshold: this.threshold,
		};
	}

	// ---- orders ---------------------------------------------------------------------------------------------

	listOrders({ status }) {
		return this.cachedList(`o|${status || ''}`, () => {
			const all = status
				? this.cachedList('o|', () => this.listOrders({}))
				: byRecentChange([...this.orders.values()]);
			return status ? all.filter((o) => o.status === status) : all;
		});
	}

	getOrder(id) {
		const order = this.orders.get(id);
		if (!order) throw notFound('Order', id);
		return order;
	}

	orderEventData(order) {
		return {
			order_id: order.id,
			store_id: order.store_id,
			total: order.total,
			currency: order.currency,
			status: order.status,
			items: order.items.map((it) => ({ ...it })),
		};
	}

	/**
	 * `anyTransition` (compat order_transitions 'any'): any other known status ("on-hold" too) is allowed, not only
	 * row 12's moves.
	 */
	setOrderStatus(id, body, anyTransition = false) {
		const order = this.getOrder(id);
		requireObjectBody(body);
		const details = Object.keys(body)
			.filter((k) => k !== 'status')
			.map((k) => ({ field: k, message: 'is not allowed; the body holds only "status"' }));
		if (body.status === undefined) details.push({ field: 'status', message: 'is required' });
		else if (typeof body.status !== 'string')
			details.push({ field: 'status', message: 'must be a string' });
		if (details.length) throw validationError(details);
		const next = body.status;
		const known = anyTransition ? [...ORDER_STATUSES, ...MORE_ORDER_STATUSES] : ORDER_STATUSES;
		if (!known.includes(next)) {
			throw new ApiError(
				422,
				'invalid_status',
				`Unknown order status "${next}"; allowed: ${known.join(', ')}`,
				[{ field: 'status', message: `must be one of: ${known.join(', ')}` }],
			);
		}
		const previous = order.status;
		if (next === previous) return order; // idempotent: a retried PUT changes nothing and emits nothing
		if (!anyTransition && !ORDER_TRANSITIONS[previous].includes(next)) {
			const allowed = ORDER_TRANSITIONS[previous];
			throw new ApiError(
				409,
				'invalid_transition',
				`Cannot change order ${id} from "${previous}" to "${next}"` +
					(allowed.length ? ` (allowed: ${allowed.join(', ')})` : ` ("${previous}" is final)`),
			);
		}
		order.status = next;
		order.updated_at = new Date().toISOString();
		const customer = this.customers.get(order.customer_id);
		if (
			customer &&
			NON_REVENUE_STATUSES.includes(next) &&
			!NON_REVENUE_STATUSES.includes(previous)
		) {
			customer.total_spent = round2(customer.total_spent - order.total);
		} else if (
			customer &&
			NON_REVENUE_STATUSES.includes(previous) &&
			!NON_REVENUE_STATUSES.includes(next)
		) {
			customer.total_spent = round2(customer.total_spent + order.total); // out of a final status: only under 'any'
		}
		this.changed();
		this.emit('order.updated', { ...this.orderEventData(order), previous_status: previous }, [
			'order',
			order,
		]);
		return order;
	}

	/** Admin simulation of a storefront checkout: creates a pending order, takes stock, emits order.created. */
	checkout(body) {
		body = body ?? {};
		requireObjectBody(body);
		const details = [];
		let customer;
		if (body.customer_id !== undefined) {
			customer = this.customers.get(body.customer_id);
			if (!customer)
				details.push({
					field: 'customer_id',
					message: `customer ${body.customer_id} does not exist`,
				});
		}
		let lines = body.items;
		if (lines !== undefined) {
			if (!Array.isArray(lines) || lines.length === 0) {
				details.push({
					field: 'items',
					message: 'must be a non-empty array of {product_id, quantity}',
				});
				lines = [];
			}
			const wanted = new Map();
			lines.forEach((line, i) => {
				const product = isPlainObject(line) ? this.products.get(line.product_id) : undefined;
				if (!product)
					return void details.push({
						field: `items[${i}].product_id`,
						message: 'must be an existing product id',
					});
				if (product.status !== 'active')
					details.push({
						field: `items[${i}].product_id`,
						message: `product is ${product.status}, not for sale`,
					});
				const quantity = line.quantity ?? 1;
				if (!Number.isInteger(quantity) || quantity < 1)
					return void details.push({
						field: `items[${i}].quantity`,
						message: 'must be an integer >= 1',
					});
				wanted.set(product.id, (wanted.get(product.id) ?? 0) + quantity);
				if (wanted.get(product.id) > product.stock)
					details.push({
						field: `items[${i}].quantity`,
						message: `only ${product.stock} in stock`,
					});
			});
		}
		if (details.length) throw validationError(details);

		// Without explicit choices the checkout draws from a sequence fixed by the seed and the order number.
		const rng = createRng((this.seed * 2654435761 + this.seq.order * 40503 + 1) >>> 0);
		if (!customer) {
			const all = [...this.customers.values()];
			if (all.length === 0)
				throw validationError([{ field: 'customer_id', message: 'the store has no customers' }]);
			customer = all[Math.floor(rng.next() * all.length)];
		}
		if (lines === undefined) {
			const inStock = [...this.products.values()].filter(
				(p) => p.status === 'active' && p.stock > 0,
			);
			if (inStock.length === 0)
				throw validationError([{ field: 'items', message: 'no product is in stock' }]);
			const count = Math.min(inStock.length, 1 + Math.floor(rng.next() * 3));
			const chosen = new Set();
			while (chosen.size < count) chosen.add(inStock[Math.floor(rng.next() * inStock.length)]);
			lines = [...chosen].map((p) => ({
				product_id: p.id,
				quantity: Math.min(p.stock, 1 + Math.floor(rng.next() * 2)),
			}));
		}

		const now = new Date().toISOString();
		const items = lines.map((line) => {
			const p = this.products.get(line.product_id);
			return { product_id: p.id, name: p.name, quantity: line.quantity ?? 1, price: p.price };
		});
		const order = {
			id: `ord_${pad(++this.seq.order)}`,
			store_id: this.store.id,
			customer_id: customer.id,
			status: 'pending',
			total: round2(items.reduce((sum, it) => sum + it.price * it.quantity, 0)),
			currency: this.store.currency,
			items,
			created_at: now,
			updated_at: now,
			paid_at: null,
		};
		this.orders.set(order.id, order);
		customer.orders_count++;
		customer.total_spent = round2(customer.total_spent + order.total);
		const stockBefore = items.map((it) => {
			const p = this.products.get(it.product_id);
			const before = p.stock;
			p.stock -= it.quantity;
			p.updated_at = now;
			return [p, before];
		});
		this.changed();
		this.emit('order.created', this.orderEventData(order));
		for (const [p, before] of stockBefore) this.checkLowStock(p, before);
		return order;
	}

	/**
	 * `count` events cycling through `kinds`, with data shaped as the real ones and taken from existing records,
	 * without changing any record: load for receivers (POST /__admin/simulate/events). Returns [type, data] pairs.
	 */
	sampleEvents(count, kinds) {
		const orders = [...this.orders.values()];
		const products = [...this.products.values()];
		const events = [];
		for (let i = 0; i < count; i++) {
			const type = kinds[i % kinds.length];
			const order = orders[i % orders.length];
			const product = products[i % products.length];
			if (type === 'order.created') events.push([type, this.orderEventData(order)]);
			else if (type === 'order.updated')
				events.push([type, { ...this.orderEventData(order), previous_status: 'pending' }]);
			else if (type === 'payment.completed')
				events.push([type, this.paymentEventData(order, `pay_sample_${i + 1}`, 'card')]);
			else if (type === 'product.created') events.push([type, this.productEventData(product)]);
			else
				events.push([
					type,
					this.lowStockEventData(product, Math.min(product.stock, this.threshold)),
				]);
		}
		return events;
	}

	paymentEventData(order, paymentId, method) {
		return {
			payment_id: paymentId,
			order_id: order.id,
			store_id: order.store_id,
			amount: order.total,
			currency: order.currency,
			method,
		};
	}

	/** Admin simulation of a completed payment: sets paid_at, emits payment.completed (the status is unchanged). */
	pay(body) {
		requireObjectBody(body);
		const details = [];
		if (typeof body.order_id !== 'string')
			details.push({ field: 'order_id', message: 'is required' });
		if (body.method !== undefined && (typeof body.method !== 'string' || body.method === ''))
			details.push({ field: 'method', message: 'must be a non-empty string' });
		if (details.length) throw validationError(details);
		const order = this.getOrder(body.order_id);
		if (order.paid_at)
			throw new ApiError(
				409,
				'already_paid',
				`Order ${order.id} was already paid at ${order.paid_at}`,
			);
		if (NON_REVENUE_STATUSES.includes(order.status))
			throw new ApiError(
				409,
				'order_closed',
				`Order ${order.id} is ${order.status} and cannot be paid`,
			);
		const payment = this.paymentEventData(
			order,
			`pay_${pad(++this.seq.payment)}`,
			body.method ?? 'card',
		);
		order.paid_at = new Date().toISOString();
		order.updated_at = order.paid_at;
		this.changed();
		this.emit('payment.completed', payment, ['order', order]);
		return { payment, order };
	}

	// ---- customers and analytics ----------------------------------------------------------------------------

	listCustomers({ search }) {
		const s = search ? search.toLowerCase() : '';
		return this.cachedList(`c|${s}`, () => {
			const all = [...this.customers.values()];
			return s
				? all.filter((c) => c.name.toLowerCase().includes(s) || c.email.toLowerCase().includes(s))
				: all;
		});
	}

	getStore(id) {
		if (id !== this.store.id) throw notFound('Store', id);
		return this.store;
	}

	analytics() {
		const byStatus = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]));
		let revenue = 0;
		let revenueOrders = 0;
		for (const o of this.orders.values()) {
			byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
			if (!NON_REVENUE_STATUSES.includes(o.status)) {
				revenue += o.total;
				revenueOrders++;
			}
		}
		let active = 0;
		let low = 0;
		for (const p of this.products.values()) {
			if (p.status === 'active') active++;
			if (p.stock <= this.threshold) low++;
		}
		return {
			store_id: this.store.id,
			currency: this.store.currency,
			products_count: this.products.size,
			active_products_count: active,
			low_stock_products_count: low,
			orders_count: this.orders.size,
			orders_by_status: byStatus,
			revenue: round2(revenue),
			average_order_value: revenueOrders ? round2(revenue / revenueOrders) : 0,
			customers_count: this.customers.size,
			generated_at: new Date().toISOString(),
		};
	}
}

/**
 * Contract row 21: `updated_at` descending, ties by `id` descending (the later id first: ids are zero-padded
 * numbers, compared by length, then as text, so ord_100000 comes after ord_99999). A client that reads page 1
 * onwards sees every change since its last read before anything older.
 */
function byRecentChange(records) {
	const later = (a, b) => b.length - a.length || (a < b ? 1 : a > b ? -1 : 0);
	return records.sort((a, b) =>
		a.updated_at === b.updated_at ? later(a.id, b.id) : a.updated_at < b.updated_at ? 1 : -1,
	);
}

const newId = (prefix) => `${prefix}_${crypto.randomBytes(12).toString('hex')}`;

module.exports = { State, newId, isPlainObject, isHttpUrl };

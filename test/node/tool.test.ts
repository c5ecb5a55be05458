// The AI Agent tool variant of the Storefront node: what a model is told about each operation (n8n builds a tool's
// description from the node's `toolDescription` parameter) and what a Get Many returns to it (Simplify), run
// through n8n-core's WorkflowExecute against the sandbox. The agent end to end, in real n8n: test/ai.
import type { INode, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { jsonOf, useSandbox } from './context';
import { STOREFRONT_TOOL_TYPE, STOREFRONT_TYPE, toolVariant } from '../helpers/n8n';
import { Storefront } from '../../nodes/Storefront/Storefront.node';

const ctx = useSandbox({ products: 250, orders: 200, customers: 80 });

const ORDER_SIMPLE = [
	'created_at',
	'currency',
	'customer_id',
	'id',
	'item_count',
	'paid_at',
	'status',
	'total',
];
const PRODUCT_SIMPLE = ['category', 'currency', 'id', 'name', 'price', 'sku', 'status', 'stock'];
const CUSTOMER_SIMPLE = ['email', 'id', 'name', 'orders_count', 'total_spent'];

/** The resource → operation pairs the node offers, with each operation's action text. */
function operations(description: INodeTypeDescription) {
	const resources = description.properties.find((p) => p.name === 'resource')?.options as Array<{
		value: string;
	}>;
	return resources.flatMap(({ value: resource }) => {
		const selector = description.properties.find(
			(p) =>
				p.name === 'operation' &&
				(p.displayOptions?.show?.resource as string[] | undefined)?.includes(resource),
		) as INodeProperties;
		return (selector.options as Array<{ value: string; action: string }>).map(
			({ value, action }) => ({ resource, operation: value, action }),
		);
	});
}

/** The parameters n8n resolves for a node (defaults filled, hidden ones dropped), as at run time. */
function resolved(
	description: INodeTypeDescription,
	parameters: INode['parameters'],
	typeVersion: number,
) {
	const node = {
		id: 'n',
		name: 'Storefront',
		type: description.name,
		typeVersion,
		position: [0, 0],
		parameters,
	} as INode;
	return (
		NodeHelpers.getNodeParameters(
			description.properties,
			parameters,
			true,
			false,
			node,
			description,
		) ?? {}
	);
}

const versions = (type: ReturnType<typeof toolVariant>, version: number) =>
	type.nodeVersions[version].description;

describe('the tool variant: what the model is told', () => {
	const tool = versions(toolVariant(), 1);
	const action = versions(new Storefront(), 1);

	test.each(operations(tool))(
		'$resource › $operation has its own description, saying what it does, needs and returns',
		({ resource, operation, action: actionText }) => {
			const parameters = resolved(tool, { resource, operation }, 1);
			const text = String(parameters.toolDescription);
			const node = {
				id: 'n',
				name: 'Tool',
				type: STOREFRONT_TOOL_TYPE,
				position: [0, 0],
				parameters,
			} as INode;
			// What n8n hands the agent (its own helper): our text, not "<action> in Storefront".
			expect(NodeHelpers.getToolDescriptionForNode(node, { description: tool } as never)).toBe(
				text,
			);
			expect(text).not.toBe(`${actionText} in Storefront`);
			expect(text).toMatch(/Storefront shop/);
			expect(text).toMatch(/Returns /);
			expect(text.length).toBeGreaterThan(100);
		},
	);

	test('ids, statuses and allowed moves are spelled out where a model must fill them', () => {
		const text = (resource: string, operation: string) =>
			String(resolved(tool, { resource, operation }, 1).toolDescription);
		expect(text('order', 'get')).toContain('like ord_00001');
		expect(text('order', 'updateStatus')).toContain(
			'Allowed moves only: pending → processing or cancelled; processing → shipped or cancelled; shipped → delivered; delivered → refunded.',
		);
		expect(text('product', 'update')).toContain('like prod_00001');
		expect(text('product', 'delete')).toMatch(/permanently/);
		expect(text('customer', 'getAll')).toContain('like cus_00001');
	});

	test('a description the user wrote is what the model gets', () => {
		const parameters = resolved(
			tool,
			{
				resource: 'order',
				operation: 'get',
				toolDescription: 'Look up an order for the customer.',
			},
			1,
		);
		const node = {
			id: 'n',
			name: 'Tool',
			type: STOREFRONT_TOOL_TYPE,
			position: [0, 0],
			parameters,
		} as INode;
		expect(NodeHelpers.getToolDescriptionForNode(node, { description: tool } as never)).toBe(
			'Look up an order for the customer.',
		);
	});

	test('write operations carry a warning on the tool variant; read operations and the plain node do not', () => {
		const writes = [
			'order.updateStatus',
			'product.create',
			'product.update',
			'product.delete',
			'product.upsert',
		];
		const noticeShown = (description: INodeTypeDescription, resource: string, operation: string) =>
			description.properties.some(
				(p) =>
					p.name === 'writeToolNotice' &&
					NodeHelpers.displayParameter(
						{ resource, operation },
						p,
						{ typeVersion: 1 } as INode,
						description,
					),
			);
		const withNotice = operations(tool).filter(({ resource, operation }) =>
			noticeShown(tool, resource, operation),
		);
		expect(withNotice.map(({ resource, operation }) => `${resource}.${operation}`).sort()).toEqual(
			[...writes].sort(),
		);
		for (const { resource, operation } of operations(action)) {
			const parameters = resolved(action, { resource, operation }, 1);
			expect(parameters.toolDescription).toBeUndefined();
			expect(noticeShown(action, resource, operation)).toBe(false);
		}
	});
});

describe('the tool variant: what a list returns', () => {
	test('simplifies Get Many by default: orders, products, customers, at the default limit of 50', async () => {
		const cases = [
			{ resource: 'order', keys: ORDER_SIMPLE },
			{ resource: 'product', keys: PRODUCT_SIMPLE },
			{ resource: 'customer', keys: CUSTOMER_SIMPLE },
		];
		for (const { resource, keys } of cases) {
			const { items, error } = await ctx.run({
				nodeType: STOREFRONT_TOOL_TYPE,
				parameters: { resource, operation: 'getAll' },
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(50);
			for (const item of jsonOf(items)) expect(Object.keys(item).sort()).toEqual(keys);
		}
	});

	test('a simplified order keeps its values and counts its items; the list is far smaller than the full records', async () => {
		const simple = jsonOf(
			(
				await ctx.run({
					nodeType: STOREFRONT_TOOL_TYPE,
					parameters: { resource: 'order', operation: 'getAll' },
				})
			).items,
		);
		const full = jsonOf(
			(
				await ctx.run({
					nodeType: STOREFRONT_TOOL_TYPE,
					parameters: { resource: 'order', operation: 'getAll', simplify: false },
				})
			).items,
		);
		expect(simple.map((order) => order.id)).toEqual(full.map((order) => order.id));
		simple.forEach((order, index) => {
			const record = full[index];
			expect(order).toEqual({
				id: record.id,
				status: record.status,
				total: record.total,
				currency: record.currency,
				customer_id: record.customer_id,
				item_count: (record.items as unknown[]).length,
				created_at: record.created_at,
				paid_at: record.paid_at,
			});
		});
		expect(JSON.stringify(simple).length).toBeLessThan(JSON.stringify(full).length / 2);
	});

	test('Simplify turned off returns the full records, turned on the simplified ones', async () => {
		const before = jsonOf(
			(
				await ctx.run({
					nodeType: STOREFRONT_TOOL_TYPE,
					parameters: { resource: 'order', operation: 'getAll', limit: 5, simplify: false },
				})
			).items,
		);
		expect(before[0]).toEqual(
			expect.objectContaining({ items: expect.any(Array), updated_at: expect.any(String) }),
		);
		const opted = jsonOf(
			(
				await ctx.run({
					nodeType: STOREFRONT_TOOL_TYPE,
					parameters: { resource: 'order', operation: 'getAll', limit: 5, simplify: true },
				})
			).items,
		);
		expect(Object.keys(opted[0]).sort()).toEqual(ORDER_SIMPLE);
	});

	test('the plain node never simplifies, even with the parameter set (it is not shown there)', async () => {
		const { items } = await ctx.run({
			nodeType: STOREFRONT_TYPE,
			parameters: { resource: 'order', operation: 'getAll', limit: 5, simplify: true },
		});
		expect(jsonOf(items)[0]).toEqual(
			expect.objectContaining({ items: expect.any(Array), store_id: expect.any(String) }),
		);
	});
});

describe('the tool variant: a refused call', () => {
	const deliveredOrder = () =>
		[...ctx.sb.state.orders.values()].find((order) => order.status === 'delivered')?.id as string;
	const refused = (orderId: string) => ({
		resource: 'order',
		operation: 'updateStatus',
		orderId: { __rl: true, mode: 'id', value: orderId },
		status: 'pending',
	});

	test('answers the model with the error as its result (n8n 1.x would otherwise stop the workflow)', async () => {
		const orderId = deliveredOrder();
		const { items, error } = await ctx.run({
			nodeType: STOREFRONT_TOOL_TYPE,
			parameters: refused(orderId),
		});
		expect(error).toBeUndefined();
		expect(jsonOf(items)).toEqual([
			{
				error: expect.stringMatching(
					new RegExp(
						`^Storefront did not accept the request \\(409\\): Cannot change order ${orderId} from "delivered" to "pending"`,
					),
				),
			},
		]);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(ctx.sb.state.orders.get(orderId)?.status).toBe('delivered');
		// A bad parameter is an answer too, naming it, before any request: here an id the model left empty.
		const empty = await ctx.run({
			nodeType: STOREFRONT_TOOL_TYPE,
			parameters: { ...refused('={{ "" }}'), status: 'processing' },
		});
		expect(jsonOf(empty.items)).toEqual([
			{
				error: 'The parameter "Order" (orderId) is empty',
				details: 'Select a order or enter its ID.',
			},
		]);
	});

	test('the plain node, and a tool set to "Stop Workflow", still fail the node', async () => {
		const orderId = deliveredOrder();
		for (const options of [
			{ nodeType: STOREFRONT_TYPE },
			{ nodeType: STOREFRONT_TOOL_TYPE, onError: 'stopWorkflow' as const },
		]) {
			const { items, error } = await ctx.run({ ...options, parameters: refused(orderId) });
			expect(items).toEqual([]);
			expect(error?.message).toMatch(
				/^Storefront did not accept the request \(409\): Cannot change order/,
			);
		}
	});
});

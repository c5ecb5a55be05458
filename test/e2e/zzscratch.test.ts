/* eslint-disable */
import { createWorkflow, instance, registerWebhook, rest, startEnvironment, type Environment } from './environment';
jest.setTimeout(300_000);
let env: Environment;
beforeAll(async () => { env = await startEnvironment('scratch'); }, 300_000);
afterAll(async () => { await env?.stop(); });
it('diag', async () => {
	const intake = await createWorkflow(env, instance.loadExample('order-intake.json'));
	await registerWebhook(env, intake.url);
	const product = [...env.sandbox.state.products.values()].find((p) => p.status === 'active' && p.price < 200 && p.stock > 20)!;
	const { body: order } = await env.sandbox.admin('POST', '/simulate/checkout', { items: [{ product_id: product.id, quantity: 1 }] });
	const [execution] = await instance.waitForExecutions(env.client, intake.id, (l: any[]) => l.length >= 1 && l[0].status !== 'running' && l[0].status !== 'new');
	const details = await env.client.getExecution(execution.id);
	const rd = rest.runData(details);
	console.log(execution.status, order.id, JSON.stringify(rd['Mark Processing']?.[0]?.error ?? null).slice(0, 1500), JSON.stringify(rest.nodeOutput(details, 'Get Order')).slice(0, 600));
	const { body: log } = await env.sandbox.admin('GET', '/requests');
	console.log(JSON.stringify(log.map((r: any) => [r.method, r.path, r.status])));
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; n8n's internal REST API answers untyped JSON */
// A no-code user's first hour, in the real n8n 2.x editor in chromium: the package is installed from Settings →
// Community Nodes (from a local npm registry that n8n takes for the public one, dev/n8n/registry.js), then, with no
// workflow and no credential yet, the user builds "a new order arrives → set it to processing" by hand — search the
// nodes panel, add the trigger, create the credentials in n8n's dialog, copy the URL, listen for a test event, map the
// order id by drag and drop, run the step, publish — and a checkout runs it. Each step saves a screenshot
// (artifacts/browser/journey-*.png); the README's quick start shows the ones saved to docs/images/quickstart-*.png.
// A step fails on a blank picture, an error notification or a page error. The steps share one page, in order.
import type { Page } from 'playwright-core';

import { eventually, registerWebhook, TYPES, type Environment } from '../e2e/environment';
import {
	closeToasts,
	expectCount,
	expectText,
	picture,
	screenshot,
	signIn,
	startBrowserSuite,
	type BrowserSuite,
} from './browser';

jest.setTimeout(120_000);

const PACKAGE = 'n8n-nodes-storefront';
// The name the user gives the workflow: stable, so the pictures are too.
const WORKFLOW_NAME = 'New order → processing';
const CREDENTIAL_NAME = 'Storefront account';

let env: Environment;
let session: BrowserSuite;
let page: Page;
let workflowId: string;
let productionUrl: string;
/** The order of the test event, and the order of the production checkout. */
let testOrder: { id: string; status: string };

beforeAll(async () => {
	// No workflow, no credential: the package comes from the registry, installed in the browser below.
	session = await startBrowserSuite('journey', {
		install: 'registry',
		credential: false,
		installFromRegistry: async () => undefined,
	});
	({ env, page } = session);
}, 300_000);

afterAll(() => session?.stop(), 60_000);

/** After every step: no error notification appeared and the page raised no error. */
afterEach(async () => {
	if (!page) return;
	expect(await session.errorToasts()).toEqual([]);
	expect(session.pageErrors).toEqual([]);
});

const ndv = () => page.getByTestId('ndv');
const sandboxOrder = (id: string) =>
	env.sandbox.state.orders.get(id) as { id: string; status: string };

/** Read a webhook URL the way a user copies it: click it in the trigger panel, then read the clipboard. */
async function copyWebhookUrl(which: 'Test URL' | 'Production URL') {
	await ndv().getByText(which, { exact: true }).click();
	await ndv().locator('.webhook-url').click();
	await page.locator('.el-notification').filter({ hasText: 'URL copied' }).first().waitFor();
	await closeToasts(page);
	return page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>);
}

it('installs the package from Settings → Community Nodes, by name', async () => {
	await signIn(page, env.n8nUrl);
	await page.goto(`${env.n8nUrl}/settings/community-nodes`);
	// No package yet: the page offers its install button in the empty state.
	await page.getByTestId('empty-state').getByRole('button').first().click();
	await page.getByTestId('package-name-input').fill(PACKAGE);
	await page.getByTestId('user-agreement-checkbox').click();
	await page.getByTestId('install-community-package-button').click();
	const card = page.getByTestId('community-package-card').filter({ hasText: PACKAGE });
	await card.waitFor({ timeout: 90_000 });
	await expectText(
		card,
		/3 nodes:\s*Storefront,\s*Storefront Polling Trigger,\s*Storefront Trigger[\s\S]*v0\.1\.0/,
	);
	await screenshot(page, 'journey-01-installed');
	// n8n downloaded the published tarball from the registry, and its editor now knows the nodes.
	const tarball = `/${PACKAGE}/-/${PACKAGE}-0.1.0.tgz`;
	expect(
		env.published!.registry.requests.some(
			(r) => r.method === 'GET' && r.path === tarball && r.status === 200,
		),
	).toBe(true);
	const types = (await env.client.nodeTypes()).map((t: any) => t.name);
	expect(types).toEqual(expect.arrayContaining([TYPES.action, TYPES.trigger, TYPES.poll]));
});

it('creates a workflow; the nodes panel finds the Storefront nodes by "storefront", with their triggers and actions, and the polling trigger beside them', async () => {
	await page.goto(`${env.n8nUrl}/workflow/new`);
	await page.getByTestId('inline-edit-preview').first().click();
	await page.getByTestId('inline-edit-input').first().fill(WORKFLOW_NAME);
	await page.keyboard.press('Enter');
	await page.getByTestId('canvas-add-button').click();
	await page.keyboard.type('storefront');
	// n8n lists a trigger and an action node of one service as one entry, named after the action node.
	const entry = page
		.getByTestId('node-creator-item-name')
		.filter({ hasText: /^\s*Storefront\s*$/ });
	await entry.first().waitFor();
	await expectCount(entry, 1);
	// The polling trigger is its own entry beside it (n8n merges a trigger into the node whose type name is the
	// trigger's without "Trigger": storefrontPolling is no node), listed without "Trigger" as n8n lists triggers there.
	await expect(
		page
			.getByTestId('node-creator-item-name')
			.filter({ hasText: /^\s*Storefront Polling\s*$/ })
			.count(),
	).resolves.toBe(1);
	await entry.click();
	const creator = page.getByTestId('node-creator');
	const triggers = creator
		.getByTestId('node-creator-category-item')
		.filter({ hasText: /^Triggers \(6\)/ });
	await triggers.waitFor();
	const names = async () =>
		(await creator.getByTestId('node-creator-item-name').allInnerTexts()).map((t) => t.trim());
	expect(await names()).toEqual(
		expect.arrayContaining([
			'On order created',
			'On order updated',
			'On payment completed',
			'On product created',
			'On inventory low',
			'On all events',
		]),
	);
	await creator
		.getByTestId('node-creator-category-item')
		.filter({ hasText: /^Actions \(11\)/ })
		.click();
	expect(await names()).toEqual(
		expect.arrayContaining([
			'Update order status',
			'Get order',
			'Get many orders',
			'Create product',
			'Create or update product',
			'Get store',
		]),
	);
	await picture(page, 'quickstart-nodes-panel');
});

it('adds the Storefront Trigger "On order created": its panel opens with the event chosen', async () => {
	await page
		.getByTestId('node-creator-item-name')
		.filter({ hasText: /^On order created$/ })
		.click();
	await ndv().getByTestId('node-parameters').waitFor();
	await expectText(ndv().getByTestId('parameter-input-events'), 'Order Created');
	await expectText(ndv(), 'Storefront has no API to register webhooks');
	await screenshot(page, 'journey-02-trigger-added');
	const types = await page
		.locator('[data-test-id="canvas-node"]')
		.evaluateAll((els) => els.map((el) => el.getAttribute('data-node-type')));
	expect(types).toEqual([TYPES.trigger]);
});

it("creates the credentials in n8n's dialog: a wrong key shows n8n's failure with the node's hint, the right one tests OK", async () => {
	await ndv().getByTestId('node-credentials-empty-state').click();
	const dialog = page.getByTestId('editCredential-modal');
	// As pasted from a dashboard: with a trailing slash.
	await dialog
		.getByTestId('parameter-input-baseUrl')
		.locator('input')
		.fill(`${env.sandbox.baseUrl}/`);
	const wrongKey = 'sf_test_typo';
	await dialog.getByTestId('parameter-input-apiKey').locator('input').fill(wrongKey);
	await dialog
		.getByTestId('parameter-input-webhookSecret')
		.locator('input')
		.fill(env.sandbox.webhookSecret);
	await dialog.getByTestId('credential-save-button').click();
	await dialog.getByText(/Couldn.t connect with these settings/).waitFor();
	await dialog.getByText('More details').click();
	const failure = await dialog.innerText();
	expect(failure).toContain('Storefront refused the API key (401 Unauthorized)');
	expect(failure).not.toContain(wrongKey);
	expect(failure).not.toMatch(/\n\s+at \S+ \(|TypeError|stack/);
	await screenshot(page, 'journey-03-credential-wrong-key');

	await dialog.getByTestId('parameter-input-apiKey').locator('input').fill(env.sandbox.apiKey);
	await dialog.getByTestId('credential-save-button').click();
	// A credential that tests OK closes the dialog and is chosen in the node; opened again, it shows its test.
	await dialog.waitFor({ state: 'hidden' });
	await expect(
		ndv().getByTestId('node-credentials-select').locator('input').inputValue(),
	).resolves.toBe(CREDENTIAL_NAME);
	await ndv().getByTestId('credential-edit-button').click();
	await dialog.getByText('Connection tested successfully').waitFor();
	await picture(page, 'quickstart-credential');
	await dialog.locator('.el-dialog__headerbtn').click();
	await dialog.waitFor({ state: 'hidden' });

	// The service saw the slash-free path both times: refused, then accepted.
	const { body: log } = await env.sandbox.admin('GET', '/requests');
	expect((log as any[]).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(
		expect.arrayContaining(['GET /v1/products 401', 'GET /v1/products 200']),
	);
	expect((log as any[]).every((r) => !String(r.path).includes('//'))).toBe(true);
	const credentials = await env.client.request('GET', '/credentials');
	expect(credentials.map((c: any) => [c.name, c.type])).toEqual([
		[CREDENTIAL_NAME, 'storefrontApi'],
	]);
});

it('picks the events and copies the production URL from the panel', async () => {
	await ndv().getByTestId('parameter-input-events').click();
	const options = page.locator('.el-select-dropdown__item:visible');
	await options.first().waitFor();
	expect((await options.allInnerTexts()).map((t) => t.split('\n')[0].trim())).toEqual(
		expect.arrayContaining([
			'All Events',
			'Order Created',
			'Order Updated',
			'Payment Completed',
			'Product Created',
			'Inventory Low',
		]),
	);
	await ndv().getByTestId('parameter-input-events').click();
	await options.first().waitFor({ state: 'hidden' });
	await expectText(ndv().getByTestId('parameter-input-events'), /^\s*Order Created\s*$/);

	await ndv().getByText('Webhook URLs').click();
	productionUrl = await copyWebhookUrl('Production URL');
	expect(productionUrl).toMatch(new RegExp(`^${env.n8nUrl}/webhook/[0-9a-f-]{36}/webhook$`));
});

it('listens for a test event: a checkout sent to the Test URL shows up as the trigger output', async () => {
	const testUrl = await copyWebhookUrl('Test URL');
	expect(testUrl).toBe(productionUrl.replace('/webhook/', '/webhook-test/'));
	await registerWebhook(env, testUrl);
	await ndv().getByTestId('trigger-execute-button').click();
	await ndv()
		.getByText(/Listening for test event/i)
		.first()
		.waitFor();
	testOrder = (await env.sandbox.admin('POST', '/simulate/checkout', {})).body;
	expect(testOrder.status).toBe('pending');
	const output = ndv().getByTestId('output-panel');
	await output.getByText(testOrder.id).first().waitFor();
	await expectText(output, 'order.created');
	// The picture a user copies the URL from: the production URL above the events, a test event beside them.
	await ndv().getByText('Production URL', { exact: true }).click();
	expect((await ndv().locator('.webhook-url').innerText()).trim()).toBe(productionUrl);
	await picture(page, 'quickstart-trigger');
	await ndv().getByTestId('ndv-close-button').click();
});

it('adds Order › Update Status after the trigger, maps the order id by dragging it from the input, runs the step', async () => {
	await page.getByTestId('canvas-handle-plus').click();
	await page.keyboard.type('storefront');
	await page
		.getByTestId('node-creator-item-name')
		.filter({ hasText: /^\s*Storefront\s*$/ })
		.click();
	await page
		.getByTestId('node-creator-item-name')
		.filter({ hasText: /^Update order status$/ })
		.click();
	await ndv().getByTestId('node-parameters').waitFor();
	// The only credential of its type is chosen for the new node.
	await expect(
		ndv().getByTestId('node-credentials-select').locator('input').inputValue(),
	).resolves.toBe(CREDENTIAL_NAME);
	await expect(
		ndv().getByTestId('parameter-input-resource').locator('input').inputValue(),
	).resolves.toBe('Order');
	await expect(
		ndv().getByTestId('parameter-input-operation').locator('input').inputValue(),
	).resolves.toBe('Update Status');

	// Drag `order_id` from the trigger's output (the input panel) onto the Order field.
	const input = ndv().getByTestId('ndv-input-panel');
	await expectText(input, /status\s*pending/);
	const from = (await input
		.getByTestId('run-data-schema-node-name')
		.filter({ hasText: /^order_id$/ })
		.boundingBox())!;
	const to = (await ndv()
		.getByTestId('resource-locator-orderId')
		.getByTestId('rlc-input-container')
		.boundingBox())!;
	await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
	await page.mouse.down();
	for (let step = 1; step <= 20; step++) {
		await page.mouse.move(
			from.x + from.width / 2 + ((to.x + to.width / 2 - from.x - from.width / 2) * step) / 20,
			from.y + from.height / 2 + ((to.y + to.height / 2 - from.y - from.height / 2) * step) / 20,
		);
	}
	await page.mouse.up();
	const locator = ndv().getByTestId('resource-locator-orderId');
	await expect(
		locator.getByTestId('rlc-mode-selector').locator('input').inputValue(),
	).resolves.toBe('By ID');
	await eventually(
		async () => (await locator.innerText()).includes('{{ $json.data.order_id }}') || undefined,
		'the mapped expression',
	);
	// Leave the expression field (its preview pop-over covers the Status field), then choose the status.
	await ndv().getByTestId('tab-params').click();
	await ndv().getByTestId('parameter-input-status').click();
	await page
		.locator('.el-select-dropdown__item:visible')
		.filter({ hasText: /^Processing/ })
		.first()
		.click();
	await expect(
		ndv().getByTestId('parameter-input-status').locator('input').inputValue(),
	).resolves.toBe('Processing');

	await ndv().getByTestId('node-execute-button').click();
	const output = ndv().getByTestId('output-panel');
	await output.getByText('processing', { exact: true }).first().waitFor();
	await expectText(output, testOrder.id);
	expect(sandboxOrder(testOrder.id).status).toBe('processing');
	await picture(page, 'quickstart-update-status');
	await ndv().getByTestId('ndv-close-button').click();
});

it('publishes the workflow: two connected nodes, live', async () => {
	const nodes = page.locator('[data-test-id="canvas-node"]');
	expect(
		await nodes.evaluateAll((els) => els.map((el) => el.getAttribute('data-node-type'))),
	).toEqual([TYPES.trigger, TYPES.action]);
	await expectCount(page.getByTestId('edge'), 1);
	// The action node's canvas subtitle names the operation as the panel does.
	await expectText(page.getByTestId('canvas-default-node'), 'Update Status: Order');
	await page.getByTestId('workflow-open-publish-modal-button').click();
	await page.getByTestId('workflow-publish-button').click();
	await page.getByRole('button', { name: 'Got it' }).click();
	await expect(
		page.getByTestId('workflow-open-publish-modal-button').innerText(),
	).resolves.toContain('Published');
	await page.getByTestId('zoom-to-fit').click();
	await screenshot(page, 'journey-08-published');
	// The one workflow of this n8n, under the name the user gave it.
	const workflows = await env.client.listWorkflows();
	expect(workflows.map((w: any) => w.name)).toEqual([WORKFLOW_NAME]);
	workflowId = workflows[0].id;
	const saved = await env.client.getWorkflow(workflowId);
	expect(saved.active).toBe(true);
	const action = saved.nodes.find((n: any) => n.type === TYPES.action);
	expect(action.parameters).toMatchObject({
		resource: 'order',
		operation: 'updateStatus',
		orderId: { __rl: true, mode: 'id', value: '={{ $json.data.order_id }}' },
	});
	// n8n saves no parameter that is at its default, and Status starts at Processing, the usual next step.
	expect(action.parameters.status ?? 'processing').toBe('processing');
});

it('a checkout runs it: the executions list shows one successful production run, and the order is processing', async () => {
	await registerWebhook(env, productionUrl);
	const order = (await env.sandbox.admin('POST', '/simulate/checkout', {})).body as {
		id: string;
		status: string;
	};
	expect(order.status).toBe('pending');
	await eventually(
		() => (sandboxOrder(order.id).status === 'processing' ? true : undefined),
		`${order.id} processing`,
	);

	// The order turns processing while the run still goes on: the list is opened once n8n lists that run as finished.
	await eventually(async () => {
		const all = await env.client.allExecutions({ workflowId });
		return all.some((r: any) => r.mode === 'webhook') &&
			all.every((r: any) => !['new', 'running', 'waiting'].includes(r.status))
			? true
			: undefined;
	}, `the production run of workflow ${workflowId} to be listed as finished`);
	await page.getByTestId('radio-button-executions').click();
	const cards = page.locator('[data-test-id^="execution-details-"]');
	await cards.first().waitFor();
	// The two runs made while building are listed as test runs (a flask); the checkout is the one production run.
	const listed = await cards.evaluateAll((els) =>
		els.map((el) => ({
			test: el.querySelector('[data-icon="flask-conical"]') !== null,
			text: String((el as any).innerText).replace(/\s+/g, ' '),
		})),
	);
	const production = listed.filter((card) => !card.test);
	expect(production).toHaveLength(1);
	expect(production[0].text).toContain('Succeeded');
	const runs = await env.client.allExecutions({ workflowId });
	expect(runs.filter((r: any) => r.mode === 'webhook').map((r: any) => r.status)).toEqual([
		'success',
	]);
	expect(runs).toHaveLength(listed.length);
	const { body: deliveries } = await env.sandbox.admin('GET', '/deliveries');
	// Its order.created, delivered once and acknowledged at once (a checkout may also send inventory.low, which the
	// trigger acknowledges without running: not among the chosen events).
	const delivered = (deliveries as any[]).filter(
		(d) => d.url === productionUrl && d.type === 'order.created',
	);
	expect(delivered.map((d) => d.attempts.map((a: any) => a.status))).toEqual([[200]]);
	await picture(page, 'quickstart-executions');
});

it('met no unexpected failed request on the way', () => {
	expect(session.unexpectedFailedRequests()).toEqual([]);
});

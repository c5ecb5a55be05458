/* eslint-disable @typescript-eslint/no-explicit-any -- test code: DOM values are untyped here (this project compiles without the DOM lib) */
// The n8n editor in a real browser (Debian's chromium driven by playwright-core) against a real n8n with this
// package installed: log in, open the demo workflow, open the Storefront node and the Storefront Trigger, run a
// Storefront node in the editor, map Create or Update's fields automatically and run it, check what renders, and save
// screenshots to artifacts/browser/. The pictures of README and docs/ (docs/images/) are regenerated here too (and by
// journey.test.ts), and the suite fails when one is blank, shows an error, or has a notification or pop-over over it.
// Chromium is required: without it the suite fails.
import type { Locator, Page } from 'playwright-core';

import { StorefrontApi } from '../../credentials/StorefrontApi.credentials';
import storefrontCodex from '../../nodes/Storefront/Storefront.node.json';
import triggerCodex from '../../nodes/StorefrontTrigger/StorefrontTrigger.node.json';
import { createWorkflow, instance, TYPES, type Environment } from '../e2e/environment';
import { assertDocTargetExists } from '../helpers/docLinks';
import {
	expectText,
	picture,
	screenshot,
	signIn,
	startBrowserSuite,
	type BrowserSuite,
} from './browser';

const ICON_PREFIX = `icons/${TYPES.action.split('.')[0]}/`;

jest.setTimeout(120_000);

let env: Environment;
let session: BrowserSuite;
let page: Page;
let workflow: Awaited<ReturnType<typeof createWorkflow>>;

beforeAll(async () => {
	session = await startBrowserSuite('browser', {}, async (started) => {
		// Under the example's own name: it is in the README's first picture.
		workflow = await createWorkflow(started, instance.loadExample('order-intake.json'), {
			keepName: true,
		});
	});
	({ env, page } = session);
}, 300_000);

afterAll(() => session?.stop(), 60_000);

const shot = (name: string) => screenshot(page, name);

/** Open a node's panel (NDV) by double-clicking it on the canvas. */
async function openNode(name: string) {
	const open = page.getByTestId('ndv-close-button');
	if (await open.isVisible()) await open.click();
	await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).dblclick();
	const ndv = page.getByTestId('ndv');
	await ndv.getByTestId('node-parameters').waitFor();
	return ndv;
}

/** The panel must not show n8n's "node not installed / parameters could not load / issues" states. */
async function expectNoNodeError(ndv: ReturnType<Page['getByTestId']>) {
	const text = await ndv.innerText();
	expect(text).not.toMatch(
		/not (currently )?installed|could not be loaded|problem loading|unknown node/i,
	);
	expect(await ndv.getByTestId('node-issues').count()).toBe(0);
	expect(await ndv.getByTestId('parameter-issues').count()).toBe(0);
}

/** Every Storefront icon on the page came from the package and decoded. */
async function expectPackageIcons(minimum: number) {
	const icons = page.locator(`img[src*="${ICON_PREFIX}"]`);
	await icons.first().waitFor();
	const states = await icons.evaluateAll((imgs) =>
		// Runs in the page (DOM images); typed loosely because this project compiles without the DOM lib.
		imgs.map((img: any) => ({
			src: img.getAttribute('src') as string,
			ok: img.complete === true && img.naturalWidth > 0,
		})),
	);
	expect(states.length).toBeGreaterThanOrEqual(minimum);
	for (const state of states) expect(state).toEqual({ src: state.src, ok: true });
}

/** Signs in when this step runs alone (`jest -t`): the first test signs in otherwise. */
async function signedIn() {
	if (!(await page.context().cookies()).some((cookie) => cookie.name === 'n8n-auth'))
		await signIn(page, env.n8nUrl);
}

/** The demo workflow on the canvas, signed in first when this step runs alone. */
async function openDemoWorkflow() {
	await signedIn();
	const open = page.getByTestId('ndv-close-button');
	if (await open.isVisible()) await open.click();
	await page.goto(`${env.n8nUrl}/workflow/${workflow.id}`);
	await page.locator('[data-test-id="canvas-node"]').first().waitFor();
}

/** An inactive "Start (manual) → one Storefront node" workflow; `pinned`: the items Start gives, as a user pins sample data. */
async function manualWorkflow(
	name: string,
	nodeName: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
	pinned?: object[],
) {
	return await createWorkflow(
		env,
		{
			name,
			nodes: [
				{
					id: 'b-manual',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'b-action',
					name: nodeName,
					type: TYPES.action,
					typeVersion,
					position: [240, 0],
					parameters,
					credentials: { storefrontApi: { id: env.credential.id, name: env.credential.name } },
				},
			],
			connections: { Start: { main: [[{ node: nodeName, type: 'main', index: 0 }]] } },
			...(pinned ? { pinData: { Start: pinned.map((json) => ({ json })) } } : {}),
			settings: { executionOrder: 'v1' },
		},
		{ activate: false },
	);
}

/** `promise`, or a rejection naming `what` after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		// eslint-disable-next-line @n8n/community-nodes/no-restricted-globals -- test code: a bounded wait for a CDP event
		timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
	});
	// eslint-disable-next-line @n8n/community-nodes/no-restricted-globals -- test code: see above
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Click a link that opens a new tab and check the tab was opened with `url`, as navigation target, not as what
 * loaded: the page is on GitHub and the test never leaves the machine (requests to its origin are aborted as
 * "internet disconnected" while the tab opens). Two records of the target: chromium's Page.windowOpen event on the
 * editor's page (the whole URL, #fragment included) and the new tab's navigation request (the URL without its
 * fragment, which browsers never send). The editor stays where it was; the tab is closed again.
 */
async function expectOpensTab(link: Locator, url: string) {
	const context = page.context();
	const target = new URL(url);
	const offline = (requested: URL) => requested.origin === target.origin;
	await context.route(offline, (route) => route.abort('internetdisconnected'));
	const cdp = await context.newCDPSession(page);
	await cdp.send('Page.enable');
	const windowOpen = new Promise<string>((resolve) =>
		cdp.once('Page.windowOpen', (event) => resolve(event.url)),
	);
	const editorUrl = page.url();
	try {
		const [tab, request, opened] = await Promise.all([
			context.waitForEvent('page', { timeout: 30_000 }),
			// A new tab's first navigation is requested before its frame exists: matched by its origin.
			context.waitForEvent('request', {
				predicate: (r) => r.isNavigationRequest() && offline(new URL(r.url())),
				timeout: 30_000,
			}),
			within(windowOpen, 30_000, 'Page.windowOpen'),
			link.click(),
		]);
		expect(tab).not.toBe(page);
		expect(opened).toBe(url);
		target.hash = '';
		expect(request.url()).toBe(target.href);
		expect(page.url()).toBe(editorUrl);
		await tab.close();
	} finally {
		await cdp.detach().catch(() => undefined);
		await context.unroute(offline);
	}
}

it('logs in with the owner account', async () => {
	await signIn(page, env.n8nUrl);
	// The home page once its list has loaded: on a busy machine the sidebar comes first, and a picture of it alone
	// was refused as nearly blank (ink 0.0048, a CI run beside the reliability suite).
	await page.getByText('Storefront: order intake').first().waitFor();
	await shot('01-after-login');
});

it('opens the demo workflow with the package nodes and their icons on the canvas', async () => {
	await page.goto(`${env.n8nUrl}/workflow/${workflow.id}`);
	const nodes = page.locator('[data-test-id="canvas-node"]');
	await nodes.first().waitFor();
	const types = await nodes.evaluateAll((els) =>
		els.map((el) => el.getAttribute('data-node-type')),
	);
	expect(types).toEqual(expect.arrayContaining([TYPES.trigger, TYPES.action]));
	// Trigger + Get Order + Mark Processing each show the Storefront icon.
	await expectPackageIcons(3);
	await expectText(page.getByTestId('workflow-name-input'), 'Storefront: order intake');
	await shot('02-workflow-canvas');
	await picture(page, 'workflow-canvas');
});

it('renders the Storefront node: resource and operation selectors and the order resource locator', async () => {
	const ndv = await openNode('Get Order');
	await expect(
		ndv.getByTestId('parameter-input-resource').locator('input').inputValue(),
	).resolves.toBe('Order');
	await expect(
		ndv.getByTestId('parameter-input-operation').locator('input').inputValue(),
	).resolves.toBe('Get');
	const locator = ndv.getByTestId('resource-locator-orderId');
	await locator.waitFor();
	await expect(
		locator.getByTestId('rlc-mode-selector').locator('input').inputValue(),
	).resolves.toBe('By ID');
	await expectText(locator, '$json.data.order_id');
	await expect(
		ndv.getByTestId('node-credentials-select').locator('input').inputValue(),
	).resolves.toBe('Storefront sandbox');
	await expectNoNodeError(ndv);
	await expectPackageIcons(1);
	await shot('03-storefront-node');

	// The resource selector offers every resource of the API.
	await ndv.getByTestId('parameter-input-resource').click();
	const options = page.locator('.el-select-dropdown__item:visible');
	await options.first().waitFor();
	const names = (await options.allInnerTexts()).map((text) => text.split('\n')[0].trim());
	expect(names).toEqual(
		expect.arrayContaining(['Analytics', 'Customer', 'Order', 'Product', 'Store']),
	);
	await shot('04-storefront-resources');
	await page.keyboard.press('Escape');
	await ndv.getByTestId('ndv-close-button').click();
});

it('renders the Storefront Trigger: production webhook URL, the dashboard notice, the events and its options by what they do', async () => {
	const ndv = await openNode('On Order Created');
	await expectText(ndv, 'Storefront has no API to register webhooks');
	await expectText(ndv.getByTestId('parameter-input-events'), 'Order Created');
	// The collection's "Add option": a select (placeholder) or a dropdown button, by n8n line.
	const addOption = ndv
		.getByPlaceholder('Add option')
		.or(ndv.getByRole('button', { name: 'Add option' }))
		.first();
	await addOption.click();
	const offered = page.locator('.el-select-dropdown__item:visible');
	await offered.filter({ hasText: 'Drop Duplicate Events' }).first().waitFor();
	const names = (await offered.allTextContents()).map((text) => text.trim()).filter(Boolean);
	expect(names).toEqual(
		expect.arrayContaining([
			'Catch Up After Downtime',
			'Check for Missed Events Every (Minutes)',
			'Drop Duplicate Events',
			'Remember Events For (Hours)',
		]),
	);
	expect(names.filter((name) => /Reconcile/.test(name))).toEqual([]);
	await shot('05-storefront-trigger-options');
	await picture(page, 'trigger-options');
	await addOption.click();
	await offered.first().waitFor({ state: 'hidden' });

	await ndv.getByText('Webhook URLs').click();
	await ndv.getByText('Production URL', { exact: true }).click();
	await expectText(ndv, workflow.url);
	await expectNoNodeError(ndv);
	await expectPackageIcons(1);
	await shot('05-storefront-trigger');
	await picture(page, 'trigger-panel');
	await ndv.getByTestId('ndv-close-button').click();
	// On the canvas, under the node's name, its events by the names the panel shows.
	const onCanvas = page.locator('[data-test-id="canvas-node"][data-node-name="On Order Created"]');
	const lines = (await onCanvas.innerText()).split('\n').map((line) => line.trim());
	expect(lines).toEqual(expect.arrayContaining(['On Order Created', 'Order Created']));
	expect(lines).not.toContain('order.created');
});

it('runs a Storefront node in the editor: order picked from the list, output items beside the parameters', async () => {
	// A pending order: the one a shop acts on next.
	const order = [...env.sandbox.state.orders.values()].find((o) => o.status === 'pending')!;
	const run = await manualWorkflow('Look up an order', 'Get Order', 1, {
		resource: 'order',
		operation: 'get',
		orderId: {
			__rl: true,
			mode: 'list',
			value: order.id,
			cachedResultName: `${order.id} · ${order.status}`,
		},
	});
	await page.goto(`${env.n8nUrl}/workflow/${run.id}`);
	await page.locator('[data-test-id="canvas-node"]').first().waitFor();
	await page.getByTestId('execute-workflow-button').click();
	// The run is over when the node shows its success badge on the canvas.
	await page
		.locator(
			'[data-test-id="canvas-node"][data-node-name="Get Order"] [data-test-id="canvas-node-status-success"]',
		)
		.waitFor();
	const ndv = await openNode('Get Order');
	await expect(
		ndv.getByTestId('parameter-input-resource').locator('input').inputValue(),
	).resolves.toBe('Order');
	await expect(ndv.getByTestId('rlc-mode-selector').locator('input').inputValue()).resolves.toBe(
		'From list',
	);
	const output = ndv.getByTestId('output-panel');
	await expectText(output, order.id);
	await expectNoNodeError(ndv);
	await shot('06-storefront-node-run');
	await picture(page, 'storefront-node-run');
	await ndv.getByTestId('ndv-close-button').click();
});

it("Create or Update in the editor: the fields under Create's and Update's names; Map Automatically matches on SKU; a step run outputs the products and its hints say what it did (created the new SKU, updated the changed price)", async () => {
	const existing = [...env.sandbox.state.products.values()].find((p) => p.status === 'active')!;
	const newPrice = Number((Number(existing.price) + 1).toFixed(2));
	const freshSku = `BROWSER-${Date.now().toString(36).toUpperCase()}`;
	// Rows as a sheet or CSV gives them.
	const rows = [
		{ sku: existing.sku, name: existing.name, price: newPrice, stock: existing.stock },
		{ sku: freshSku, name: 'Browser Mug', price: 12.5, stock: 3 },
	];
	// As the nodes panel adds it: Product › Create or Update, every other parameter at its default.
	const sync = await manualWorkflow(
		'Catalog sync by hand',
		'Sync Products',
		1,
		{ resource: 'product', operation: 'upsert' },
		rows,
	);
	await signedIn();
	await page.goto(`${env.n8nUrl}/workflow/${sync.id}`);
	await page.locator('[data-test-id="canvas-node"]').first().waitFor();
	const ndv = await openNode('Sync Products');
	const mapper = ndv.getByTestId('resource-mapper-container');
	// Map Each Column Below (the default) lists the fields as Create and Update name them.
	await mapper.getByText('Inventory Quantity', { exact: true }).first().waitFor();
	const listed = await mapper.innerText();
	for (const name of ['SKU', 'Name', 'Price', 'Inventory Quantity', 'Image URLs'])
		expect({ name, listed: listed.includes(name) }).toEqual({ name, listed: true });
	expect(listed).not.toMatch(/\bstock\b/);
	await expectNoNodeError(ndv);
	await shot('08-create-or-update-fields');
	await mapper.getByTestId('mapping-mode-select').click();
	await page
		.locator('.el-select-dropdown__item:visible')
		.filter({ hasText: /^Map Automatically/ })
		.first()
		.click();
	await expect(
		mapper.getByTestId('mapping-mode-select').locator('input').inputValue(),
	).resolves.toBe('Map Automatically');
	// The product fields come from the node (getProductFields); SKU is the one to match on unless the user picks another.
	// n8n's select shows the chosen field's id in its box (its options carry no label) and the names in its list.
	const matchOn = mapper.getByTestId('matching-column-select');
	await expect(matchOn.locator('input').first().inputValue()).resolves.toBe('sku');
	await matchOn.locator('input').first().click();
	const options = page
		.locator('[data-test-id^="matching-column-option-"]')
		.filter({ visible: true });
	await options.first().waitFor();
	expect((await options.allInnerTexts()).map((text) => text.trim())).toEqual([
		'SKU',
		'Name',
		'Product ID',
	]);
	await page.keyboard.press('Escape');
	await options.first().waitFor({ state: 'hidden' });
	await expectText(mapper, 'with none, one is created');
	await expectNoNodeError(ndv);
	await shot('08-create-or-update-map-automatically');

	await ndv.getByTestId('node-execute-button').click();
	const output = ndv.getByTestId('output-panel');
	// The output items are the two products, as Create and Update output them.
	await output.getByText(freshSku, { exact: true }).first().waitFor();
	await expectText(output, existing.sku);
	// Each hint of the run is one node-hint: what it did, which fields it wrote, and how it found the products.
	const hints = (await output.getByTestId('node-hint').allInnerTexts()).join('\n');
	expect(hints).toContain('Created 1, updated 1, left 0 unchanged');
	expect(hints).toContain('Updated Price on 1 product');
	expect(hints).toMatch(/Found the products by (looking up each SKU|reading the catalog)/);
	await shot('09-create-or-update-run');
	const withSku = (sku: string) =>
		[...env.sandbox.state.products.values()].filter((p) => p.sku === sku);
	expect(
		withSku(freshSku).map((p) => ({
			name: p.name,
			price: Number(p.price),
			stock: Number(p.stock),
		})),
	).toEqual([{ name: 'Browser Mug', price: 12.5, stock: 3 }]);
	expect(withSku(existing.sku).map((p) => Number(p.price))).toEqual([newPrice]);
	await ndv.getByTestId('ndv-close-button').click();
});

it('links the Docs of both nodes and of the credentials to their page in this repository, opened in a new tab', async () => {
	await openDemoWorkflow();
	const nodes = [
		{ name: 'Get Order', type: TYPES.action, codex: storefrontCodex },
		{ name: 'On Order Created', type: TYPES.trigger, codex: triggerCodex },
	];
	for (const { name, type, codex } of nodes) {
		const ndv = await openNode(name);
		// The "Docs" link in the panel's header, next to its close button (n8n's NDVHeader; its href is n8n's
		// useNodeDocsUrl: the codex's primaryDocumentation[0].url).
		const link = ndv
			.locator('header')
			.filter({ has: page.getByTestId('node-title-container') })
			.locator('a.n8n-link', { hasText: /^\s*Docs\s*$/ });
		await expect(link.getAttribute('target')).resolves.toBe('_blank');
		const href = (await link.getAttribute('href'))!;
		// n8n appends its utm parameters to every codex URL, not only to its own: strip exactly those.
		const shown = new URL(href);
		expect(Object.fromEntries(shown.searchParams)).toEqual({
			utm_source: 'n8n_app',
			utm_medium: 'node_settings_modal-credential_link',
			utm_campaign: type,
		});
		shown.search = '';
		const codexUrl = codex.resources.primaryDocumentation[0].url;
		expect(shown.href).toBe(codexUrl);
		assertDocTargetExists(codexUrl);
		await expectOpensTab(link, href);
		await ndv.getByTestId('ndv-close-button').click();
	}

	// The credential dialog's docs link: the credential's documentationUrl as it is (n8n's CredentialConfig adds utm
	// parameters only to docs.n8n.io URLs). n8n 2.41.1 puts it after its "Ask n8n Assistant" button ("… or read the
	// docs") when the assistant can help with credentials, as here, and in a "Need help filling out these fields? Read
	// our docs" callout otherwise.
	const ndv = await openNode('Get Order');
	await ndv.getByTestId('credential-edit-button').click();
	const dialog = page.getByTestId('editCredential-modal');
	const link = dialog
		.getByTestId('node-credentials-config-container')
		.locator(
			'[data-test-id="credential-edit-instance-ai-help-button"] a.n8n-link, .n8n-callout a.n8n-link',
		);
	await expectText(link, /^(docs|Read our docs)$/);
	await expect(link.getAttribute('target')).resolves.toBe('_blank');
	const documentationUrl = new StorefrontApi().documentationUrl;
	await expect(link.getAttribute('href')).resolves.toBe(documentationUrl);
	assertDocTargetExists(documentationUrl);
	await shot('07-credential-docs-link');
	await expectOpensTab(link, documentationUrl);
	await dialog.locator('.el-dialog__headerbtn').click();
	await dialog.waitFor({ state: 'hidden' });
	await ndv.getByTestId('ndv-close-button').click();
});

it('raised no page errors or error notifications, and every failed request is an expected one', async () => {
	expect(session.unexpectedFailedRequests()).toEqual([]);
	expect(session.pageErrors).toEqual([]);
	expect(await session.errorToasts()).toEqual([]);
});

/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; n8n's internal REST API answers untyped JSON */
// The n8n editor in a real browser (Debian's chromium driven by playwright-core) against a real n8n with this
// package installed: log in, open the demo workflow, open the Storefront node and the Storefront Trigger, check
// what renders, and save screenshots to artifacts/browser/. Chromium is required: without it the suite fails.
import * as fs from 'fs';
import * as path from 'path';
import { chromium, selectors, type Browser, type Page } from 'playwright-core';

import { createWorkflow, instance, OWNER, runtime, startEnvironment, type Environment } from '../e2e/environment';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve(__dirname, '..', '..', 'artifacts', 'browser');
const ICON_PREFIX = `icons/${runtime.PACKAGE_NAME}/`;

jest.setTimeout(120_000);

let env: Environment;
let browser: Browser;
let page: Page;
let workflow: Awaited<ReturnType<typeof createWorkflow>>;
const failedRequests: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(
			`Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH). The browser suite needs it and does not skip.`,
		);
	}
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	env = await startEnvironment('browser');
	workflow = await createWorkflow(env, instance.loadExample('order-intake.json'));

	selectors.setTestIdAttribute('data-test-id');
	browser = await chromium.launch({
		executablePath: CHROMIUM,
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--no-first-run',
		],
	});
	page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
	page.setDefaultTimeout(30_000);
	page.on('pageerror', (error) => pageErrors.push(error.message));
	page.on('response', (response) => {
		if (response.status() >= 400) failedRequests.push(`${response.status()} ${new URL(response.url()).pathname}`);
	});
}, 300_000);

afterAll(async () => {
	await browser?.close();
	await env?.stop();
}, 60_000);

const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

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
	expect(text).not.toMatch(/not (currently )?installed|could not be loaded|problem loading|unknown node/i);
	expect(await ndv.getByTestId('node-issues').count()).toBe(0);
	expect(await ndv.getByTestId('parameter-issues').count()).toBe(0);
}

/** Every Storefront icon on the page came from the package and decoded. */
async function expectPackageIcons(minimum: number) {
	const icons = page.locator(`img[src*="${ICON_PREFIX}"]`);
	await icons.first().waitFor();
	const states = await icons.evaluateAll((imgs) =>
		// Runs in the page (DOM images); typed loosely because this project compiles without the DOM lib.
		imgs.map((img: any) => ({ src: img.getAttribute('src') as string, ok: img.complete === true && img.naturalWidth > 0 })),
	);
	expect(states.length).toBeGreaterThanOrEqual(minimum);
	for (const state of states) expect(state).toEqual({ src: state.src, ok: true });
}

it('logs in with the owner account', async () => {
	await page.goto(`${env.n8nUrl}/signin`);
	await page.locator('input[name="emailOrLdapLoginId"]').fill(OWNER.email);
	await page.locator('input[name="password"]').fill(OWNER.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
	await shot('01-after-login');
});

it('opens the demo workflow with the package nodes and their icons on the canvas', async () => {
	await page.goto(`${env.n8nUrl}/workflow/${workflow.id}`);
	const nodes = page.locator('[data-test-id="canvas-node"]');
	await nodes.first().waitFor();
	const types = await nodes.evaluateAll((els) => els.map((el) => el.getAttribute('data-node-type')));
	expect(types).toEqual(expect.arrayContaining([runtime.TYPES.trigger, runtime.TYPES.action]));
	// Trigger + Get Order + Mark Processing each show the Storefront icon.
	await expectPackageIcons(3);
	await shot('02-workflow-canvas');
});

it('renders the Storefront node: resource and operation selectors and the order resource locator', async () => {
	const ndv = await openNode('Get Order');
	await expect(ndv.getByTestId('parameter-input-resource').locator('input').inputValue()).resolves.toBe('Order');
	await expect(ndv.getByTestId('parameter-input-operation').locator('input').inputValue()).resolves.toBe('Get');
	const locator = ndv.getByTestId('resource-locator-orderId');
	await locator.waitFor();
	await expect(locator.getByTestId('rlc-mode-selector').locator('input').inputValue()).resolves.toBe('By ID');
	await expect(locator.innerText()).resolves.toContain('$json.data.order_id');
	await expect(ndv.getByTestId('node-credentials-select').locator('input').inputValue()).resolves.toBe('Storefront sandbox');
	await expectNoNodeError(ndv);
	await expectPackageIcons(1);
	await shot('03-storefront-node');

	// The resource selector offers every resource of the API.
	await ndv.getByTestId('parameter-input-resource').click();
	const options = page.locator('.el-select-dropdown__item:visible');
	await options.first().waitFor();
	const names = (await options.allInnerTexts()).map((text) => text.split('\n')[0].trim());
	expect(names).toEqual(expect.arrayContaining(['Analytics', 'Customer', 'Order', 'Product', 'Store']));
	await shot('04-storefront-resources');
	await page.keyboard.press('Escape');
	await ndv.getByTestId('ndv-close-button').click();
});

it('renders the Storefront Trigger: production webhook URL, the dashboard notice and the events', async () => {
	const ndv = await openNode('On Order Created');
	await expect(ndv.innerText()).resolves.toContain('Storefront has no API to register webhooks');
	await expect(ndv.getByTestId('parameter-input-events').innerText()).resolves.toContain('Order Created');

	await ndv.getByText('Webhook URLs').click();
	await ndv.getByText('Production URL', { exact: true }).click();
	await expect(ndv.innerText()).resolves.toContain(workflow.url);
	await expectNoNodeError(ndv);
	await expectPackageIcons(1);
	await shot('05-storefront-trigger');
	await ndv.getByTestId('ndv-close-button').click();
});

it('raised no page errors and every failed request is an expected one', () => {
	// n8n asks for optional output schemas that community nodes do not ship; the failed login probe before
	// signing in is the editor checking for a session.
	const unexpected = failedRequests.filter((r) => !/^404 \/schemas\//.test(r) && !/^401 \/rest\/login$/.test(r));
	expect(unexpected).toEqual([]);
	expect(pageErrors).toEqual([]);
});

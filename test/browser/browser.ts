/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any, @n8n/community-nodes/require-node-api-error -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file; DOM values are untyped here (no DOM lib) */
// What both browser suites share: Debian's chromium driven by playwright-core, signing in, screenshots that must show
// something, and the README's pictures, which must show no error and nothing covering the canvas.
import * as fs from 'fs';
import * as path from 'path';
import { inflateSync } from 'zlib';
import { chromium, selectors, type Browser, type Locator, type Page } from 'playwright-core';

import {
	OWNER,
	startEnvironment,
	type Environment,
	type EnvironmentOptions,
} from '../e2e/environment';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve(__dirname, '..', '..', 'artifacts', 'browser');
const PICTURES = path.resolve(__dirname, '..', '..', 'docs', 'images');

interface BrowserSession {
	browser: Browser;
	page: Page;
	/** Uncaught errors in the page. */
	pageErrors: string[];
	/** Every answer of 400 or more the editor got, but the expected ones: "<status> <path>". */
	unexpectedFailedRequests(): string[];
	/** The text of every error notification n8n showed since the page loaded (recorded as it appears). */
	errorToasts(): Promise<string[]>;
}

/**
 * Failed requests every editor session makes: n8n asks for optional output schemas that community nodes do not ship,
 * and the login probe before signing in is the editor checking for a session.
 */
const EXPECTED_FAILURES = [/^404 \/schemas\//, /^401 \/rest\/login$/];

/** A browser suite's n8n (with the sandbox) and browser session; `stop()` ends both. */
export interface BrowserSuite extends BrowserSession {
	env: Environment;
	stop(): Promise<void>;
}

/**
 * Start the environment, let `prepare` set it up (workflows to open, say), then open the browser on its editor. What
 * was started is stopped again when a later part fails.
 */
export async function startBrowserSuite(
	label: string,
	options: EnvironmentOptions = {},
	prepare?: (env: Environment) => Promise<void>,
): Promise<BrowserSuite> {
	const env = await startEnvironment(label, options);
	let session: BrowserSession | undefined;
	try {
		await prepare?.(env);
		session = await openBrowser(env.n8nUrl);
	} catch (error) {
		await env.stop();
		throw error;
	}
	const opened = session;
	return {
		...opened,
		env,
		async stop() {
			await opened.browser.close();
			await env.stop();
		},
	};
}

/**
 * Launch chromium with one 1440×900 page, clipboard access for the editor's origin (the trigger panel copies its
 * URL there), and listeners that record page errors, failed requests and error notifications. Fails (never skips)
 * without chromium.
 */
async function openBrowser(origin: string): Promise<BrowserSession> {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(
			`Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH). The browser suites need it and do not skip.`,
		);
	}
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	fs.mkdirSync(PICTURES, { recursive: true });
	selectors.setTestIdAttribute('data-test-id');
	const browser = await chromium.launch({
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
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
	// n8n's notifications come and go within seconds: record each error one as it is added to the page.
	await context.addInitScript(() => {
		// n8n's one-time "you can pin this output" hints are marked as seen, as for anyone who has used the editor
		// before: shown, they sit over the output the pictures are about.
		(globalThis as any).localStorage.setItem('N8N_PIN_DATA_DISCOVERY_NDV', 'true');
		(globalThis as any).localStorage.setItem('N8N_PIN_DATA_DISCOVERY_CANVAS', 'true');
		const seen: string[] = [];
		(globalThis as any).__errorToasts = seen;
		new (globalThis as any).MutationObserver(() => {
			for (const toast of (globalThis as any).document.querySelectorAll('.el-notification')) {
				if (toast.dataset.recorded || !toast.querySelector('.el-notification--error')) continue;
				toast.dataset.recorded = '1';
				seen.push(String(toast.innerText).replace(/\s+/g, ' ').trim());
			}
		}).observe((globalThis as any).document, { childList: true, subtree: true });
	});
	const page = await context.newPage();
	// Waits on the page's conditions, bounded for a saturated machine: at 98 % CPU (a clean-clone .ci/run, the matrix
	// beside it) the sign-in page took over 30 s to load, and every later step of the file failed with it.
	page.setDefaultTimeout(60_000);
	page.setDefaultNavigationTimeout(90_000);
	const pageErrors: string[] = [];
	const failedRequests: string[] = [];
	page.on('pageerror', (error) => pageErrors.push(error.message));
	page.on('response', (response) => {
		if (response.status() >= 400)
			failedRequests.push(`${response.status()} ${new URL(response.url()).pathname}`);
	});
	return {
		browser,
		page,
		pageErrors,
		unexpectedFailedRequests: () =>
			failedRequests.filter((r) => !EXPECTED_FAILURES.some((expected) => expected.test(r))),
		errorToasts: () =>
			page.evaluate(() => [...((globalThis as any).__errorToasts ?? [])] as string[]),
	};
}

/** Sign in with the owner account from n8n's sign-in page. */
export async function signIn(page: Page, n8nUrl: string) {
	await page.goto(`${n8nUrl}/signin`);
	await page.locator('input[name="emailOrLdapLoginId"]').fill(OWNER.email);
	await page.locator('input[name="password"]').fill(OWNER.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
	// Signed in once the editor's sidebar is there (before that the page is still blank).
	await page.getByTestId('main-sidebar-settings').waitFor();
}

/**
 * Share of non-zero bytes in a PNG's filtered scanlines: a blank (one-colour) screenshot has almost none, since
 * each row filters to zeros. Enough to tell "something rendered" without an image library.
 */
function pngInk(png: Buffer) {
	const idat: Buffer[] = [];
	for (let at = 8; at < png.length; ) {
		const length = png.readUInt32BE(at);
		if (png.toString('ascii', at + 4, at + 8) === 'IDAT')
			idat.push(png.subarray(at + 8, at + 8 + length));
		at += 12 + length;
	}
	const raw = inflateSync(Buffer.concat(idat));
	let ink = 0;
	for (const byte of raw) if (byte !== 0) ink++;
	return ink / raw.length;
}

// A one-colour screenshot scores about 0.0002 (one filter byte per row); n8n's pages score 0.015 and more.
const MIN_INK = 0.005;
const PAGE_ERROR_TEXT =
	/problem (loading|running)|could not be loaded|not (currently )?installed|something went wrong/i;

/** A step's screenshot, saved to artifacts/browser/<name>.png: refused when blank or when the page shows an error. */
export async function screenshot(page: Page, name: string) {
	await settle(page);
	expect(await page.locator('body').innerText()).not.toMatch(PAGE_ERROR_TEXT);
	const png = await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
	expect(pngInk(png)).toBeGreaterThan(MIN_INK);
	return png;
}

/** Close n8n's notifications (they would sit over a picture's corner). */
export async function closeToasts(page: Page) {
	for (const close of await page.locator('.el-notification .el-notification__closeBtn').all())
		await close.click().catch(() => undefined);
	await page
		.locator('.el-notification')
		.first()
		.waitFor({ state: 'detached', timeout: 5_000 })
		.catch(() => undefined);
}

/**
 * Wait until the page and its frames (the executions preview is one) have finished their finite animations: panels
 * slide and fade in, and a picture taken meanwhile catches them half-way.
 */
async function settle(page: Page) {
	for (const frame of page.frames()) {
		await frame
			.waitForFunction(
				() =>
					(globalThis as any).document
						.getAnimations()
						.every(
							(a: any) =>
								a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity,
						),
				undefined,
				{ timeout: 5_000 },
			)
			.catch(() => undefined);
	}
}

/**
 * A README picture, saved to docs/images/<name>.png (and the step's copy in artifacts): refused when blank, when the
 * page shows an error, or when a notification or n8n's "Production Checklist" pop-over sits over it.
 */
export async function picture(page: Page, name: string) {
	await closeToasts(page);
	await settle(page);
	// A toast that arrived while the page settled (a slow machine's late "executed" notice) is closed the same way.
	if (await page.locator('.el-notification:visible').count()) {
		await closeToasts(page);
		await settle(page);
	}
	const checklist = page.getByTestId('suggested-actions-close');
	if (await checklist.isVisible()) await checklist.click();
	expect(await page.locator('.el-notification:visible').allInnerTexts()).toEqual([]);
	expect(await page.getByTestId('suggested-action-item').filter({ visible: true }).count()).toBe(0);
	const png = await screenshot(page, name);
	fs.writeFileSync(path.join(PICTURES, `${name}.png`), png);
}

/**
 * Expects the locator's text to contain `expected` (or match it): read until it does, 30 s at most, never once. A
 * panel shows its header before its items, and the editor renders later on a busy machine (one CI run read an
 * output panel as "OUTPUT Schema Table JSON 1 item", its item not drawn yet). After the time-out the last text is
 * what the failure shows.
 */
export async function expectText(locator: Locator, expected: string | RegExp, timeoutMs = 30_000) {
	const holds = (text: string) =>
		typeof expected === 'string' ? text.includes(expected) : expected.test(text);
	const text = await readUntil(() => locator.innerText(), holds, timeoutMs);
	if (typeof expected === 'string') expect(text).toContain(expected);
	else expect(text).toMatch(expected);
}

/** Expects the locator to find `n` elements: counted until it does, 30 s at most, never once. */
export async function expectCount(locator: Locator, n: number, timeoutMs = 30_000) {
	expect(
		await readUntil(
			() => locator.count(),
			(count) => count === n,
			timeoutMs,
		),
	).toBe(n);
}

/** Reads until what is read holds or the time is up, and returns the last reading. */
async function readUntil<T>(
	read: () => Promise<T>,
	holds: (value: T) => boolean,
	timeoutMs: number,
) {
	const deadline = Date.now() + timeoutMs;
	let value = await read();
	while (!holds(value) && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 200));
		value = await read();
	}
	return value;
}

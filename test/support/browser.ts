import AxeBuilder from '@axe-core/playwright';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type CDPSession, chromium, type Locator, type Page } from 'playwright-core';
import { freePort } from '@agent-memory/testing';
import { startStandaloneServer, type TestServer } from './standalone-server';

/**
 * Browser tests of the dashboard (docs/dashboard.md, "Tests"): Debian's Chromium driven by playwright-core
 * (`npx playwright install` cannot download here), passkeys through Chromium's virtual authenticator (CDP
 * `WebAuthn.*`), against a real server on `localhost` (WebAuthn refuses an IP address as relying party).
 */

/** Debian's Chromium; `CHROMIUM_PATH` overrides it. .ci/run installs the `chromium` package when it is missing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags this machine needs: no sandbox (root), no GPU, and no connection outside loopback. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-quic', '--no-first-run', '--disable-sync'];

/** The tracked screenshots docs/dashboard.md and the README show, rewritten only with `UPDATE_SCREENSHOTS=1`. */
export const DOCS_SCREENSHOT_DIR = join(__dirname, '..', '..', 'docs', 'screenshots');

/**
 * Where the browser tests write their screenshots: `tmp/screenshots/` (ignored by git) on an ordinary run,
 * so that running the tests leaves the tree clean; `docs/screenshots/` with `UPDATE_SCREENSHOTS=1`, to
 * refresh the pictures of the docs (docs/dashboard.md, "Tests").
 */
export const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1' ? DOCS_SCREENSHOT_DIR : join(__dirname, '..', '..', 'tmp', 'screenshots');

/** Starts headless Chromium with a fresh profile. Throws with the fix when Chromium is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}: apt-get install chromium (.ci/run does), or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/** A standalone server whose dashboard works in a browser: `dashboardUrl` is `http://localhost:<port>/dashboard/`. */
export interface DashboardServer extends TestServer {
  /** `http://localhost:<port>`: the origin passkeys are bound to (PASSKEY_ORIGINS). */
  origin: string;
  dashboardUrl: string;
}

/**
 * Starts the real standalone system on a fixed free port so that `PASSKEY_ORIGINS` is `http://localhost:<port>`.
 * The port is chosen before the server binds it (freePort: from this Jest worker's own slice, outside the
 * ephemeral range); should something still take it meanwhile (EADDRINUSE), it tries another, up to 5 times.
 */
export async function startDashboardServer(options: { env?: Record<string, string>; dataDir?: string } = {}): Promise<DashboardServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    try {
      const server = await startStandaloneServer({ port, dataDir: options.dataDir, env: { PASSKEY_ORIGINS: origin, ...options.env } });
      return Object.assign(server, { origin, dashboardUrl: `${origin}/dashboard/` });
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'EADDRINUSE' || attempt >= 5) throw err;
    }
  }
}

/** A virtual authenticator of one page's browser context (CDP `WebAuthn`), and what it holds. */
export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
  /** The credentials it holds (resident keys the dashboard created). */
  credentials(): Promise<Array<{ credentialId: string; isResidentCredential: boolean; rpId?: string; userHandle?: string; signCount: number }>>;
  /** Whether the next ceremonies succeed at user verification (false: the "user" fails biometrics). */
  setUserVerified(verified: boolean): Promise<void>;
  /** Whether the authenticator answers at all; false makes the browser's ceremony wait until its timeout or a cancel. */
  setPresence(automatic: boolean): Promise<void>;
  remove(): Promise<void>;
}

/**
 * Adds a platform authenticator to `page`'s context: CTAP2, internal transport, resident keys (discoverable
 * credentials), user verification, presence answered automatically.
 */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    cdp,
    authenticatorId,
    async credentials() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials;
    },
    async setUserVerified(isUserVerified) {
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified });
    },
    async setPresence(enabled) {
      await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });
    },
    async remove() {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    },
  };
}

/**
 * A new context and page on `browser` (a phone-sized viewport with `phone`), that fails the test on any
 * uncaught page error and collects console errors and CSP violations in `problems`.
 */
export async function openPage(browser: Browser, options: { phone?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext(options.phone ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 } : { viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  return { context, page, problems };
}

/**
 * Saves a full-page screenshot as `<name>.png` in {@link SCREENSHOT_DIR} and answers its path. `mask`:
 * parts of the page painted over (playwright's `mask`), e.g. a secret the page shows, so that no
 * picture holds one.
 */
export async function screenshot(page: Page, name: string, options: { mask?: Locator[] } = {}): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true, ...(options.mask ? { mask: options.mask, maskColor: '#5a5a5a' } : {}) });
  return path;
}

/**
 * Signs up on the dashboard with a new passkey (the page's virtual authenticator answers) and waits for the
 * agents page. The sign-in page has a text field labelled "Your name" and a button "Sign up with a passkey";
 * the agents page a heading "Your agents" (docs/dashboard.md).
 */
export async function signUpWithPasskey(page: Page, dashboardUrl: string, name: string): Promise<void> {
  await page.goto(dashboardUrl);
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Sign up with a passkey' }).click();
  await page.getByRole('heading', { name: 'Your agents' }).waitFor();
}

/** The passkey session token the dashboard keeps for its tab (sessionStorage), to call the API as that human. */
export async function sessionTokenOf(page: Page): Promise<string> {
  const token = await page.evaluate(() => sessionStorage.getItem('agent-memory.session'));
  if (!token) throw new Error('the dashboard holds no session');
  return token;
}

/**
 * axe-core (`@axe-core/playwright`) on the page as it is now: prints one line per violation of any impact
 * (`axe <name>: <impact> <rule>: <help> (<n> nodes: <selectors>)`), or `axe <name>: no violations`, and
 * fails the test on a serious or critical one (docs/dashboard.md, "Accessibility").
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  if (violations.length === 0) console.log(`axe ${name}: no violations`);
  for (const v of violations) console.log(`axe ${name}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.length} nodes: ${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
}

/**
 * The dashboard's passkeys in a real browser (docs/authentication.md, "Passkeys (humans)"): sign up, sign
 * out, sign in again with the same authenticator, a second passkey, removing one (never the last), and a
 * refused ceremony. Debian Chromium with CDP virtual authenticators against a real standalone server.
 *
 * The second passkey comes from a second virtual authenticator: the first one already holds a credential
 * of the account, which the registration options exclude, so adding from it is refused (InvalidStateError,
 * checked here as the "already has a passkey" message); a human adds a passkey from another device.
 */
import type { Browser, Page } from 'playwright-core';
import { expectAccessible, addVirtualAuthenticator, type DashboardServer, launchChromium, openPage, screenshot, signUpWithPasskey, startDashboardServer } from '@agent-memory/test-support';

let server: DashboardServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startDashboardServer(), launchChromium()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close({ removeData: true });
});


/** `POST /api/v1/auth/logout` with `token`: ends that session on the server; answers the HTTP status. */
async function logoutOnServer(token: string): Promise<number> {
  const response = await fetch(`${server.origin}/api/v1/auth/logout`, { method: 'POST', headers: { authorization: `Passkey ${token}`, 'content-type': 'application/json' }, body: '{}' });
  return response.status;
}

/** The browser's log line for a 401 answer: the one console error expected when a session is refused. */
const UNAUTHORIZED_LOG = /^console error: Failed to load resource: the server responded with a status of 401/;

const sessionToken = (page: Page) => page.evaluate(() => sessionStorage.getItem('agent-memory.session'));
const passkeyRows = (page: Page) => page.locator('table tbody tr');

/** Waits for the agents page; fails with the page's alert when a ceremony failed instead. */
async function expectSignedIn(page: Page): Promise<void> {
  const heading = page.getByRole('heading', { name: 'Your agents' });
  await heading.or(page.getByRole('alert')).first().waitFor();
  if (!(await heading.isVisible())) throw new Error(`not signed in: ${await page.getByRole('alert').textContent()}`);
}

it('signs up, out and in again, adds a second passkey, removes one but never the last, and shows a refused ceremony', async () => {
  const { context, page, problems } = await openPage(browser);
  page.setDefaultTimeout(20_000); // 2 shared cores: a ceremony or a page can take seconds under load
  const first = await addVirtualAuthenticator(page);

  await page.goto(server.dashboardUrl);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  // no wallet in this browser: no Ethereum button
  expect(await page.getByRole('button', { name: 'Sign in with Ethereum' }).count()).toBe(0);
  await expectAccessible(page, 'sign-in');
  await screenshot(page, 'sign-in');

  // sign up: a resident credential on the authenticator, a session in the tab
  await signUpWithPasskey(page, server.dashboardUrl, 'Ana Passkey');
  expect(await first.credentials()).toHaveLength(1);
  expect(await sessionToken(page)).toMatch(/_session_/);

  // sign out, then sign in with the same authenticator (discoverable credential: no name asked)
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  expect(await sessionToken(page)).toBeNull();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expectSignedIn(page);

  // the account: one passkey, its Remove disabled with the reason
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  expect(await page.locator('dl.facts').textContent()).toContain('Ana Passkey');
  expect(await passkeyRows(page).count()).toBe(1);
  expect(await passkeyRows(page).first().textContent()).not.toContain('never'); // last used: just now
  const onlyRemove = page.getByRole('button', { name: /^Remove the passkey created / });
  expect(await onlyRemove.isDisabled()).toBe(true);
  // named for screen readers by its creation time (to the second), device type and transport, as its row shows them
  const cells = await passkeyRows(page).first().locator('td').allInnerTexts();
  expect(cells.slice(0, 2)).toEqual(['This device only', 'Built-in']);
  expect(await onlyRemove.getAttribute('aria-label')).toMatch(/^Remove the passkey created .*\d{1,2}:\d{2}:\d{2}.* \(this device only, built-in\)$/);
  expect(await page.getByText('Your only passkey cannot be removed: add another first.').isVisible()).toBe(true);

  // the same authenticator cannot add a second passkey of the account (excluded credential)
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  expect(await page.getByRole('alert').textContent()).toContain('This device already has a passkey for this site');
  expect(await passkeyRows(page).count()).toBe(1);

  // another device adds one: the first authenticator goes (so that only the second can answer), a second one comes
  await first.remove();
  const second = await addVirtualAuthenticator(page);
  const before = (await sessionToken(page))!;
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('status').filter({ hasText: 'Passkey added.' }).waitFor();
  expect(await passkeyRows(page).count()).toBe(2);
  // the tab took the new session the API answered; the old one was ended (logging it out again: 401)
  const after = await sessionToken(page);
  expect(after).toMatch(/_session_/);
  expect(after).not.toBe(before);
  expect(await logoutOnServer(before)).toBe(401);
  expect(await second.credentials()).toHaveLength(1);
  await expectAccessible(page, 'account');
  await screenshot(page, 'account');

  // the two Remove buttons are told apart by their passkey's creation time (and, when both were added within
  // the same second, by their place: ", 1 of 2 alike")
  const names = await page.getByRole('button', { name: /^Remove the passkey created / }).evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? ''));
  expect(names).toHaveLength(2);
  expect(new Set(names).size).toBe(2);
  const [firstName, secondName] = names;

  // remove the first passkey: confirm first (Cancel keeps it), then it is gone and the last one stays
  await page.getByRole('button', { name: firstName, exact: true }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  expect(await passkeyRows(page).count()).toBe(2);
  await page.getByRole('button', { name: firstName, exact: true }).click();
  await page.getByRole('button', { name: 'Yes, remove' }).click();
  await page.getByRole('status').filter({ hasText: 'Passkey removed.' }).waitFor();
  expect(await passkeyRows(page).count()).toBe(1);
  expect(await page.getByRole('button', { name: firstName, exact: true }).count()).toBe(0);
  // the kept one's name loses its place once it has no twin
  const keptName = secondName.replace(/, 2 of 2 alike$/, '');
  expect(await page.getByRole('button', { name: keptName, exact: true }).isDisabled()).toBe(true);

  // the kept passkey (the second authenticator's) signs in
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expectSignedIn(page);

  // a refused ceremony (the user fails verification): the alert, and no session
  await page.getByRole('button', { name: 'Sign out' }).click();
  await second.setUserVerified(false);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe('The passkey request was cancelled or timed out. Try again.');
  expect(await sessionToken(page)).toBeNull();
  expect(await page.getByRole('heading', { name: 'Your agents' }).count()).toBe(0);

  // a session ended on the server mid-session: the next call's 401 returns the tab to the sign-in page
  await second.setUserVerified(true);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expectSignedIn(page);
  expect(await logoutOnServer((await sessionToken(page))!)).toBe(200);
  expect(problems.filter((p) => UNAUTHORIZED_LOG.test(p))).toEqual([]);
  await page.getByRole('link', { name: 'Account' }).click(); // the account page reads nothing: still shown
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  await page.getByRole('link', { name: 'Agents' }).click(); // the agents list: GET /humans/me/agents answers 401
  await page.getByRole('alert').filter({ hasText: 'Your session ended. Sign in again.' }).waitFor();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  expect(await sessionToken(page)).toBeNull();
  expect(await page.getByRole('heading', { name: 'Your account' }).count()).toBe(0);
  // signing in again clears the notice
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expectSignedIn(page);
  expect(await page.getByText('Your session ended. Sign in again.').count()).toBe(0);

  // the only console errors: the browser's log of that 401 (the refused session)
  expect(problems.filter((p) => UNAUTHORIZED_LOG.test(p)).length).toBeGreaterThan(0);
  expect(problems.filter((p) => !UNAUTHORIZED_LOG.test(p))).toEqual([]);
  await context.close();
}, 60_000);

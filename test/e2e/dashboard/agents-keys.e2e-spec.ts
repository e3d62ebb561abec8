/**
 * The dashboard's agents, keys and usage in a real browser (docs/authentication.md, "Claiming and managing
 * an agent"; docs/billing.md): an agent created over the API is claimed with its key, listed with mode,
 * environment and balance; its key rotated with a 2 s grace (the new key shown once, the old one working
 * until the grace ends, then 401), a key revoked, a rotation with grace 0 confirmed first, the usage of
 * its calls shown (per day and per operation, charts and tables), and the claim released.
 * Also the agents page at phone size (390x844). Debian Chromium against a real standalone server.
 */
import type { Browser } from 'playwright-core';
import { ApiClient } from '@agent-memory/testing';
import { expectAccessible, addVirtualAuthenticator, type DashboardServer, launchChromium, openPage, screenshot, sessionTokenOf, signUpWithPasskey, startDashboardServer } from '@agent-memory/test-support';

let server: DashboardServer;
let browser: Browser;
let api: ApiClient;

beforeAll(async () => {
  [server, browser] = await Promise.all([startDashboardServer(), launchChromium()]);
  api = new ApiClient(server.url);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close({ removeData: true });
});


/** The status of `GET /api/v1/agents/keys` with `key` (a free call every valid key may make). */
const keyStatus = async (key: string) => (await api.request('GET', '/api/v1/agents/keys', { key })).status;

it('claims an agent with its key, rotates (grace 2 s, new key once), revokes, shows usage, and releases it', async () => {
  const agent = await api.createAgent({ name: 'Scout <b>bold</b>' });
  const base = `/api/v1/records/${agent.recordId}`;
  for (const [path, content] of [['prefs/tea', 'Ana prefers green tea.'], ['prefs/city', 'Ana lives in Lisbon.']]) {
    expect((await api.request('POST', `${base}/remember`, { key: agent.agentKey, body: { content, path, type: 'fact' } })).status).toBe(200);
  }
  expect((await api.request('POST', `${base}/recall`, { key: agent.agentKey, body: { query: 'What does Ana drink?' } })).status).toBe(200);

  const { context, page, problems } = await openPage(browser);
  page.setDefaultTimeout(20_000); // 2 shared cores: a ceremony or a page can take seconds under load
  await addVirtualAuthenticator(page);
  await signUpWithPasskey(page, server.dashboardUrl, 'Ana Keys');
  await page.getByText('You have not claimed an agent yet.').waitFor();

  // claim: a password field, the key never shown
  const keyField = page.getByLabel('Agent key');
  expect(await keyField.getAttribute('type')).toBe('password');
  expect(await keyField.getAttribute('autocomplete')).toBe('off');
  await page.getByRole('button', { name: 'Claim' }).click();
  expect(await page.getByRole('alert').textContent()).toContain('Paste one of the agent');
  await keyField.fill('amk_live_not-a-key');
  await page.getByRole('button', { name: 'Claim' }).click();
  await page.getByRole('alert').filter({ hasText: /./ }).waitFor();
  // by keyboard: type the key, Enter submits
  await keyField.fill('');
  await keyField.focus();
  await page.keyboard.type(agent.agentKey);
  await page.keyboard.press('Enter');
  const link = page.getByRole('link', { name: 'Scout <b>bold</b>' }); // untrusted text shown as text
  await link.waitFor();
  expect(await keyField.inputValue()).toBe('');
  const card = page.locator('.agent-list li');
  const listed = await card.innerText();
  expect(listed).toMatch(/Mode\s+\S+/);
  expect(listed).toMatch(/Environment\s+(live|test)/);
  expect(listed).toMatch(/Balance\s+\$[\d.,]+ live · \$[\d.,]+ test/);
  expect(listed).not.toMatch(/Last activity\s+never/);
  await expectAccessible(page, 'agents');
  await screenshot(page, 'agents');

  // the same list at phone size (the tab's session in a phone-sized context): no horizontal scrolling
  const token = await sessionTokenOf(page);
  const phone = await openPage(browser, { phone: true });
  await phone.page.addInitScript((saved) => sessionStorage.setItem('agent-memory.session', saved), token);
  await phone.page.goto(`${server.dashboardUrl}agents`);
  await phone.page.getByRole('link', { name: 'Scout <b>bold</b>' }).waitFor();
  expect(await phone.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  await screenshot(phone.page, 'agents-phone');
  await phone.context.close();

  // keys: rotate with a 2 s grace; the new key is shown once, in a read-only field
  await link.click();
  await page.getByRole('tab', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'Rotate key' }).waitFor();
  const grace = page.getByLabel('Grace period (seconds)');
  expect(await grace.inputValue()).toBe('86400');
  await grace.fill('2');
  await page.getByRole('button', { name: 'Rotate key' }).click();
  const newKeyField = page.getByLabel('New agent key');
  await newKeyField.waitFor();
  const newKey = await newKeyField.inputValue();
  const rotatedAt = Date.now();
  expect(newKey).not.toBe(agent.agentKey);
  expect(await newKeyField.getAttribute('readonly')).not.toBeNull();
  expect(await page.getByText('This key is shown only once.').isVisible()).toBe(true);
  await page.locator('#panel-keys td').filter({ hasText: /^expiring$/ }).waitFor(); // the list read again after the rotation
  await screenshot(page, 'keys', { mask: [newKeyField] }); // the key shown once is painted over: no picture holds a key
  expect(await keyStatus(agent.agentKey)).toBe(200); // still in its grace
  expect(await keyStatus(newKey)).toBe(200);
  // the key shown once survives switching tabs
  await page.getByRole('tab', { name: 'Usage' }).click();
  await page.getByRole('tab', { name: 'Keys' }).click();
  expect(await newKeyField.inputValue()).toBe(newKey);
  await expectAccessible(page, 'keys');
  // "Done" asks first: Cancel keeps the key, confirming hides it
  await page.getByRole('button', { name: 'Done' }).click();
  const copiedDialog = page.getByRole('dialog', { name: 'Have you copied the key?' });
  await copiedDialog.getByRole('button', { name: 'Cancel' }).click();
  expect(await newKeyField.inputValue()).toBe(newKey);
  await page.getByRole('button', { name: 'Done' }).click();
  await copiedDialog.getByRole('button', { name: 'Yes, hide the key' }).click();
  expect(await newKeyField.count()).toBe(0);
  // after the grace the old key answers 401
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, rotatedAt + 2_500 - Date.now())));
  let oldStatus = await keyStatus(agent.agentKey);
  for (let i = 0; i < 20 && oldStatus !== 401; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    oldStatus = await keyStatus(agent.agentKey);
  }
  expect(oldStatus).toBe(401);

  // revoke the new key (confirm first): it answers 401 at once. The list read again shows the old key expired.
  await page.getByRole('tab', { name: 'Records' }).click();
  await page.getByRole('tab', { name: 'Keys' }).click();
  await page.getByRole('button', { name: 'Rotate key' }).waitFor();
  // wait for the list read again (the tab reloads it): the old key's status cell says expired
  await page.locator('#panel-keys td').filter({ hasText: /^expired$/ }).waitFor();
  const revoke = page.getByRole('button', { name: /^Revoke key / });
  expect(await revoke.count()).toBe(1); // the old key has expired: nothing left to revoke there
  expect(newKey.startsWith((await revoke.getAttribute('aria-label'))!.replace('Revoke key ', ''))).toBe(true);
  await revoke.click();
  await page.getByRole('button', { name: 'Yes, revoke' }).click();
  await page.getByRole('status').filter({ hasText: 'revoked' }).waitFor();
  expect(await keyStatus(newKey)).toBe(401);

  // rotate with grace 0 (the current keys end at once): asks first; Cancel rotates nothing, confirming rotates
  const keysBefore = await page.locator('#panel-keys tbody tr').count();
  await grace.fill('0');
  await page.getByRole('button', { name: 'Rotate key' }).click();
  const cutDialog = page.getByRole('dialog', { name: 'Rotate with no grace period?' });
  await cutDialog.waitFor();
  expect(await cutDialog.innerText()).toContain('The agent’s current keys stop working at once');
  await cutDialog.getByRole('button', { name: 'Cancel' }).click();
  expect(await cutDialog.count()).toBe(0);
  expect(await newKeyField.count()).toBe(0);
  expect(await page.locator('#panel-keys tbody tr').count()).toBe(keysBefore);
  await page.getByRole('button', { name: 'Rotate key' }).click();
  await cutDialog.getByRole('button', { name: 'Yes, rotate now' }).click();
  await newKeyField.waitFor();
  const cutKey = await newKeyField.inputValue();
  expect(cutKey).not.toBe(newKey);
  expect(await keyStatus(cutKey)).toBe(200);
  await page.locator('#panel-keys tbody tr').nth(keysBefore).waitFor(); // the list read again: one key more

  // usage: the three calls, per day and per operation, and the ledger
  await page.getByRole('tab', { name: 'Usage' }).click();
  const usage = page.locator('#panel-usage');
  await usage.getByRole('heading', { name: 'Ledger' }).waitFor();
  expect(await usage.locator('dl.facts').innerText()).toMatch(/Calls\s+3/);
  expect(await usage.getByRole('img', { name: 'Calls and spend per day' }).count()).toBe(1);
  // per operation: an image whose text alternative gives each operation's calls and spend, then the table
  const perOperation = usage.getByRole('img', { name: /^Calls and spend per operation / });
  expect(await perOperation.count()).toBe(1);
  expect(await perOperation.locator('desc').textContent()).toMatch(/^2 operations: remember 2 calls \(\$[\d.]+\), recall 1 call \(\$[\d.]+\)\.$/);
  expect(await perOperation.locator('rect.bar-calls').count()).toBe(2);
  expect(await perOperation.locator('rect.bar-spend').count()).toBe(2);
  const today = new Date().toISOString().slice(0, 10);
  expect(await usage.getByRole('row', { name: new RegExp(`^${today} 3 `) }).count()).toBe(1);
  expect(await usage.getByRole('row', { name: /^remember 2 / }).count()).toBe(1);
  expect(await usage.getByRole('row', { name: /^recall 1 / }).count()).toBe(1);
  expect(await usage.locator('table').last().locator('tbody tr').count()).toBe(3);
  await expectAccessible(page, 'usage');
  await screenshot(page, 'usage');

  // release (confirm first): the list is empty again
  await page.getByRole('link', { name: 'Agents', exact: true }).click();
  // by keyboard: Enter asks, the focus moves to the confirming button, Enter releases; the focus stays in the page
  await page.getByRole('button', { name: 'Release Scout <b>bold</b>' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Yes, release' }).waitFor();
  expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Yes, release');
  await page.keyboard.press('Enter');
  await page.getByText('You have not claimed an agent yet.').waitFor();
  expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Your agents');
  expect(await page.getByRole('link', { name: 'Scout <b>bold</b>' }).count()).toBe(0);

  // the one console error expected: the browser's log of the 403 answering the claim with a bad key
  expect(problems.filter((p) => !/^console error: Failed to load resource: the server responded with a status of 403/.test(p))).toEqual([]);
  await context.close();
}, 60_000);

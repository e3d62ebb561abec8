/**
 * Sign in with Ethereum on the dashboard in a real browser (docs/authentication.md, "Sign in with Ethereum
 * (humans)"): the page gets an EIP-1193 `window.ethereum` (an init script) whose requests a viem local
 * account answers in the test (`page.exposeFunction`): `eth_requestAccounts` and `personal_sign`. The
 * agent was created over the API with that wallet (proven); signing in lists it, claimed. A rejected
 * signature (EIP-1193 code 4001) shows an alert and opens no session. Signed in with the wallet again
 * after the account claimed another agent with a passkey session, the page lists only the wallet's agent,
 * says why, offers no claim, and shows the API's 403 on the other agent's page.
 */
import type { Browser } from 'playwright-core';
import { type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ApiClient } from '@agent-memory/testing';
import { expectAccessible, addVirtualAuthenticator, createAgentWithWallet, type DashboardServer, launchChromium, openPage, startDashboardServer } from '@agent-memory/test-support';

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


it('signs in with an injected EIP-1193 wallet backed by a viem account; the wallet’s agent is listed', async () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const agent = await createAgentWithWallet(api, account, { name: 'Wallet scout', mode: 'local' });

  const { context, page, problems } = await openPage(browser);
  page.setDefaultTimeout(20_000); // 2 shared cores: a ceremony or a page can take seconds under load
  const requests: string[] = [];
  let rejectNext = false;
  // the wallet: answers in Node with the local account; an error is returned as { error } (EIP-1193 code)
  await page.exposeFunction('__testWallet', async (method: string, params: unknown[]) => {
    requests.push(method);
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return { result: [account.address] };
    if (method === 'personal_sign') {
      if (rejectNext) {
        rejectNext = false;
        return { error: { code: 4001, message: 'User rejected the request.' } };
      }
      const [raw, address] = params as [Hex, string];
      if (address.toLowerCase() !== account.address.toLowerCase()) return { error: { code: 4100, message: 'unknown account' } };
      return { result: await account.signMessage({ message: { raw } }) };
    }
    return { error: { code: 4200, message: `unsupported ${method}` } };
  });
  await page.addInitScript(() => {
    const call = (globalThis as unknown as { __testWallet(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> }).__testWallet;
    (globalThis as unknown as { ethereum: unknown }).ethereum = {
      isTestWallet: true,
      async request({ method, params = [] }: { method: string; params?: unknown[] }) {
        const answer = await call(method, params);
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
    };
  });

  await page.goto(server.dashboardUrl);
  const button = page.getByRole('button', { name: 'Sign in with Ethereum' });
  await button.waitFor();
  await expectAccessible(page, 'sign-in with a wallet');

  // the user rejects the signature: an alert, no session
  rejectNext = true;
  await button.click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toBe('The wallet request was rejected. Try again and approve the signature.');
  expect(await page.evaluate(() => sessionStorage.getItem('agent-memory.session'))).toBeNull();

  // signed: the session, and the wallet's agent claimed
  await button.click();
  await page.getByRole('heading', { name: 'Your agents' }).waitFor();
  const link = page.getByRole('link', { name: 'Wallet scout' });
  await link.waitFor();
  expect(await link.getAttribute('href')).toBe(`/dashboard/agents/${agent.agentId}`);
  expect(await page.locator('.agent-list li').innerText()).toMatch(/Mode\s+local/);
  expect(requests).toEqual(['eth_requestAccounts', 'personal_sign', 'eth_requestAccounts', 'personal_sign']);

  // a wallet-only account: no passkey yet, adding one is offered
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  expect(await page.getByText('No passkey yet').isVisible()).toBe(true);
  expect(await page.getByRole('button', { name: 'Add a passkey' }).isEnabled()).toBe(true);

  // the first passkey may be added with the wallet's session: the tab takes the passkey session answered
  await addVirtualAuthenticator(page);
  const walletSession = await page.evaluate(() => sessionStorage.getItem('agent-memory.session'));
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('status').filter({ hasText: 'Passkey added.' }).waitFor();
  expect(await page.evaluate(() => sessionStorage.getItem('agent-memory.session'))).not.toBe(walletSession);
  expect(await page.locator('dl.facts').innerText()).toMatch(/Signed in with\s+a passkey/);

  // with the passkey session the account claims a second agent, one of another wallet, with its key
  const other = await api.createAgent({ name: 'Keyed helper' });
  await page.getByRole('link', { name: 'Agents', exact: true }).click();
  await page.getByLabel('Agent key').fill(other.agentKey);
  await page.getByRole('button', { name: 'Claim', exact: true }).click();
  await page.getByRole('link', { name: 'Keyed helper' }).waitFor();

  // signed in with the wallet again: the session reaches only the wallet's agent; the page says so and offers no claim
  await page.getByRole('button', { name: 'Sign out' }).click();
  await button.click();
  await page.getByRole('heading', { name: 'Your agents' }).waitFor();
  await page.getByRole('link', { name: 'Wallet scout' }).waitFor();
  expect(await page.getByRole('link', { name: 'Keyed helper' }).count()).toBe(0);
  expect(await page.locator('#wallet-scope').innerText()).toBe(
    `Signed in with the wallet ${account.address.slice(0, 6)}…${account.address.slice(-4)}: you see and manage only this wallet’s agents. Sign in with a passkey to see all the agents of your account and to claim more.`,
  );
  expect(await page.getByRole('heading', { name: 'Claim an agent' }).count()).toBe(0);
  await expectAccessible(page, 'agents signed in with a wallet');
  // the other agent's page, opened by its address: the API's 403, shown as the page's alert
  await page.goto(`${server.dashboardUrl}agents/${other.agentId}`);
  await page.getByRole('alert').filter({ hasText: "This session signed in with another agent's wallet; sign in with a passkey to manage this agent" }).waitFor();
  expect(await page.getByRole('heading', { name: 'Keyed helper' }).count()).toBe(0);

  // the account now has a passkey: managing passkeys is refused (403), the API's reason shown
  await page.getByRole('link', { name: 'Account', exact: true }).click();
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('alert').filter({ hasText: /^Sign in with a passkey to manage passkeys/ }).waitFor();

  // the one console error expected: the browser's log of that 403
  expect(problems.filter((p) => !/^console error: Failed to load resource: the server responded with a status of 403/.test(p))).toEqual([]);
  await context.close();
}, 60_000);

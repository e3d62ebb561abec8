/**
 * One journey through the dashboard against cluster mode (docs/dashboard.md, "Tests"): every service its
 * own process over NATS, PostgreSQL, Redis and S3, the gateway serving the page. An agent fills a record
 * over the API with its key; a human signs up with a passkey in Chromium (virtual authenticator), claims
 * the agent in the page with that key, opens the record, searches it, and forgets a memory in the page;
 * then the agent's own recall over the API no longer finds that memory, and still finds the others.
 */
import type { Browser } from 'playwright-core';
import { ApiClient, freePort } from '@agent-memory/testing';
import { addVirtualAuthenticator, ClusterServer, launchChromium, openPage, sessionTokenOf, signUpWithPasskey } from '@agent-memory/test-support';

const MEMORIES = [
  { path: 'trips/lisbon', type: 'episode', content: 'In May Ana took the night train from Madrid to Lisbon and loved the tiled stations.' },
  { path: 'prefs/seat', type: 'fact', content: 'Ana always books a window seat facing forward on long train journeys.' },
  { path: 'prefs/hotel', type: 'fact', content: 'Ana prefers small family-run guesthouses to large hotel chains.' },
  { path: 'people/rui', type: 'relationship', content: 'Rui is a friend of Ana who lives in Porto and meets her at the station.' },
] as const;

let cluster: ClusterServer;
let browser: Browser;
let api: ApiClient;
let dashboardUrl: string;

beforeAll(async () => {
  // passkeys are bound to the page's origin: the gateway's port is chosen before the start, so that
  // PASSKEY_ORIGINS of every process is http://localhost:<port>
  const port = await freePort();
  [cluster, browser] = await Promise.all([ClusterServer.start({ gatewayPort: port }), launchChromium()]);
  api = new ApiClient(cluster.url);
  dashboardUrl = `http://localhost:${port}/dashboard/`;
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await cluster?.close({ removeData: true });
}, 120_000);

/** The ids the agent's own recall answers for `query` (its key, over the API). */
async function recallIds(recordId: string, agentKey: string, query: string): Promise<string[]> {
  const answer = await api.request('POST', `/api/v1/records/${recordId}/recall`, { key: agentKey, body: { query, limit: 50 } });
  expect(answer.status).toBe(200);
  return (answer.data.memories as Array<{ id: string }>).map((m) => m.id);
}

it('signs up with a passkey, claims an agent, opens its record, searches, forgets a memory in the page; the API no longer recalls it', async () => {
  expect(cluster.url).toBe(`http://127.0.0.1:${new URL(dashboardUrl).port}`);

  // the agent fills a record over the API with its own key
  const agent = await api.createAgent({ name: 'Wayfarer' });
  const key = agent.agentKey;
  const record = await api.request('POST', '/api/v1/records', { key, body: { name: 'Travel', tags: ['trains'], category: 'life' } });
  expect(record.status).toBe(201);
  const recordId = record.data.id as string;
  const ids: Record<string, string> = {};
  for (const memory of MEMORIES) {
    const stored = await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: memory });
    expect(stored.status).toBe(200);
    ids[memory.path] = stored.data.id;
  }
  expect(await recallIds(recordId, key, 'which seat does Ana like on the train?')).toContain(ids['prefs/seat']);

  // a human signs up with a passkey (the agents service, in its own process, checks the ceremony)
  const { context, page, problems } = await openPage(browser);
  const authenticator = await addVirtualAuthenticator(page);
  await signUpWithPasskey(page, dashboardUrl, 'Ana');
  const [credential] = await authenticator.credentials();
  expect(credential).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
  const token = await sessionTokenOf(page);

  // claims the agent in the page with the key the agent gave
  await page.getByLabel('Agent key').fill(key);
  await page.getByRole('button', { name: 'Claim', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Claimed Wayfarer.' }).waitFor();
  const claimed = await api.request('GET', '/api/v1/humans/me/agents', { headers: { authorization: `Passkey ${token}` } });
  expect(claimed.status).toBe(200);
  expect((claimed.data.agents as Array<{ id: string }>).map((a) => a.id)).toEqual([agent.agentId]);

  // its page, then the record: the memories by type
  await page.getByRole('list', { name: 'Claimed agents' }).getByRole('link', { name: 'Wayfarer' }).click();
  await page.getByRole('heading', { level: 1, name: 'Wayfarer' }).waitFor();
  await page.getByRole('link', { name: 'Travel', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Travel' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/agents/${agent.agentId}/records/${recordId}`);
  await page.getByRole('button', { name: 'Show memories (paid read, 0.05 USD a page)' }).click(); // the paid listing, on demand
  for (const memory of MEMORIES) await page.getByRole('button', { name: memory.path }).first().waitFor();

  // search: the window-seat memory comes first
  await page.getByLabel('Search memories').fill('Where does Ana like to sit on trains?');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByRole('list', { name: 'Search results' }).getByRole('listitem');
  await results.first().waitFor();
  await expect(results.first().getByRole('button').first().textContent()).resolves.toBe('prefs/seat');

  // forget it in the page (a modal confirmation)
  await results.first().getByRole('button', { name: 'prefs/seat' }).click();
  const detail = page.getByRole('region', { name: /^Memory/ });
  await expect(detail.locator('pre').textContent()).resolves.toBe(MEMORIES[1].content);
  await detail.getByRole('button', { name: 'Forget' }).click();
  const dialog = page.getByRole('dialog', { name: 'Forget this memory?' });
  await dialog.getByRole('button', { name: 'Forget memory' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('status').filter({ hasText: 'Forgot the memory prefs/seat.' }).waitFor();
  await expect(page.getByRole('button', { name: 'prefs/seat' }).count()).resolves.toBe(0);

  // the agent's own recall, over the API: gone, the others still there
  const after = await recallIds(recordId, key, 'which seat does Ana like on the train?');
  expect(after).not.toContain(ids['prefs/seat']);
  expect(after).toEqual(expect.arrayContaining([ids['trips/lisbon'], ids['prefs/hotel'], ids['people/rui']]));
  const read = await api.request('GET', `/api/v1/records/${recordId}/context`, { key });
  expect(read.status).toBe(200);
  expect(JSON.stringify(read.data)).not.toContain('window seat');

  expect(problems).toEqual([]);
  await context.close();
}, 240_000);

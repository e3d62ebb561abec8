/**
 * The dashboard's agent and record pages in a real browser (docs/dashboard.md): a human signs up with a
 * passkey, claims an agent that filled records, memories and a file over the API, browses the record tree,
 * opens a record (memories by type, each with its summary and dates; the file with its content hash and
 * dates, as the API lists them), searches (recall, ordered by `similarity`), opens a memory, forgets it
 * (then the agent's own recall no longer finds it), opens a file, and deletes a record (then the API answers
 * 404). Axe finds no serious or critical violation on either page; the phone layout does not scroll sideways.
 */
import type { Browser } from 'playwright-core';
import { ApiClient } from '@agent-memory/testing';
import { expectAccessible, addVirtualAuthenticator, type DashboardServer, launchChromium, openPage, screenshot, sessionTokenOf, signUpWithPasskey, startDashboardServer } from '@agent-memory/test-support';

let server: DashboardServer;
let browser: Browser;
let api: ApiClient;

beforeAll(async () => {
  // rate limits off: the "Load more" case writes 52 memories into one record (30 writes a minute per record otherwise)
  [server, browser] = await Promise.all([startDashboardServer({ env: { RATE_LIMITS: 'off' } }), launchChromium()]);
  api = new ApiClient(server.url);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close({ removeData: true });
});

const MEMORIES = [
  { path: 'identity/name', type: 'identity', content: 'I am Sprout, the garden assistant of Ana.' },
  { path: 'prefs/tea', type: 'fact', content: 'Ana drinks green tea every morning, never coffee.' },
  { path: 'garden/soil', type: 'fact', content: 'The vegetable beds have heavy clay soil that drains slowly.' },
  { path: 'people/bo', type: 'relationship', content: 'Bo is Ana’s neighbour and lends her a lawn mower.' },
  { path: 'events/frost', type: 'episode', content: 'On 3 March a late frost killed the tomato seedlings.' },
  { path: 'skills/compost', type: 'skill', content: 'To make compost, layer green and brown matter and turn it weekly.' },
  { path: 'garden/roses', type: 'fact', content: 'The climbing roses by the gate bloom in June.' },
] as const;


async function recallIds(recordId: string, agentKey: string, query: string): Promise<string[]> {
  const answer = await api.request('POST', `/api/v1/records/${recordId}/recall`, { key: agentKey, body: { query, limit: 50 } });
  expect(answer.status).toBe(200);
  return (answer.data.memories as Array<{ id: string }>).map((m) => m.id);
}

it('browses, searches, opens, forgets, reads a file and deletes a record of a claimed agent', async () => {
  // the agent fills its memory over the API with its own key
  const agent = await api.createAgent({ name: 'Sprout' });
  const key = agent.agentKey;
  const parent = (await api.request('POST', '/api/v1/records', { key, body: { name: 'Household', tags: ['home', 'family'], category: 'life' } })).data;
  const child = (await api.request('POST', '/api/v1/records', { key, body: { name: 'Garden', tags: ['plants', 'outdoor'], category: 'hobby', parentRecordId: parent.id } })).data;
  expect(child.parentRecordId).toBe(parent.id);
  const ids: Record<string, string> = {};
  const summaries: Record<string, string> = {};
  for (const memory of MEMORIES) {
    const stored = await api.request('POST', `/api/v1/records/${child.id}/remember`, { key, body: memory });
    expect(stored.status).toBe(200);
    ids[memory.path] = stored.data.id;
    summaries[memory.path] = stored.data.summary;
  }
  const fileContent = '# Plan\n\n1. Sow peas in April.\n2. Mulch the roses.';
  const written = await api.request('POST', `/api/v1/records/${child.id}/write`, { key, body: { path: 'notes/plan.md', content: fileContent } });
  expect(written.status).toBe(200);
  // the file and memories as the API lists them (content hash, dates): what the record page must show
  const [fileInfo] = (await api.request('GET', `/api/v1/records/${child.id}/files`, { key })).data.files as Array<{ path: string; contentHash: string; createdAt: string; updatedAt: string }>;
  expect(fileInfo).toMatchObject({ path: 'notes/plan.md', contentHash: written.data.contentHash });
  const listed = (await api.request('GET', `/api/v1/records/${child.id}/memories?limit=50`, { key })).data.memories as Array<{ path: string; summary: string; createdAt: string; updatedAt: string }>;
  expect(listed).toHaveLength(MEMORIES.length);

  // a human signs up with a passkey and claims it
  const { context, page, problems } = await openPage(browser);
  await addVirtualAuthenticator(page);
  await signUpWithPasskey(page, server.dashboardUrl, 'Ana');
  const token = await sessionTokenOf(page);
  expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: { authorization: `Passkey ${token}` }, body: { agentKey: key } })).status).toBe(201);

  // the agent page: details and the record tree (Garden under Household), tags and category shown
  await page.goto(`${server.dashboardUrl}agents/${agent.agentId}`);
  await page.getByRole('heading', { level: 1, name: 'Sprout' }).waitFor();
  const household = page.locator('ul.record-tree > li').filter({ has: page.getByRole('link', { name: 'Household', exact: true }) });
  await household.getByRole('link', { name: 'Garden', exact: true }).waitFor();
  await expect(household.locator('.tag').allTextContents()).resolves.toEqual(expect.arrayContaining(['home', 'family', 'plants', 'outdoor']));
  await expect(household.locator('.category').allTextContents()).resolves.toEqual(['Category: life', 'Category: hobby']);
  await expect(page.getByRole('tab', { name: 'Records' }).getAttribute('aria-selected')).resolves.toBe('true');
  await expectAccessible(page, 'agent page');
  await screenshot(page, 'agent');
  // keyboard: arrows move between the tabs
  await page.getByRole('tab', { name: 'Records' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Keys' }).getAttribute('aria-selected')).resolves.toBe('true');
  await page.getByRole('button', { name: 'Rotate key' }).waitFor();
  await page.locator('#panel-keys td').filter({ hasText: /^active$/ }).first().waitFor();
  await expectAccessible(page, 'keys tab');
  await page.getByRole('tab', { name: 'Keys' }).focus();
  await page.keyboard.press('ArrowLeft');

  // the agent page at phone size (the tables and the chart scroll in focusable regions)
  const agentPhone = await openPage(browser, { phone: true });
  await agentPhone.context.addInitScript((t) => sessionStorage.setItem('agent-memory.session', t), token);
  await agentPhone.page.goto(`${server.dashboardUrl}agents/${agent.agentId}`);
  await agentPhone.page.getByRole('heading', { level: 1, name: 'Sprout' }).waitFor();
  await expectAccessible(agentPhone.page, 'agent page (phone)');
  await agentPhone.page.getByRole('tab', { name: 'Usage' }).click();
  await agentPhone.page.locator('#panel-usage').getByRole('heading', { name: 'Ledger' }).waitFor();
  await expectAccessible(agentPhone.page, 'usage tab (phone)');
  await agentPhone.page.getByRole('tab', { name: 'Keys' }).click();
  await agentPhone.page.locator('#panel-keys td').filter({ hasText: /^active$/ }).first().waitFor();
  await expectAccessible(agentPhone.page, 'keys tab (phone)');
  expect(agentPhone.problems).toEqual([]);
  await agentPhone.context.close();

  // the record page: memories grouped by type
  await household.getByRole('link', { name: 'Garden', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Garden' }).waitFor();
  // the h1 takes the focus on a change of route
  await expect(page.evaluate<string | undefined>('document.activeElement?.tagName')).resolves.toBe('H1');
  // the paid listing is read only on demand
  await page.getByRole('button', { name: 'Show memories (paid read, 0.05 USD a page)' }).click();
  await page.getByRole('button', { name: 'skills/compost' }).waitFor();
  await page.getByRole('link', { name: 'Household', exact: true }).waitFor(); // the parent, by name
  await page.locator('.breadcrumb').getByRole('link', { name: 'Sprout' }).waitFor();
  const group = (name: string) => page.getByRole('region', { name: new RegExp(`^${name}`) });
  await expect(group('Facts').getByRole('listitem').allTextContents()).resolves.toHaveLength(3);
  for (const [heading, path] of [['Identity', 'identity/name'], ['Facts', 'prefs/tea'], ['Relationships', 'people/bo'], ['Episodes', 'events/frost'], ['Skills', 'skills/compost']]) {
    await group(heading).getByRole('button', { name: path }).waitFor();
  }
  await page.getByRole('cell', { name: 'notes/plan.md', exact: true }).waitFor();
  // each memory's summary (as remember answered it) and dates (as the listing answers them, in the reader's locale)
  const shownDate = (iso: string) => page.evaluate((value) => new Date(value).toLocaleString(), iso);
  for (const memory of listed) {
    expect(memory.summary).toBe(summaries[memory.path]);
    const item = page.locator('ul.memory-list > li').filter({ has: page.getByRole('button', { name: memory.path, exact: true }) });
    expect(await item.locator('.summary').textContent()).toBe(memory.summary);
    expect(await item.locator('.dates').textContent()).toBe(`Created ${await shownDate(memory.createdAt)} · updated ${await shownDate(memory.updatedAt)}`);
  }
  // the file's row: its content hash exactly as the API answers it, and its dates
  const fileRow = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'notes/plan.md', exact: true }) });
  const fileCells = await fileRow.locator('td').allTextContents();
  expect(fileCells.slice(0, 5)).toEqual(['notes/plan.md', `${Buffer.byteLength(fileContent)} B`, fileInfo.contentHash, await shownDate(fileInfo.createdAt), await shownDate(fileInfo.updatedAt)]);
  expect(fileInfo.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  await expectAccessible(page, 'record page');
  await screenshot(page, 'record');

  // search: recall's results in order with their similarity
  await page.getByLabel('Search memories').fill('What does Ana drink in the morning?');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByRole('list', { name: 'Search results' }).getByRole('listitem');
  await results.first().waitFor();
  const scores = (await results.locator('.score').allTextContents()).map((s) => Number.parseFloat(s));
  expect(scores.length).toBeGreaterThan(1);
  expect(scores.every((s) => s >= 0 && s <= 100)).toBe(true);
  expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  await expect(results.first().getByRole('button').first().textContent()).resolves.toBe('prefs/tea');
  await screenshot(page, 'search');

  // open a memory: its full content as text
  await results.first().getByRole('button', { name: 'prefs/tea' }).click();
  const detail = page.getByRole('region', { name: /^Memory/ });
  await expect(detail.locator('pre').textContent()).resolves.toBe(MEMORIES[1].content);
  // its summary and dates beside the content
  const tea = listed.find((m) => m.path === 'prefs/tea')!;
  const facts = await detail.locator('dl.details').innerText();
  expect(facts).toContain(`Summary\n${tea.summary}`);
  expect(facts).toContain(`Created\n${await shownDate(tea.createdAt)}`);
  expect(facts).toContain(`Updated\n${await shownDate(tea.updatedAt)}`);
  await expect(page.evaluate<string | undefined>('document.activeElement?.id')).resolves.toBe('memory-heading');
  await expectAccessible(page, 'open memory');
  await screenshot(page, 'memory');

  // forget it in the UI (a modal confirmation): gone from the page and from the agent's own recall
  expect(await recallIds(child.id, key, 'green tea in the morning')).toContain(ids['prefs/tea']);
  await detail.getByRole('button', { name: 'Forget' }).click();
  const dialog = page.getByRole('dialog', { name: 'Forget this memory?' });
  await dialog.getByRole('button', { name: 'Forget memory' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('status').filter({ hasText: 'Forgot the memory prefs/tea.' }).waitFor();
  await expect(page.evaluate<string | undefined>('document.activeElement?.id')).resolves.toBe('memories-heading');
  await expect(page.getByRole('button', { name: 'prefs/tea' }).count()).resolves.toBe(0);
  await expect(group('Facts').getByRole('listitem').count()).resolves.toBe(2);
  expect(await recallIds(child.id, key, 'green tea in the morning')).not.toContain(ids['prefs/tea']);
  expect(await recallIds(child.id, key, 'green tea in the morning')).toContain(ids['garden/roses']);

  // open a file (a paid read, said beside the button): its content as text
  await page.getByText('opening one is a paid read').waitFor();
  await page.getByRole('button', { name: 'Open notes/plan.md (paid read)' }).click();
  await expect(page.getByLabel('File content').textContent()).resolves.toBe(fileContent);

  // forget by path (free, no paid read needed): confirmed in a dialog, gone from the list and from recall
  expect(await recallIds(child.id, key, 'Bo the neighbour')).toContain(ids['people/bo']);
  await page.getByLabel('Memory path').fill('people/bo');
  await page.getByRole('button', { name: 'Forget by path' }).click();
  const byPath = page.getByRole('dialog', { name: 'Forget this memory?' });
  await byPath.getByText('people/bo').waitFor();
  await byPath.getByRole('button', { name: 'Forget memory' }).click();
  await byPath.waitFor({ state: 'detached' });
  await page.getByRole('status').filter({ hasText: 'Forgot the memory people/bo.' }).waitFor();
  await expect(page.getByRole('button', { name: 'people/bo' }).count()).resolves.toBe(0);
  expect(await recallIds(child.id, key, 'Bo the neighbour')).not.toContain(ids['people/bo']);
  // a path with no memory: said so, nothing deleted
  await page.getByLabel('Memory path').fill('people/nobody');
  await page.getByRole('button', { name: 'Forget by path' }).click();
  await byPath.getByRole('button', { name: 'Forget memory' }).click();
  await page.getByRole('status').filter({ hasText: 'No memory at path "people/nobody": nothing was forgotten.' }).waitFor();

  // up the tree to the parent record: its own (empty) page, nothing left over from the child's
  await page.locator('dl.details').getByRole('link', { name: 'Household', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Household' }).waitFor();
  await page.getByRole('button', { name: 'Show memories (paid read, 0.05 USD a page)' }).click();
  await page.getByRole('region', { name: /^Skills/ }).getByText('None loaded.').waitFor();
  await expect(page.getByRole('button', { name: 'skills/compost' }).count()).resolves.toBe(0);
  await expect(page.getByText('No files.').count()).resolves.toBe(1);
  await page.goBack();
  await page.getByRole('heading', { level: 1, name: 'Garden' }).waitFor();
  await page.getByRole('button', { name: 'Show memories (paid read, 0.05 USD a page)' }).click();
  await page.getByRole('button', { name: 'skills/compost' }).waitFor();

  // the phone layout of the same record: nothing scrolls sideways
  const phone = await openPage(browser, { phone: true });
  await phone.context.addInitScript((t) => sessionStorage.setItem('agent-memory.session', t), token);
  await phone.page.goto(`${server.dashboardUrl}agents/${agent.agentId}/records/${child.id}`);
  await phone.page.getByRole('heading', { level: 1, name: 'Garden' }).waitFor();
  await phone.page.getByRole('button', { name: 'Show memories (paid read, 0.05 USD a page)' }).click();
  await phone.page.getByRole('button', { name: 'skills/compost' }).waitFor();
  await phone.page.getByRole('cell', { name: 'notes/plan.md', exact: true }).waitFor();
  await expect(phone.page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
  await screenshot(phone.page, 'record-phone');
  expect(phone.problems).toEqual([]);
  await phone.context.close();

  // delete the record in the UI (a modal confirmation naming it): back on the agent page; the API: 404
  await page.getByRole('button', { name: 'Delete record', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this record?' });
  await confirm.getByText('Garden').waitFor();
  await confirm.getByRole('button', { name: 'Delete record for good' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sprout' }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/dashboard/agents/${agent.agentId}`);
  const gone = await api.request('GET', `/api/v1/records/${child.id}`, { key });
  expect([gone.status, gone.code]).toEqual([404, 'NOT_FOUND']);
  await page.getByRole('link', { name: 'Household', exact: true }).waitFor();
  await expect(page.getByRole('link', { name: 'Garden', exact: true }).count()).resolves.toBe(0);
  expect((await api.request('GET', `/api/v1/records/${parent.id}`, { key })).status).toBe(200);

  // the one console error expected: the browser's log of the 404 answering the forget of a path with no memory
  expect(problems.filter((p) => !/^console error: Failed to load resource: the server responded with a status of 404/.test(p))).toEqual([]);
  expect(problems).toHaveLength(1);
  await context.close();
}, 60_000);

it('pages the records tree (100, then "Load more records") and a record\'s memories (50, then "Load more"); deleting a parent needs the children option', async () => {
  const agent = await api.createAgent({ name: 'Diarist' });
  const key = agent.agentKey;
  const journal = (await api.request('POST', '/api/v1/records', { key, body: { name: 'Journal' } })).data;
  const days = Array.from({ length: 52 }, (_, i) => `day/${String(i + 1).padStart(2, '0')}`);
  const stored = await Promise.all(days.map((path, i) => api.request('POST', `/api/v1/records/${journal.id}/remember`, { key, body: { path, type: 'episode', content: `Entry ${i + 1}: a quiet day.` } })));
  expect(stored.map((r) => r.status)).toEqual(days.map(() => 200));
  const notes = await Promise.all(Array.from({ length: 100 }, (_, i) => api.request('POST', '/api/v1/records', { key, body: { name: `Note ${i + 1}`, parentRecordId: journal.id } })));
  expect(notes.map((r) => r.status)).toEqual(notes.map(() => 201));

  const { context, page, problems } = await openPage(browser);
  await addVirtualAuthenticator(page);
  await signUpWithPasskey(page, server.dashboardUrl, 'Dee');
  const token = await sessionTokenOf(page);
  expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: { authorization: `Passkey ${token}` }, body: { agentKey: key } })).status).toBe(201);
  // 102 records (the agent's own, Journal, 100 notes under it): the first page holds 100
  await page.goto(`${server.dashboardUrl}agents/${agent.agentId}`);
  await page.getByText('100 of 102 records loaded.').waitFor();
  await page.getByRole('button', { name: 'Load more records' }).click();
  await page.getByText('102 of 102 records loaded.').waitFor();
  await expect(page.getByRole('button', { name: 'Load more records' }).count()).resolves.toBe(0);
  const journalItem = page.locator('ul.record-tree > li').filter({ has: page.getByRole('link', { name: 'Journal', exact: true }) });
  await expect(journalItem.locator('ul.record-tree > li').count()).resolves.toBe(100);
  await journalItem.getByRole('link', { name: 'Journal', exact: true }).click();
  await page.getByRole('button', { name: 'Show memories (paid read, 0.05 USD a page)' }).click();
  const episodes = page.getByRole('region', { name: /^Episodes/ });
  await episodes.getByRole('button', { name: 'day/50', exact: true }).waitFor();
  await expect(episodes.getByRole('listitem').count()).resolves.toBe(50);
  await expect(episodes.getByRole('button', { name: 'day/51', exact: true }).count()).resolves.toBe(0);
  await page.getByRole('button', { name: 'Load more', exact: true }).click();
  await episodes.getByRole('button', { name: 'day/52', exact: true }).waitFor();
  await expect(episodes.getByRole('button').allTextContents()).resolves.toEqual(days);
  await expect(page.getByRole('button', { name: 'Load more', exact: true }).count()).resolves.toBe(0);

  // a record with children: refused without "Also delete its child records" (the API's message, nothing
  // deleted), deleted with it, children too
  await page.getByRole('button', { name: 'Delete record', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this record?' });
  await confirm.getByRole('button', { name: 'Delete record for good' }).click();
  await confirm.getByRole('alert').filter({ hasText: 'This record has child records: tick “Also delete its child records”' }).waitFor();
  expect((await api.request('GET', `/api/v1/records/${journal.id}`, { key })).status).toBe(200);
  await confirm.getByLabel('Also delete its child records').check();
  await confirm.getByRole('button', { name: 'Delete record for good' }).click();
  await page.getByRole('heading', { level: 1, name: 'Diarist' }).waitFor();
  expect((await api.request('GET', `/api/v1/records/${journal.id}`, { key })).status).toBe(404);
  expect((await api.request('GET', `/api/v1/records/${notes[0].data.id}`, { key })).status).toBe(404);
  await page.getByText('1 of 1 records loaded.').waitFor();
  // the refused delete is the one console error expected (the browser logs the 400 answer)
  expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of 400/.test(p))).toEqual([]);
  await context.close();
}, 60_000);

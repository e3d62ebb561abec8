/**
 * Untrusted content stays text in the dashboard (docs/dashboard.md, "Security"): an agent stores HTML and
 * script in its name, a record's name, tags and category, a memory's path and content, and a file's path
 * and content; a human who claimed it opens every view that shows them (agents list, agent page, record
 * page, search results, the memory, the forget and delete dialogs, the file). Nothing runs
 * (`window.__pwned` stays undefined, no alert/confirm dialog, no request for the injected image), the text
 * appears literally, and the page reports no CSP violation, console error or page error.
 */
import type { Browser, Page } from 'playwright-core';
import { ApiClient } from '@agent-memory/testing';
import { addVirtualAuthenticator, type DashboardServer, launchChromium, openPage, sessionTokenOf, signUpWithPasskey, startDashboardServer } from '@agent-memory/test-support';

const IMG = '<img src=x onerror="window.__pwned=1">';
const SCRIPT = '<script>window.__pwned=2</script>';
const BOTH = `${IMG}${SCRIPT}`;
/** Categories hold at most 32 characters. */
const CAT = '<b onmouseover=alert(1)>x</b>';

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

/** Nothing ran: no marker, no CSP violation seen by the page, no dialog, no request for the image `x`. */
async function expectNothingRan(page: Page, dialogs: string[], imageRequests: string[]) {
  // page code as expressions: the root tsconfig has no DOM library
  await expect(page.evaluate<string>('typeof window.__pwned')).resolves.toBe('undefined');
  await expect(page.evaluate<string[]>('window.__cspViolations')).resolves.toEqual([]);
  expect(dialogs).toEqual([]);
  expect(imageRequests).toEqual([]);
}

it('shows HTML and script stored by an agent as text, in every view, and runs none of it', async () => {
  const agent = await api.createAgent({ name: `Agent ${BOTH}`, tags: [IMG], category: 'xss' });
  const key = agent.agentKey;
  const record = await api.request('POST', '/api/v1/records', { key, body: { name: `Rec ${BOTH}`, tags: [IMG, SCRIPT], category: CAT } });
  expect(record.status).toBe(201);
  const recordId: string = record.data.id;
  const memoryPath = `notes/${IMG}`;
  const memoryContent = `Remember this markup: ${BOTH} and keep it.`;
  expect((await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { path: memoryPath, type: 'fact', content: memoryContent } })).status).toBe(200);
  expect((await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { path: 'plain/one', type: 'episode', content: `Another note with ${SCRIPT} inside.` } })).status).toBe(200);
  const filePath = `files/${BOTH}`;
  const fileContent = `<!doctype html>${BOTH}<iframe src="javascript:window.__pwned=3"></iframe>`;
  expect((await api.request('POST', `/api/v1/records/${recordId}/write`, { key, body: { path: filePath, content: fileContent } })).status).toBe(200);

  const { context, page, problems } = await openPage(browser);
  await context.addInitScript({
    content: "window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));",
  });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  const imageRequests: string[] = [];
  page.on('request', (request) => {
    if (/\/x$/.test(new URL(request.url()).pathname)) imageRequests.push(request.url());
  });
  await addVirtualAuthenticator(page);
  await signUpWithPasskey(page, server.dashboardUrl, 'Ana');
  const token = await sessionTokenOf(page);
  expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: { authorization: `Passkey ${token}` }, body: { agentKey: key } })).status).toBe(201);

  // the agents list (reloaded: it shows the claimed agent's name)
  await page.reload();
  await page.getByText(`Agent ${BOTH}`, { exact: true }).first().waitFor();
  await expectNothingRan(page, dialogs, imageRequests);

  // the agent page: its name and the record tree with the record's name, tags and category
  await page.goto(`${server.dashboardUrl}agents/${agent.agentId}`);
  await page.getByRole('heading', { level: 1, name: `Agent ${BOTH}` }).waitFor();
  const link = page.getByRole('link', { name: `Rec ${BOTH}`, exact: true });
  await link.waitFor();
  const item = page.locator('ul.record-tree > li').filter({ has: link });
  await expect(item.locator('.tag').allTextContents()).resolves.toEqual([IMG, SCRIPT]);
  await expect(item.locator('.category').textContent()).resolves.toBe(`Category: ${CAT}`);
  await expect(page.locator('main img, main script, main iframe, main b').count()).resolves.toBe(0);
  await expectNothingRan(page, dialogs, imageRequests);

  // the record page: name, tags, category, the memory list, the file list
  await link.click();
  await page.getByRole('heading', { level: 1, name: `Rec ${BOTH}` }).waitFor();
  await page.getByRole('button', { name: 'Show memories (paid read, 0.05 USD a page)' }).click(); // the paid listing, on demand
  await page.getByRole('button', { name: memoryPath, exact: true }).waitFor();
  await page.getByText(memoryContent, { exact: true }).first().waitFor(); // the summary of a short memory is its content
  await page.getByRole('cell', { name: filePath, exact: true }).waitFor();
  await expect(page.locator('dl.details .tag').allTextContents()).resolves.toEqual([IMG, SCRIPT]);
  await expect(page.locator('dl.details dt:text-is("Category") + dd').textContent()).resolves.toBe(CAT);
  await expectNothingRan(page, dialogs, imageRequests);

  // search results (path and summary), the memory's content
  await page.getByLabel('Search memories').fill('markup to remember');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByRole('list', { name: 'Search results' });
  await results.getByRole('button', { name: memoryPath, exact: true }).click();
  await expect(page.getByLabel('Memory content').textContent()).resolves.toBe(memoryContent);
  await expectNothingRan(page, dialogs, imageRequests);

  // the forget dialog names the path (cancelled), the file's content, the delete dialog names the record
  await page.getByRole('region', { name: /^Memory/ }).getByRole('button', { name: 'Forget' }).click();
  const forget = page.getByRole('dialog', { name: 'Forget this memory?' });
  await forget.getByText(memoryPath, { exact: true }).waitFor();
  await forget.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: `Open ${filePath} (paid read)` }).click();
  await expect(page.getByLabel('File content').textContent()).resolves.toBe(fileContent);
  await page.getByRole('heading', { name: `File ${filePath}` }).waitFor();
  await page.getByRole('button', { name: 'Delete record', exact: true }).click();
  const remove = page.getByRole('dialog', { name: 'Delete this record?' });
  await remove.getByText(`Rec ${BOTH}`, { exact: true }).waitFor();
  await remove.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.locator('main img, main script, main iframe, main b, dialog img').count()).resolves.toBe(0);
  await expectNothingRan(page, dialogs, imageRequests);

  expect(problems).toEqual([]);
  await context.close();
}, 60_000);

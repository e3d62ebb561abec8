import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JOB_QUEUE, type JobQueue } from '@agent-memory/platform';
import { ApiClient } from '@agent-memory/testing';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';

/**
 * Enrichment end to end (docs/architecture.md, "Background work"): the standalone server started with `ENRICHMENT_LLM_URL` and
 * `ENRICHMENT_LLM_MODEL` pointing at a real local HTTP server that answers like an OpenAI-compatible chat
 * endpoint. An agent remembers over HTTP; the enrichment job refines type and summary; forget wins over an
 * enrichment in flight.
 */
let llm: Server;
let server: TestServer;
let api: ApiClient;
let jobs: JobQueue;
let reply: (content: string) => string = () => '{}';
let gate: Promise<void> | null = null;
let onRequest: (() => void) | null = null;

beforeAll(async () => {
  llm = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const content = (JSON.parse(raw) as { messages: { content: string }[] }).messages[1].content;
        onRequest?.();
        if (gate) await gate;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: reply(content) } }] }));
      })();
    });
  });
  await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
  server = await startStandaloneServer({
    env: { ENRICHMENT_LLM_URL: `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`, ENRICHMENT_LLM_MODEL: 'fake-llm' },
  });
  api = new ApiClient(server.url);
  jobs = server.app.get(JOB_QUEUE);
}, 120_000);

afterAll(async () => {
  await server?.close({ removeData: true });
  llm?.closeAllConnections();
  await new Promise((resolve) => llm?.close(resolve));
});

beforeEach(() => {
  reply = () => '{}';
  gate = null;
  onRequest = null;
});

async function freshAgent() {
  const { agentKey: key, recordId } = await api.createAgent({ name: `agent ${Math.random()}` });
  return { key, base: `/api/v1/records/${recordId}` };
}

it('refines the type and summary of a remembered memory, as context and recall then show', async () => {
  const { key, base } = await freshAgent();
  const content = 'Grind 18 g of beans, pour 250 ml of water at 94 °C, and wait four minutes before pressing.';
  reply = () => '{"type": "episode", "summary": "A French-press recipe."}';
  const remembered = (await api.request('POST', `${base}/remember`, { key, body: { content } })).data;
  expect(remembered.type).not.toBe('episode');
  await jobs.drain();

  const ctx = (await api.request('GET', `${base}/context`, { key })).data;
  expect(ctx.episode).toEqual([expect.objectContaining({ id: remembered.id, type: 'episode', summary: 'A French-press recipe.', content })]);
  expect(ctx[remembered.type]).toEqual([]);
  const recall = (await api.request('POST', `${base}/recall`, { key, body: { query: 'coffee recipe with a French press', types: ['episode'] } })).data;
  expect(recall.memories).toEqual([expect.objectContaining({ id: remembered.id, type: 'episode', summary: 'A French-press recipe.' })]);
}, 60_000);

it('does not bring back a memory forgotten while its enrichment is running', async () => {
  const { key, base } = await freshAgent();
  reply = () => '{"type": "skill", "summary": "Lena lives in Vienna."}';
  let release!: () => void;
  gate = new Promise<void>((resolve) => (release = resolve));
  const requested = new Promise<void>((resolve) => (onRequest = resolve));
  const remembered = (await api.request('POST', `${base}/remember`, { key, body: { content: 'My sister Lena moved to Vienna last spring.' } })).data;
  await requested;
  expect((await api.request('DELETE', `${base}/remember?path=${encodeURIComponent(remembered.path)}`, { key })).status).toBe(200);
  release();
  await jobs.drain();

  const ctx = (await api.request('GET', `${base}/context`, { key })).data;
  expect(Object.values(ctx).flat()).toEqual([]);
  const recall = (await api.request('POST', `${base}/recall`, { key, body: { query: 'Where does Lena live?' } })).data;
  expect(recall.memories).toEqual([]);
  expect(await jobs.failed()).toEqual([]);
}, 60_000);

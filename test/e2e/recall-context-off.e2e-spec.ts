import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, eventually, startE2eServer } from '@agent-memory/test-support';

/**
 * `RECALL_CONTEXT=off` (docs/configuration.md, "Recall"), in the mode of `E2E_MODE`: each memory is
 * indexed on its own content only, and a forget still takes back context written while it was on (the
 * borrowers it hides are re-indexed, on their own content). Seen through the API as in
 * recall-context.e2e-spec.ts: the successor S is the only candidate of its type, and its `similarity` to
 * M's made-up word equals that of S alone in a control record exactly when its entry holds nothing of M.
 */
let server: E2eServer;
let api: ApiClient;
const env: Record<string, string> = { RATE_LIMITS: 'off', RECALL_CONTEXT: 'on' };

beforeAll(async () => {
  server = await startE2eServer({ env });
  api = new ApiClient(server.url);
}, 180_000);
afterAll(() => server?.close({ removeData: true }));

/** Restarts the service (keeping its data) with `RECALL_CONTEXT=value`. */
async function restartWithContext(value: 'on' | 'off'): Promise<void> {
  env.RECALL_CONTEXT = value;
  // The cluster keeps its own copy of the environment it was started with.
  if (server.cluster) (server.cluster as unknown as { env: Record<string, string> }).env.RECALL_CONTEXT = value;
  await server.restart();
  api = new ApiClient(server.url);
}

const QUERY = 'zorblaxian';
const M = { content: 'Which zorblaxian marmalade did the caterer bring to the picnic last week?', type: 'episode', path: 'turns/m' };
const S = { content: 'The caterer brought the bitter orange marmalade to the picnic last week.', type: 'fact', path: 'turns/s' };

type Rec = { key: string; base: string };

async function record(): Promise<Rec> {
  const agent = await api.createAgent({ name: `context off ${Math.random()}` });
  return { key: agent.agentKey, base: `/api/v1/records/${agent.recordId}` };
}

async function remember(r: Rec, memory: { content: string; type: string; path: string }): Promise<void> {
  expect((await api.request('POST', `${r.base}/remember`, { key: r.key, body: memory })).status).toBe(200);
}

async function successorSimilarity(r: Rec): Promise<number> {
  const res = await api.request('POST', `${r.base}/recall`, { key: r.key, body: { query: QUERY, types: [S.type], limit: 5 } });
  expect(res.status).toBe(200);
  expect(res.data.memories.map((m: { path: string }) => m.path)).toEqual([S.path]);
  return res.data.memories[0].similarity;
}

describe(`RECALL_CONTEXT=off (${process.env.E2E_MODE === 'cluster' ? 'cluster' : 'standalone'})`, () => {
  it('a borrower written while it was on is still re-indexed (on its own content) when its lender is forgotten', async () => {
    const control = await record();
    await remember(control, S);
    const alone = await successorSimilarity(control);
    const r = await record();
    await remember(r, M);
    await remember(r, S);
    await eventually(async () => expect(await successorSimilarity(r)).toBeGreaterThan(alone + 0.05), 30_000);

    await restartWithContext('off');
    const forget = await api.request('DELETE', `${r.base}/remember`, { key: r.key, body: { path: M.path } });
    expect(forget.status).toBe(200);
    await eventually(async () => expect(await successorSimilarity(r)).toBeCloseTo(alone, 6), 30_000);
    const all = await api.request('POST', `${r.base}/recall`, { key: r.key, body: { query: QUERY, limit: 5 } });
    expect(all.data.memories.map((m: { path: string }) => m.path)).toEqual([S.path]);
  }, 180_000);

  it('indexes each memory on its own content: the successor borrows nothing, also later', async () => {
    const control = await record();
    await remember(control, S);
    const alone = await successorSimilarity(control);
    const r = await record();
    await remember(r, M);
    await remember(r, S);
    expect(await successorSimilarity(r)).toBeCloseTo(alone, 6);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await successorSimilarity(r)).toBeCloseTo(alone, 6);
    const all = await api.request('POST', `${r.base}/recall`, { key: r.key, body: { query: QUERY, limit: 5 } });
    // Found by meaning only (no keyword match: its entry holds no word of M), after M.
    expect(all.data.memories.map((m: { path: string }) => m.path)).toEqual([M.path, S.path]);
  }, 60_000);
});

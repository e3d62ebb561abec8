import { rename, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, eventually, startE2eServer } from '@agent-memory/test-support';

/**
 * Contextual indexing (docs/api.md "Recall", docs/configuration.md "Recall") and the order of `similarity`,
 * in the mode of `E2E_MODE` (standalone or cluster). A memory's index entry borrows the keywords and
 * meaning of the memories written just before it; forget and replace take that borrowed context back.
 *
 * How a borrowed word is seen through the API: recall with `types` = the successor's type only, so the
 * successor is the only candidate and its `similarity` is (cos + 1)/2 with a keyword match and
 * α·(cos + 1)/2 without (α = HYBRID_FUSION.denseWeight, hybrid-ranking.ts); the query is M's made-up word alone. A control record holds the same successor without the
 * forgotten memory: equal similarities to 1e-6 mean equal cosines and equal keyword matches, i.e. the
 * successor's entry holds nothing of the forgotten memory.
 *
 * Contextual indexing is on by default; the suite sets a gap of {@link GAP_SECONDS} to test the cut.
 */
let server: E2eServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startE2eServer({ env: { RATE_LIMITS: 'off', RECALL_CONTEXT_GAP_SECONDS: String(GAP_SECONDS) } });
  api = new ApiClient(server.url);
}, 180_000);
afterAll(() => server?.close({ removeData: true }));

/** Context is cut between memories written more than this many seconds apart (RECALL_CONTEXT_GAP_SECONDS). */
const GAP_SECONDS = 2;

/** Only M holds this word (a made-up one: no other memory or model vocabulary shares its stem). */
const QUERY = 'zorblaxian';
const M = { content: 'Which zorblaxian marmalade did the caterer bring to the picnic last week?', type: 'episode', path: 'turns/m' };
/** About the same thing as M (neighbours lend only above a cosine of 0.5, recall/contextual-index.ts), without M's word. */
const S = { content: 'The caterer brought the bitter orange marmalade to the picnic last week.', type: 'fact', path: 'turns/s' };
const M_REPLACED = { content: 'What did the caterer bring to the picnic last week?', type: 'episode', path: 'turns/m' };

/** The file of the (standalone) blob of the memory at `path`. */
async function blobFile(r: { key: string; base: string }, path: string): Promise<string> {
  const listed = await api.request('GET', `${r.base}/memories`, { key: r.key });
  const id = listed.data.memories.find((m: { path: string }) => m.path === path).id;
  const [key] = await server.blobKeys(`records/${r.base.split('/').pop()}/memories/${id}/`);
  return join(dirname(server.vectorIndexDir), 'blobs', ...key.split('/'));
}

/**
 * Makes the blob store fail for the memory at `path` until `restore` (an outage, not a lost blob): in
 * standalone its blob file is moved away and a link to itself put in its place (reads fail with ELOOP); in
 * cluster the blob store (S3) fails every call.
 */
async function makeUnreadable(r: { key: string; base: string }, path: string): Promise<{ restore(): Promise<void> }> {
  if (server.cluster) {
    const cluster = server.cluster;
    cluster.s3.setFailing(true);
    return { restore: async () => cluster.s3.setFailing(false) };
  }
  const file = await blobFile(r, path);
  await rename(file, `${file}.away`);
  await symlink(basename(file), file);
  // One atomic rename back over the link: no moment where the blob looks missing (which would be final).
  return { restore: () => rename(`${file}.away`, file) };
}

/** Waits until the successor's similarity in `r` and in `control` agree (both records' context written). */
async function settledAgainst(r: { key: string; base: string }, control: { key: string; base: string }): Promise<void> {
  await eventually(async () => expect(await successorSimilarity(r)).toBeCloseTo(await successorSimilarity(control), 6), 30_000);
}

async function record(): Promise<{ key: string; base: string }> {
  const agent = await api.createAgent({ name: `context ${Math.random()}` });
  return { key: agent.agentKey, base: `/api/v1/records/${agent.recordId}` };
}

async function remember(r: { key: string; base: string }, memory: { content: string; type: string; path: string }): Promise<void> {
  const res = await api.request('POST', `${r.base}/remember`, { key: r.key, body: memory });
  expect(res.status).toBe(200);
}

/** The successor's similarity to {@link QUERY}, the successor being the only candidate of its type. */
async function successorSimilarity(r: { key: string; base: string }): Promise<number> {
  const res = await api.request('POST', `${r.base}/recall`, { key: r.key, body: { query: QUERY, types: [S.type], limit: 5 } });
  expect(res.status).toBe(200);
  expect(res.data.memories.map((m: { path: string }) => m.path)).toEqual([S.path]);
  return res.data.memories[0].similarity;
}

describe(`contextual indexing (${process.env.E2E_MODE === 'cluster' ? 'cluster' : 'standalone'})`, () => {
  it('a word only in M finds M\'s successor before M is forgotten, and nothing of it is left after', async () => {
    const control = await record();
    await remember(control, S);
    const alone = await successorSimilarity(control);

    const r = await record();
    await remember(r, M);
    await remember(r, S);
    // With M's words and meaning (written shortly after the remember): a keyword match (factor 1 instead of α) and a closer vector.
    await eventually(async () => expect(await successorSimilarity(r)).toBeGreaterThan(alone + 0.05), 30_000);

    const forget = await api.request('DELETE', `${r.base}/remember`, { key: r.key, body: { path: M.path } });
    expect(forget.status).toBe(200);
    expect(await successorSimilarity(r)).toBeCloseTo(alone, 6);
    const all = await api.request('POST', `${r.base}/recall`, { key: r.key, body: { query: QUERY, limit: 5 } });
    expect(all.data.memories.map((m: { path: string }) => m.path)).toEqual([S.path]);
  }, 60_000);

  it('replacing M takes back its old words from the successor: it then borrows only M\'s new content', async () => {
    const control = await record();
    await remember(control, M_REPLACED);
    await remember(control, S);

    const r = await record();
    await remember(r, M);
    await remember(r, S);
    await eventually(async () => expect(await successorSimilarity(r)).toBeGreaterThan((await successorSimilarity(control)) + 0.05), 30_000);
    await remember(r, M_REPLACED);
    // The successor is hidden while re-indexed, then equal to the control's: nothing of M's old words is left.
    await settledAgainst(r, control);
  }, 60_000);

  it('a memory written more than the gap after M borrows nothing from it', async () => {
    const control = await record();
    await remember(control, S);
    const alone = await successorSimilarity(control);

    const r = await record();
    await remember(r, M);
    await new Promise((resolve) => setTimeout(resolve, GAP_SECONDS * 1_000 + 500));
    await remember(r, S);
    expect(await successorSimilarity(r)).toBeCloseTo(alone, 6);
  }, 60_000);

  it('a forget whose re-indexing cannot run (the successor\'s content unreadable) forgets at once, hides the successor, and the purge finishes after a restart', async () => {
    const control = await record();
    await remember(control, S);
    const alone = await successorSimilarity(control);
    const r = await record();
    await remember(r, M);
    await remember(r, S);
    const all = async (query: string) => (await api.request('POST', `${r.base}/recall`, { key: r.key, body: { query, limit: 5 } })).data.memories.map((m: { path: string }) => m.path);
    await eventually(async () => expect(await all(QUERY)).toEqual(expect.arrayContaining([M.path, S.path])), 30_000);
    const unreadable = await makeUnreadable(r, S.path);
    try {
      const forget = await api.request('DELETE', `${r.base}/remember`, { key: r.key, body: { path: M.path } });
      expect([forget.status, forget.data]).toEqual([200, { deleted: true, path: M.path }]);
      // S is stale until re-indexed: no query finds it, so nothing finds M's word.
      expect(await all(QUERY)).toEqual([]);
      expect(await all('caterer marmalade picnic')).toEqual([]);
      if (server.mode === 'standalone') {
        await server.restart();
        api = new ApiClient(server.url);
      }
    } finally {
      await unreadable.restore();
    }
    // The durable purge task (resumed at start-up, retried by its job) re-indexes S without M.
    await eventually(async () => expect(await all('caterer marmalade picnic')).toEqual([S.path]), 60_000);
    expect(await successorSimilarity(r)).toBeCloseTo(alone, 6);
  }, 120_000);

  it('a successor whose own content is lost (not an outage) is withdrawn for good: hidden, its entry gone, the forget complete', async () => {
    const r = await record();
    await remember(r, M);
    await remember(r, S);
    const all = async (query: string) => (await api.request('POST', `${r.base}/recall`, { key: r.key, body: { query, limit: 5 } })).data.memories.map((m: { path: string }) => m.path);
    await eventually(async () => expect(await all(QUERY)).toEqual(expect.arrayContaining([M.path, S.path])), 30_000);
    // S's blob is deleted (lost), not the store failing.
    const listed = await api.request('GET', `${r.base}/memories`, { key: r.key });
    const sId = listed.data.memories.find((m: { path: string }) => m.path === S.path).id;
    const [key] = await server.blobKeys(`records/${r.base.split('/').pop()}/memories/${sId}/`);
    if (server.cluster) await server.cluster.blobStore().delete([key]);
    else await unlink(join(dirname(server.vectorIndexDir), 'blobs', ...key.split('/')));
    const forget = await api.request('DELETE', `${r.base}/remember`, { key: r.key, body: { path: M.path } });
    expect(forget.status).toBe(200);
    // Withdrawn at once by the forget's own purge (no retry pending): nothing finds S, so nothing finds M's word.
    expect(await all(QUERY)).toEqual([]);
    expect(await all('caterer marmalade picnic')).toEqual([]);
  }, 60_000);
});

describe('similarity orders the list', () => {
  it('is in [0, 1] and never increases down the list', async () => {
    const r = await record();
    const contents = [
      'The caterer brought bitter orange marmalade to the picnic.',
      'Our picnic by the harbour was cancelled because of rain.',
      'I bought a new bicycle helmet on Saturday.',
      'The harbour shop sells marmalade, honey and fresh bread.',
      'My sister is learning to play the cello.',
      'We should book the train tickets for the picnic weekend.',
    ];
    for (const content of contents) expect((await api.request('POST', `${r.base}/remember`, { key: r.key, body: { content } })).status).toBe(200);
    for (const query of ['What did the caterer bring?', 'harbour shop', 'cello lessons for my sister']) {
      const res = await api.request('POST', `${r.base}/recall`, { key: r.key, body: { query, limit: 10 } });
      const similarities: number[] = res.data.memories.map((m: { similarity: number }) => m.similarity);
      expect(similarities).toHaveLength(contents.length);
      for (const s of similarities) {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }
      expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
    }
  }, 60_000);
});

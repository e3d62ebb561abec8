import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDataDirectory } from '@agent-memory/standalone';
import { Metrics } from '@agent-memory/platform';
import { ApiClient } from '@agent-memory/testing';
import { eventually, startStandaloneServer, type TestServer } from '@agent-memory/test-support';

/**
 * The standalone data directory (docs/deployment.md, "The data directory"): private modes, no copy of
 * forgotten text anywhere under it, damage detected on read and by `npm run data:check`.
 */

/** Every path under `root` (directories and files), depth first. */
function walk(root: string): { path: string; dir: boolean; mode: number }[] {
  const out: { path: string; dir: boolean; mode: number }[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const p = join(root, entry.name);
    const st = statSync(p);
    out.push({ path: p, dir: st.isDirectory(), mode: st.mode & 0o777 });
    if (st.isDirectory()) out.push(...walk(p));
  }
  return out;
}

/** Files under `root` whose bytes contain `needle`. */
function filesContaining(root: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  return walk(root).filter((e) => !e.dir && readFileSync(e.path).includes(bytes)).map((e) => e.path);
}

const FAST = { FORGET_VACUUM_DELAY_MS: '50' };

describe('data directory modes', () => {
  let server: TestServer | undefined;
  afterEach(() => server?.close({ removeData: true }));

  it('creates every directory 0700 and every file 0600, and tightens an existing directory at start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-modes-'));
    chmodSync(dataDir, 0o755);
    mkdirSync(join(dataDir, 'blobs', 'old'), { recursive: true, mode: 0o755 });
    writeFileSync(join(dataDir, 'blobs', 'old', 'leftover'), 'x', { mode: 0o644 });
    server = await startStandaloneServer({ dataDir, env: FAST });
    const api = new ApiClient(server.url);
    const { agentKey: key, recordId } = await api.createAgent();
    void (await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { content: 'The data directory is private.' } })).data;
    void (await api.request('POST', `/api/v1/records/${recordId}/write`, { key, body: { path: 'notes/a.md', content: 'private file' } })).data;
    const entries = [{ path: dataDir, dir: true, mode: statSync(dataDir).mode & 0o777 }, ...walk(dataDir)];
    expect(entries.length).toBeGreaterThan(20);
    const loose = entries.filter((e) => e.mode & 0o077).map((e) => `${e.path} ${e.mode.toString(8)}`);
    expect(loose).toEqual([]);
    expect(entries.filter((e) => e.dir).every((e) => e.mode === 0o700)).toBe(true);
    expect(entries.filter((e) => !e.dir).every((e) => e.mode === 0o600)).toBe(true);
  }, 120_000);
});

describe('forget leaves no copy under the data directory', () => {
  let server: TestServer | undefined;
  afterEach(() => server?.close({ removeData: true }));

  it('finds a forgotten canary (content, summary, idempotent response) in no file: database, WAL, blobs, vectors', async () => {
    server = await startStandaloneServer({ env: FAST });
    const api = new ApiClient(server.url);
    const { agentKey: key, recordId } = await api.createAgent();
    const base = `/api/v1/records/${recordId}`;
    const canary = `canary${randomBytes(8).toString('hex')}`;
    const content = `The vault code is ${canary}.`;
    const kept = (await api.request('POST', `${base}/remember`, { key, body: { content: 'This memory stays.', type: 'fact' } })).data;
    // A key of its own: the key is metadata that the usage ledger keeps, not content.
    const remembered = (await api.request('POST', `${base}/remember`, { key, body: { content, type: 'fact', idempotency_key: randomBytes(8).toString('hex') } })).data;
    expect(remembered.summary).toContain(canary); // short memory: the summary is the whole content
    expect(filesContaining(server.dataDir, canary).length).toBeGreaterThan(0);
    void (await api.request('DELETE', `${base}/remember`, { key, body: { id: remembered.id } })).data;
    await eventually(() => expect(filesContaining(server!.dataDir, canary)).toEqual([]), 30_000, 200);
    // The service still works on the rewritten tables.
    const ctx = (await api.request('GET', `${base}/context`, { key })).data;
    expect(ctx.fact.map((m: { id: string }) => m.id)).toEqual([kept.id]);
  }, 120_000);

  it('finds a deleted record\'s file paths, file contents and memories in no file', async () => {
    server = await startStandaloneServer({ env: FAST });
    const api = new ApiClient(server.url);
    const { agentKey: key } = await api.createAgent();
    const record = (await api.request('POST', '/api/v1/records', { key, body: { name: 'to delete' } })).data;
    const canary = `canary${randomBytes(8).toString('hex')}`;
    const base = `/api/v1/records/${record.id}`;
    void (await api.request('POST', `${base}/write`, { key, body: { path: `notes/${canary}.md`, content: `secret ${canary}`, idempotency_key: randomBytes(8).toString('hex') } })).data;
    void (await api.request('POST', `${base}/remember`, { key, body: { content: `Remember ${canary}.`, type: 'fact' } })).data;
    expect(filesContaining(server.dataDir, canary).length).toBeGreaterThan(0);
    void (await api.request('DELETE', base, { key })).data;
    await eventually(() => expect(filesContaining(server!.dataDir, canary)).toEqual([]), 30_000, 200);
  }, 120_000);
});

describe('damage is detected', () => {
  let server: TestServer | undefined;
  afterEach(() => server?.close({ removeData: true }));

  async function seed(s: TestServer) {
    const api = new ApiClient(s.url);
    const { agentKey: key, recordId } = await api.createAgent();
    const base = `/api/v1/records/${recordId}`;
    const ids: string[] = [];
    for (const content of ['Ana is a nurse in Lisbon.', 'Bob lives in Porto.', 'The release ships on Friday.']) {
      ids.push((await api.request('POST', `${base}/remember`, { key, body: { content, type: 'fact' } })).data.id);
    }
    void (await api.request('POST', `${base}/write`, { key, body: { path: 'notes/a.md', content: 'original file text' } })).data;
    return { api, key, recordId, base, ids };
  }

  const blobsOf = (s: TestServer, recordId: string, kind: string) =>
    walk(join(s.dataDir, 'blobs', 'records', recordId, kind)).filter((e) => !e.dir).map((e) => e.path);

  it('never serves a tampered blob: context, list memories and file read answer 500 INTERNAL_ERROR', async () => {
    server = await startStandaloneServer({ env: FAST });
    const { api, key, recordId, base } = await seed(server);
    const [memoryBlob] = blobsOf(server, recordId, 'memories');
    writeFileSync(memoryBlob, 'Ana is a pirate in Lisbon.');
    const ctx = await api.request('GET', `${base}/context`, { key });
    expect(ctx.status).toBe(500);
    expect(ctx.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(ctx.body)).not.toContain('pirate');
    const listed = await api.request('GET', `${base}/memories?limit=200`, { key });
    expect([listed.status, listed.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(JSON.stringify(listed.body)).not.toContain('pirate');
    const [fileBlob] = blobsOf(server, recordId, 'files');
    writeFileSync(fileBlob, 'tampered file text');
    const read = await api.request('GET', `${base}/read?path=${encodeURIComponent('notes/a.md')}`, { key });
    expect(read.status).toBe(500);
    expect(read.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(read.body)).not.toContain('tampered');
  }, 120_000);

  it('data:check reports a lost blob and rebuilds deleted vector files, so recall finds the memories again', async () => {
    server = await startStandaloneServer({ env: FAST });
    const { key, base, recordId, ids } = await seed(server);
    const dataDir = server.dataDir;
    await server.close();
    server = undefined;
    rmSync(join(dataDir, 'vectors'), { recursive: true, force: true });
    const [lost] = walk(join(dataDir, 'blobs', 'records', recordId, 'memories')).filter((e) => !e.dir).map((e) => e.path);
    rmSync(lost);
    const lostId = lost.split('/').at(-2)!; // records/<record>/memories/<memory id>/<sha256>
    const intact = ids.filter((id) => id !== lostId);

    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    const report = await checkDataDirectory(env, { repair: false });
    expect(report.ok).toBe(false);
    expect(report.memories.checked).toBe(3);
    expect(report.memories.missingVector.sort()).toEqual([...ids].sort());
    expect(report.memories.missingBlob).toEqual([lostId]);
    expect(report.files).toMatchObject({ checked: 1, missingBlob: [], hashMismatch: [] });

    const repaired = await checkDataDirectory(env, { repair: true });
    expect(repaired.memories.repairedVectors).toBe(2); // the third has no content left to embed
    const again = await checkDataDirectory(env, { repair: false });
    expect(again.memories.missingVector).toHaveLength(1);
    expect(again.memories.missingBlob).toEqual(repaired.memories.missingBlob);

    server = await startStandaloneServer({ dataDir, env: FAST });
    const api = new ApiClient(server.url);
    const recall = (await api.request('POST', `${base}/recall`, { key, body: { query: 'Where does Bob live? Who is a nurse? When is the release?', limit: 10 } })).data;
    // the two intact memories are found again; the lost one has no vector (its content is gone)
    expect(recall.memories.map((m: { id: string }) => m.id).sort()).toEqual([...intact].sort());
    // the start-up comparison counts the one memory the index still lacks (its content is lost)
    const metrics = server.app.get(Metrics);
    await eventually(async () => expect(await metrics.registry.getSingleMetricAsString('agent_memory_index_missing_memories')).toMatch(/agent_memory_index_missing_memories\{[^}]*\} 1$/m));
    // the memory whose blob is lost is not silently left out of the context: the call fails (logged)
    const ctx = await api.request('GET', `${base}/context`, { key });
    expect(ctx.status).toBe(500);
    expect(ctx.code).toBe('INTERNAL_ERROR');
  }, 180_000);
});

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SUBJECTS, UsageSummarySchema } from '@agent-memory/shared';
import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, eventually, startE2eServer } from '@agent-memory/test-support';

let server: E2eServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startE2eServer();
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

/** Every blob under a record's prefix, in whichever blob store the mode uses (filesystem or S3). */
function blobFiles(recordId: string): Promise<string[]> {
  return server.blobKeys(`records/${recordId}/`);
}

async function ledger(agentId: string) {
  return server.bus().request(SUBJECTS.billing.usage, { agentId, limit: 1000, offset: 0 }, UsageSummarySchema);
}

async function freshAgent() {
  return api.createAgent({ name: `agent ${Math.random()}` });
}

describe('remember, recall, context', () => {
  it('remembers three memories, recalls one by a paraphrase, and groups the context by type', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const base = `/api/v1/records/${recordId}`;
    const a = (await api.request('POST', `${base}/remember`, { key, body: { content: 'My name is Ana and I work as a nurse in Lisbon.' } })).data;
    const b = (await api.request('POST', `${base}/remember`, { key, body: { content: 'Bob is my brother and he lives in Porto.', path: 'people/bob' } })).data;
    const c = (await api.request('POST', `${base}/remember`, { key, body: { content: 'To deploy the service, run npm run build and then push the release tag.', type: 'skill' } })).data;
    expect(a).toEqual({ id: expect.stringMatching(/^mem_/), path: expect.any(String), type: 'identity', summary: expect.any(String) });
    expect(b).toMatchObject({ path: 'people/bob', type: 'relationship' });
    expect(c).toMatchObject({ type: 'skill', path: expect.stringMatching(/^skill\//) });

    const recall = (await api.request('POST', `${base}/recall`, { key, body: { query: 'How do I ship a new release?' } })).data;
    expect(recall.count).toBe(recall.memories.length);
    expect(recall.memories[0]).toEqual({ id: c.id, path: c.path, type: 'skill', summary: expect.any(String), similarity: expect.any(Number) });
    const sibling = (await api.request('POST', `${base}/recall`, { key, body: { query: "Where does Ana's brother live?", limit: 1 } })).data;
    expect(sibling.memories.map((m: any) => m.id)).toEqual([b.id]);
    const onlyIdentity = (await api.request('POST', `${base}/recall`, { key, body: { query: 'release', types: ['identity'] } })).data;
    expect(onlyIdentity.memories.map((m: any) => m.type)).toEqual(['identity']);

    const ctx = (await api.request('GET', `${base}/context`, { key })).data;
    expect(Object.keys(ctx).sort()).toEqual(['episode', 'fact', 'identity', 'relationship', 'skill']);
    expect(ctx.identity.map((m: any) => m.id)).toEqual([a.id]);
    expect(ctx.relationship[0]).toMatchObject({ id: b.id, content: 'Bob is my brother and he lives in Porto.', path: 'people/bob' });
    expect(ctx.skill[0].createdAt).toEqual(expect.any(String));
  });

  it('replaces the memory at an existing path, keeping its id', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const base = `/api/v1/records/${recordId}`;
    const first = (await api.request('POST', `${base}/remember`, { key, body: { content: 'The office is in Berlin.', path: 'facts/office', type: 'fact' } })).data;
    const second = (await api.request('POST', `${base}/remember`, { key, body: { content: 'The office moved to Munich.', path: 'facts/office', type: 'fact' } })).data;
    expect(second.id).toBe(first.id);
    const ctx = (await api.request('GET', `${base}/context`, { key })).data;
    expect(ctx.fact.map((m: any) => m.content)).toEqual(['The office moved to Munich.']);
    const hit = (await api.request('POST', `${base}/recall`, { key, body: { query: 'Munich office', limit: 5 } })).data;
    expect(hit.memories).toHaveLength(1);
  });

  it('limits context to ?limit per type, newest first, within 1..200', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const base = `/api/v1/records/${recordId}`;
    for (let i = 0; i < 3; i++) await api.request('POST', `${base}/remember`, { key, body: { content: `fact number ${i}`, type: 'fact' } });
    const ctx = (await api.request('GET', `${base}/context?limit=2`, { key })).data;
    expect(ctx.fact.map((m: any) => m.content)).toEqual(['fact number 2', 'fact number 1']);
    expect((await api.request('GET', `${base}/context?limit=200`, { key })).status).toBe(200);
    for (const q of ['limit=0', 'limit=201', 'limit=x', 'other=1']) expect((await api.request('GET', `${base}/context?${q}`, { key })).code).toBe('VALIDATION_ERROR');
  });

  describe('limits of remember and recall', () => {
    let key: string;
    let base: string;
    beforeAll(async () => {
      const agent = await freshAgent();
      key = agent.agentKey;
      base = `/api/v1/records/${agent.recordId}`;
    });
    const KB50 = 50 * 1024;
    it.each([
      ['content of exactly 50 KB', { content: 'a'.repeat(KB50) }, 200],
      ['content of 50 KB + 1 byte', { content: 'a'.repeat(KB50 + 1) }, 400],
      ['multi-byte content over 50 KB in bytes', { content: 'é'.repeat(KB50 / 2 + 1) }, 400],
      ['empty content', { content: '' }, 400],
      ['missing content', { path: 'x' }, 400],
      ['path of 256 characters', { content: 'x', path: 'p'.repeat(256) }, 200],
      ['path of 257 characters', { content: 'x', path: 'p'.repeat(257) }, 400],
      ['path with ..', { content: 'x', path: 'a/../b' }, 400],
      ['absolute path', { content: 'x', path: '/etc/passwd' }, 400],
      ['path with a control character', { content: 'x', path: 'a\u0007b' }, 400],
      ['unknown type', { content: 'x', type: 'opinion' }, 400],
      ['unknown field', { content: 'x', tags: [] }, 400],
      ['number as content', { content: 12 }, 400],
    ])('remember with %s', async (_l, body, status) => {
      const res = await api.request('POST', `${base}/remember`, { key, body });
      expect(res.status).toBe(status);
      if (status === 400) expect(res.code).toBe('VALIDATION_ERROR');
    });
    it.each([
      ['query of 1000 characters', { query: 'q'.repeat(1000) }, 200],
      ['query of 1001 characters', { query: 'q'.repeat(1001) }, 400],
      ['empty query', { query: '' }, 400],
      ['limit 1', { query: 'x', limit: 1 }, 200],
      ['limit 50', { query: 'x', limit: 50 }, 200],
      ['limit 0', { query: 'x', limit: 0 }, 400],
      ['limit 51', { query: 'x', limit: 51 }, 400],
      ['limit as a string', { query: 'x', limit: '5' }, 400],
      ['unknown type filter', { query: 'x', types: ['opinion'] }, 400],
    ])('recall with %s', async (_l, body, status) => {
      expect((await api.request('POST', `${base}/recall`, { key, body })).status).toBe(status);
    });
  });
});

describe('forget', () => {
  it('removes the memory from recall, context, the blob store and the write log, by path or by id, body or query', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const base = `/api/v1/records/${recordId}`;
    const m1 = (await api.request('POST', `${base}/remember`, { key, body: { content: 'The launch code word is pineapple.', path: 'secrets/launch' } })).data;
    await api.request('POST', `${base}/remember`, { key, body: { content: 'The launch code word is mango.', path: 'secrets/launch' } });
    const m2 = (await api.request('POST', `${base}/remember`, { key, body: { content: 'The wifi password is hunter2.' } })).data;
    const m3 = (await api.request('POST', `${base}/remember`, { key, body: { content: 'Keep this one about apples.', path: 'keep' } })).data;
    expect(await blobFiles(recordId)).toHaveLength(4); // two versions of m1, m2, m3

    const byPathQuery = await api.request('DELETE', `${base}/remember?path=secrets/launch`, { key });
    expect(byPathQuery.data).toEqual({ deleted: true, path: 'secrets/launch' });
    const byIdBody = await api.request('DELETE', `${base}/remember`, { key, body: { id: m2.id } });
    expect(byIdBody.data).toEqual({ deleted: true, path: m2.path });

    expect(await blobFiles(recordId)).toHaveLength(1);
    const recall = (await api.request('POST', `${base}/recall`, { key, body: { query: 'launch code word wifi password', limit: 50 } })).data;
    expect(recall.memories.map((m: any) => m.id)).toEqual([m3.id]);
    const ctx = (await api.request('GET', `${base}/context`, { key })).data;
    expect(Object.values(ctx).flat().map((m: any) => m.id)).toEqual([m3.id]);
    // the vector index's files no longer hold the forgotten vectors once the purge's compaction ran
    await new Promise((r) => setTimeout(r, 3_000));
    // every file under the index directory (one log per record under tenants/)
    const indexFiles = (readdirSync(server.vectorIndexDir, { recursive: true }) as string[])
      .map((f) => join(server.vectorIndexDir, f))
      .filter((f) => statSync(f).isFile())
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(indexFiles).toContain(m3.id);
    expect(indexFiles).not.toContain(m1.id);
    expect(indexFiles).not.toContain(m2.id);
    // forgetting again: NOT_FOUND, and by the old id too
    expect((await api.request('DELETE', `${base}/remember?path=secrets/launch`, { key })).code).toBe('NOT_FOUND');
    expect((await api.request('DELETE', `${base}/remember?id=${m1.id}`, { key })).code).toBe('NOT_FOUND');
  });

  it.each([
    ['both path and id in the body', { body: { path: 'a', id: 'mem_x' } }],
    ['both in the query', { query: '?path=a&id=mem_x' }],
    ['one in each', { body: { path: 'a' }, query: '?id=mem_x' }],
    ['neither', {}],
    ['an unknown field', { body: { name: 'a' } }],
    ['a malformed id', { query: '?id=123' }],
  ])('refuses %s with VALIDATION_ERROR', async (_l, input: { body?: unknown; query?: string }) => {
    const { agentKey: key, recordId } = await freshAgent();
    const res = await api.request('DELETE', `/api/v1/records/${recordId}/remember${input.query ?? ''}`, { key, body: input.body });
    expect([res.status, res.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('files', () => {
  it('writes, reads and overwrites a file, with its content hash', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const base = `/api/v1/records/${recordId}`;
    const written = (await api.request('POST', `${base}/write`, { key, body: { path: 'notes/todo.md', content: '- buy milk' } })).data;
    expect(written).toEqual({ path: 'notes/todo.md', contentHash: 'sha256:' + createHash('sha256').update('- buy milk').digest('hex') });
    expect((await api.request('GET', `${base}/read?path=notes/todo.md`, { key })).data).toEqual({ path: 'notes/todo.md', content: '- buy milk' });
    await api.request('POST', `${base}/write`, { key, body: { path: 'notes/todo.md', content: '' } });
    expect((await api.request('GET', `${base}/read?path=notes/todo.md`, { key })).data.content).toBe('');
    expect((await api.request('GET', `${base}/read?path=missing.md`, { key })).code).toBe('NOT_FOUND');
    expect((await api.request('GET', `${base}/read`, { key })).code).toBe('VALIDATION_ERROR');
    expect((await api.request('GET', `${base}/read?path=../x`, { key })).code).toBe('VALIDATION_ERROR');
  });

  it('accepts 1 MB of content and refuses 1 MB + 1 byte', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const MB = 1024 * 1024;
    const ok = await api.request('POST', `/api/v1/records/${recordId}/write`, { key, body: { path: 'big', content: 'x'.repeat(MB) } });
    expect(ok.status).toBe(200);
    const tooBig = await api.request('POST', `/api/v1/records/${recordId}/write`, { key, body: { path: 'big', content: 'x'.repeat(MB + 1) } });
    expect([tooBig.status, tooBig.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await api.request('GET', `/api/v1/records/${recordId}/read?path=big`, { key })).data.content).toHaveLength(MB);
    const path257 = await api.request('POST', `/api/v1/records/${recordId}/write`, { key, body: { path: 'p'.repeat(257), content: 'x' } });
    expect(path257.code).toBe('VALIDATION_ERROR');
  });
});

describe('idempotency keys and the usage ledger', () => {
  it('replays remember and write for the same key and body, refuses another body, and charges once', async () => {
    const { agentId, agentKey: key, recordId } = await freshAgent();
    const base = `/api/v1/records/${recordId}`;
    const body = { content: 'Idempotent memory', idempotency_key: 'k-1' };
    const first = (await api.request('POST', `${base}/remember`, { key, body })).data;
    const again = (await api.request('POST', `${base}/remember`, { key, body })).data;
    expect(again).toEqual(first);
    const conflict = await api.request('POST', `${base}/remember`, { key, body: { content: 'Other content', idempotency_key: 'k-1' } });
    expect([conflict.status, conflict.code]).toEqual([400, 'VALIDATION_ERROR']);
    const ctx = (await api.request('GET', `${base}/context`, { key })).data;
    expect(Object.values(ctx).flat()).toHaveLength(1);

    const w = { path: 'f', content: 'file body', idempotency_key: 'w-1' };
    const w1 = (await api.request('POST', `${base}/write`, { key, body: w })).data;
    expect((await api.request('POST', `${base}/write`, { key, body: w })).data).toEqual(w1);
    expect((await api.request('POST', `${base}/write`, { key, body: { ...w, content: 'changed' } })).code).toBe('VALIDATION_ERROR');
    expect((await api.request('GET', `${base}/read?path=f`, { key })).data.content).toBe('file body');

    // concurrent requests with one key write once
    const burst = await Promise.all(Array.from({ length: 5 }, () => api.request('POST', `${base}/remember`, { key, body: { content: 'burst', idempotency_key: 'k-2' } })));
    expect(new Set(burst.map((r) => r.data.id)).size).toBe(1);

    const usage = await ledger(agentId);
    // remember, write, context, read, remember (burst): replays and failures add nothing
    expect(usage.entries.map((e) => e.operation).sort()).toEqual(['context', 'read_file', 'remember', 'remember', 'write_file']);
    expect(usage.totalMicroUsd).toBe(5 * 50_000);
  });

  it('charges every successful paid call 0.05 USD, and nothing for failures and free calls', async () => {
    const { agentId, agentKey: key, recordId } = await freshAgent();
    const base = `/api/v1/records/${recordId}`;
    await api.request('POST', `${base}/remember`, { key, body: { content: 'one', path: 'one' } });
    await api.request('POST', `${base}/recall`, { key, body: { query: 'one' } });
    await api.request('GET', `${base}/context`, { key });
    await api.request('POST', `${base}/write`, { key, body: { path: 'f', content: 'x' } });
    await api.request('GET', `${base}/read?path=f`, { key });
    await api.request('DELETE', `${base}/remember?path=one`, { key });
    // failures
    await api.request('DELETE', `${base}/remember?path=one`, { key });
    await api.request('POST', `${base}/recall`, { key, body: { query: '' } });
    await api.request('GET', `${base}/read?path=nope`, { key });
    // free
    await api.request('GET', '/api/v1/agents', { key });
    await api.request('GET', `/api/v1/records/${recordId}`, { key });
    await api.request('POST', '/api/v1/records', { key, body: { name: 'free' } });
    const usage = await ledger(agentId);
    expect(usage.entries.map((e) => e.operation).sort()).toEqual(['context', 'forget', 'read_file', 'recall', 'remember', 'write_file']);
    expect(usage.entries.every((e) => e.amountMicroUsd === 50_000 && e.recordId === recordId)).toBe(true);
    expect(usage.totalMicroUsd).toBe(6 * 50_000);
  });
});

describe('record deletion', () => {
  it('purges the record’s memories and files from every store', async () => {
    const { agentKey: key } = await freshAgent();
    const recordId = (await api.request('POST', '/api/v1/records', { key, body: { name: 'doomed' } })).data.id;
    const base = `/api/v1/records/${recordId}`;
    await api.request('POST', `${base}/remember`, { key, body: { content: 'to be purged', path: 'p' } });
    await api.request('POST', `${base}/write`, { key, body: { path: 'f', content: 'purge me' } });
    expect(await blobFiles(recordId)).toHaveLength(2);
    expect((await api.request('DELETE', base, { key })).data).toMatchObject({ deleted: true, id: recordId });
    // standalone purges before answering; cluster purges from the durable event right after
    await eventually(async () => expect(await blobFiles(recordId)).toEqual([]));
    expect((await api.request('POST', `${base}/recall`, { key, body: { query: 'purged' } })).code).toBe('NOT_FOUND');
  });
});

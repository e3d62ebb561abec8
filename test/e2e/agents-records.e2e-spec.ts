import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, startE2eServer, walletProof } from '@agent-memory/test-support';

let server: E2eServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startE2eServer();
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

describe('agents', () => {
  it('creates an agent with a key of the documented format, a record and a wallet, and shows the agent to its key', async () => {
    const res = await api.request('POST', '/api/v1/agents', { body: { name: 'alpha', tags: ['a'], category: 'bots' } });
    expect(res.status).toBe(201);
    const created = res.data;
    expect(created.agentKey).toMatch(/^amk_live_[0-9A-Za-z]{43}$/);
    expect(created.recordId).toMatch(/^rec_/);
    expect(created.walletAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(created.walletPrivateKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(created.mode).toBe('cloud');
    const agent = (await api.request('GET', '/api/v1/agents', { key: created.agentKey })).data;
    expect(agent).toMatchObject({ id: created.agentId, name: 'alpha', mode: 'cloud', tags: ['a'], category: 'bots', recordId: created.recordId, walletAddress: created.walletAddress, keyEnvironment: 'live' });
    const record = (await api.request('GET', `/api/v1/records/${created.recordId}`, { key: created.agentKey })).data;
    expect(record.category).toBe('general');
  });

  it('defaults mode to cloud and category to agent; accepts a client wallet and test keys', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const created = await api.createAgent({ name: 'beta', mode: 'local', environment: 'test', ...(await walletProof(api, wallet)) });
    expect(created.agentKey).toMatch(/^amk_test_/);
    expect(created.walletPrivateKey).toBeUndefined();
    expect(created.walletAddress).toBe(wallet.address);
    const agent = (await api.request('GET', '/api/v1/agents', { key: created.agentKey })).data;
    expect(agent).toMatchObject({ mode: 'local', category: 'agent', keyEnvironment: 'test' });
    const other = (await api.request('GET', '/api/v1/agents', { key: (await api.createAgent({ name: 'gamma' })).agentKey })).data;
    expect(other.category).toBe('agent');
    expect(other.mode).toBe('cloud');
  });

  it.each([
    ['name at 128 characters', { name: 'n'.repeat(128) }, 201],
    ['name at 129 characters', { name: 'n'.repeat(129) }, 400],
    ['empty name', { name: '' }, 400],
    ['missing name', {}, 400],
    ['unknown mode', { name: 'x', mode: 'hybrid' }, 400],
    ['10 tags', { name: 'x', tags: Array.from({ length: 10 }, (_, i) => `t${i}`) }, 201],
    ['11 tags', { name: 'x', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 400],
    ['category at 32', { name: 'x', category: 'c'.repeat(32) }, 201],
    ['category at 33', { name: 'x', category: 'c'.repeat(33) }, 400],
    ['unknown field', { name: 'x', admin: true }, 400],
    ['number as name', { name: 42 }, 400],
    ['bad wallet', { name: 'x', walletAddress: '0x123' }, 400],
  ])('create agent: %s', async (_label, body, status) => {
    const res = await api.request('POST', '/api/v1/agents', { body });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
  });

  it.each([
    ['no header', undefined],
    ['malformed key', 'Bearer nope'],
    ['unknown key of the right shape', `Bearer amk_live_${'A'.repeat(43)}`],
    ['wrong scheme', 'Basic abc'],
  ])('get agent with %s → 401 UNAUTHORIZED', async (_label, header) => {
    const res = await api.request('GET', '/api/v1/agents', { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.code).toBe('UNAUTHORIZED');
  });
});

describe('records', () => {
  let key: string;
  beforeAll(async () => {
    key = (await api.createAgent({ name: 'records owner' })).agentKey;
  });

  it('creates, gets, updates, lists and deletes a record', async () => {
    const created = await api.request('POST', '/api/v1/records', { key, body: { name: 'notes', tags: ['x', 'y'] } });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ id: expect.stringMatching(/^rec_/), name: 'notes', tags: ['x', 'y'], category: 'general', parentRecordId: null });
    expect(new Date(created.data.createdAt).toISOString()).toBe(created.data.createdAt);
    const id = created.data.id;
    expect((await api.request('GET', `/api/v1/records/${id}`, { key })).data.name).toBe('notes');
    const updated = (await api.request('PATCH', `/api/v1/records/${id}`, { key, body: { name: 'renamed', tags: [], category: 'work' } })).data;
    expect(updated).toMatchObject({ name: 'renamed', tags: [], category: 'work' });
    const list = (await api.request('GET', '/api/v1/records', { key })).data;
    expect(list).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(list.records[0].id).toBe(id); // newest first
    const deleted = await api.request('DELETE', `/api/v1/records/${id}`, { key });
    expect(deleted.data).toMatchObject({ deleted: true, id });
    expect((await api.request('GET', `/api/v1/records/${id}`, { key })).code).toBe('NOT_FOUND');
  });

  it('pages the list with limit and offset within their bounds', async () => {
    const owner = (await api.createAgent({ name: 'pager' })).agentKey;
    for (let i = 0; i < 4; i++) await api.request('POST', '/api/v1/records', { key: owner, body: { name: `r${i}` } });
    const page = (await api.request('GET', '/api/v1/records?limit=2&offset=1', { key: owner })).data;
    expect(page.records.map((r: { name: string }) => r.name)).toEqual(['r2', 'r1']);
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect((await api.request('GET', '/api/v1/records?limit=100', { key: owner })).status).toBe(200);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'limit=1.5', 'extra=1']) {
      const res = await api.request('GET', `/api/v1/records?${q}`, { key: owner });
      expect([q, res.status, res.code]).toEqual([q, 400, 'VALIDATION_ERROR']);
    }
  });

  it.each([
    ['name 128', { name: 'n'.repeat(128) }, 201],
    ['name 129', { name: 'n'.repeat(129) }, 400],
    ['10 tags', { name: 'x', tags: Array.from({ length: 10 }, (_, i) => `${i}`) }, 201],
    ['11 tags', { name: 'x', tags: Array.from({ length: 11 }, (_, i) => `${i}`) }, 400],
    ['category 32', { name: 'x', category: 'c'.repeat(32) }, 201],
    ['category 33', { name: 'x', category: 'c'.repeat(33) }, 400],
    ['unknown field', { name: 'x', owner: 'me' }, 400],
    ['tags not an array', { name: 'x', tags: 'a' }, 400],
  ])('create record: %s', async (_l, body, status) => {
    expect((await api.request('POST', '/api/v1/records', { key, body })).status).toBe(status);
  });

  it('refuses an empty update, keeps hierarchy within the agent and without cycles', async () => {
    const a = (await api.request('POST', '/api/v1/records', { key, body: { name: 'a' } })).data.id;
    const b = (await api.request('POST', '/api/v1/records', { key, body: { name: 'b', parentRecordId: a } })).data;
    expect(b.parentRecordId).toBe(a);
    const c = (await api.request('POST', '/api/v1/records', { key, body: { name: 'c', parentRecordId: b.id } })).data.id;
    expect((await api.request('PATCH', `/api/v1/records/${a}`, { key, body: {} })).code).toBe('VALIDATION_ERROR');
    const cycle = await api.request('PATCH', `/api/v1/records/${a}`, { key, body: { parentRecordId: c } });
    expect(cycle.code).toBe('VALIDATION_ERROR');
    expect((await api.request('PATCH', `/api/v1/records/${a}`, { key, body: { parentRecordId: a } })).code).toBe('VALIDATION_ERROR');
    const foreign = (await api.createAgent({ name: 'stranger' })).recordId;
    expect((await api.request('POST', '/api/v1/records', { key, body: { name: 'd', parentRecordId: foreign } })).code).toBe('VALIDATION_ERROR');
    // delete with children needs cascade
    const refused = await api.request('DELETE', `/api/v1/records/${a}`, { key });
    expect(refused.code).toBe('VALIDATION_ERROR');
    expect((await api.request('GET', `/api/v1/records/${a}`, { key })).status).toBe(200);
    const cascaded = (await api.request('DELETE', `/api/v1/records/${a}?cascade=true`, { key })).data;
    expect(new Set(cascaded.deletedRecordIds)).toEqual(new Set([a, b.id, c]));
    for (const id of [a, b.id, c]) expect((await api.request('GET', `/api/v1/records/${id}`, { key })).code).toBe('NOT_FOUND');
    // detaching with null is allowed
    const p = (await api.request('POST', '/api/v1/records', { key, body: { name: 'p' } })).data.id;
    const q = (await api.request('POST', '/api/v1/records', { key, body: { name: 'q', parentRecordId: p } })).data.id;
    expect((await api.request('PATCH', `/api/v1/records/${q}`, { key, body: { parentRecordId: null } })).data.parentRecordId).toBeNull();
  });
});

describe('cross-agent isolation: another agent’s record is NOT_FOUND on every record endpoint', () => {
  let victim: { agentKey: string; recordId: string };
  let attackerKey: string;
  beforeAll(async () => {
    victim = await api.createAgent({ name: 'victim' });
    attackerKey = (await api.createAgent({ name: 'attacker' })).agentKey;
    expect((await api.request('POST', `/api/v1/records/${victim.recordId}/remember`, { key: victim.agentKey, body: { content: 'secret plan', path: 'plan' } })).status).toBe(200);
    expect((await api.request('POST', `/api/v1/records/${victim.recordId}/write`, { key: victim.agentKey, body: { path: 'f.txt', content: 'secret file' } })).status).toBe(200);
  }, 60_000);

  // Every row has four entries: Jest treats a test function with more parameters than the row as done-callback style.
  const calls: Array<[string, string, (r: string) => string, unknown]> = [
    ['get record', 'GET', (r) => `/api/v1/records/${r}`, undefined],
    ['update record', 'PATCH', (r) => `/api/v1/records/${r}`, { name: 'pwned' }],
    ['delete record', 'DELETE', (r) => `/api/v1/records/${r}`, undefined],
    ['recall', 'POST', (r) => `/api/v1/records/${r}/recall`, { query: 'plan' }],
    ['remember', 'POST', (r) => `/api/v1/records/${r}/remember`, { content: 'injected' }],
    ['forget', 'DELETE', (r) => `/api/v1/records/${r}/remember?path=plan`, undefined],
    ['read file', 'GET', (r) => `/api/v1/records/${r}/read?path=f.txt`, undefined],
    ['write file', 'POST', (r) => `/api/v1/records/${r}/write`, { path: 'f.txt', content: 'overwritten' }],
    ['context', 'GET', (r) => `/api/v1/records/${r}/context`, undefined],
  ];

  it.each(calls)('%s', async (_label, method, path, body) => {
    const res = await api.request(method, path(victim.recordId), { key: attackerKey, body });
    expect(res.status).toBe(404);
    expect(res.code).toBe('NOT_FOUND');
  });

  it('left the victim’s data untouched', async () => {
    const ctx = (await api.request('GET', `/api/v1/records/${victim.recordId}/context`, { key: victim.agentKey })).data;
    expect(Object.values(ctx).flat().map((m: any) => m.content)).toEqual(['secret plan']);
    expect((await api.request('GET', `/api/v1/records/${victim.recordId}/read?path=f.txt`, { key: victim.agentKey })).data.content).toBe('secret file');
    expect((await api.request('GET', `/api/v1/records/${victim.recordId}`, { key: victim.agentKey })).data.name).toBe('victim');
  });

  it('lists only the caller’s own records', async () => {
    const list = (await api.request('GET', '/api/v1/records', { key: attackerKey })).data;
    expect(list.records.map((r: any) => r.id)).not.toContain(victim.recordId);
    expect(list.total).toBe(1);
  });

  it.each(calls)('%s without auth is 401', async (_label, method, path, body) => {
    const res = await api.request(method, path(victim.recordId), { body });
    expect(res.status).toBe(401);
    expect(res.code).toBe('UNAUTHORIZED');
  });
});

describe('HTTP edge', () => {
  it('answers unknown routes with NOT_FOUND in the envelope', async () => {
    const res = await api.request('GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('refuses malformed JSON, a wrong content type and a missing body with VALIDATION_ERROR', async () => {
    const { agentKey: key, recordId } = await api.createAgent({ name: 'edge' });
    const bad = await api.request('POST', '/api/v1/records', { key, rawBody: '{"name": ', contentType: 'application/json' });
    expect([bad.status, bad.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(bad.body.success === false && bad.body.error.message).toMatch(/JSON/);
    const plain = await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, rawBody: 'hello', contentType: 'text/plain' });
    expect([plain.status, plain.code]).toEqual([400, 'VALIDATION_ERROR']);
    const none = await api.request('POST', '/api/v1/records', { key });
    expect([none.status, none.code]).toEqual([400, 'VALIDATION_ERROR']);
    const array = await api.request('POST', '/api/v1/records', { key, body: [1, 2] });
    expect([array.status, array.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('serves health, readiness, the OpenAPI document and a request id', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-request-id')).toBeTruthy();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/agents', '/api/v1/records', '/api/v1/records/{recordId}/recall', '/api/v1/records/{recordId}/remember']));
    expect(doc.components.schemas.RememberBody.properties.content).toBeDefined();
    const forgetQuery = (doc.paths['/api/v1/records/{recordId}/remember'].delete.parameters as any[]).filter((p) => p.in === 'query');
    expect(forgetQuery.map((p) => [p.name, p.required]).sort()).toEqual([['id', false], ['path', false]]);
    expect((await fetch(`${server.url}/docs`)).status).toBe(200);
  });
});

import { createHash } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signatureMessage } from '@agent-memory/gateway';
import { ApiClient } from '@agent-memory/testing';
import { createAgentWithWallet, type E2eServer, startE2eServer } from '@agent-memory/test-support';

let server: E2eServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startE2eServer();
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

describe('documented rate limits', () => {
  it('allows 100 requests a minute per agent and answers the 101st with RATE_LIMITED, Retry-After and RateLimit headers', async () => {
    const { agentKey: key } = await api.createAgent({ name: 'busy' });
    for (let i = 1; i <= 100; i++) {
      const res = await api.request('GET', '/api/v1/agents', { key });
      expect(res.status).toBe(200);
      if (i === 1) {
        expect(res.headers.get('ratelimit-policy')).toBe('"agent";q=100;w=60');
        expect(res.headers.get('ratelimit')).toMatch(/^"agent";r=99;t=\d+$/);
      }
    }
    const limited = await api.request('GET', '/api/v1/agents', { key });
    expect([limited.status, limited.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit')).toMatch(/^"agent";r=0;t=\d+$/);
    // another agent is not affected
    expect((await api.request('GET', '/api/v1/agents', { key: (await api.createAgent({ name: 'calm' })).agentKey })).status).toBe(200);
  });

  it('allows 30 writes a minute per record (remember and write together) and refuses the 31st', async () => {
    const { agentKey: key, recordId } = await api.createAgent({ name: 'writer' });
    const base = `/api/v1/records/${recordId}`;
    for (let i = 0; i < 29; i++) expect((await api.request('POST', `${base}/write`, { key, body: { path: `f${i}`, content: 'x' } })).status).toBe(200);
    const thirtieth = await api.request('POST', `${base}/remember`, { key, body: { content: 'thirtieth write', type: 'fact' } });
    expect(thirtieth.status).toBe(200);
    expect(thirtieth.headers.get('ratelimit-policy')).toBe('"agent";q=100;w=60, "record-write";q=30;w=60');
    const limited = await api.request('POST', `${base}/remember`, { key, body: { content: 'one too many', type: 'fact' } });
    expect([limited.status, limited.code]).toEqual([429, 'RATE_LIMITED']);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    // nothing was written by the refused call
    const ctx = (await api.request('GET', `${base}/context`, { key })).data;
    expect(ctx.fact.map((m: any) => m.content)).toEqual(['thirtieth write']);
    // another record of the same agent still takes writes
    const other = (await api.request('POST', '/api/v1/records', { key, body: { name: 'other' } })).data.id;
    expect((await api.request('POST', `/api/v1/records/${other}/write`, { key, body: { path: 'f', content: 'x' } })).status).toBe(200);
  });

  it('allows 60 queries a minute per record (recall, context, list memories and list files together) and refuses the 61st', async () => {
    const { agentKey: key, recordId } = await api.createAgent({ name: 'reader' });
    const base = `/api/v1/records/${recordId}`;
    for (let i = 0; i < 57; i++) expect((await api.request('GET', `${base}/context`, { key })).status).toBe(200);
    const listed = await api.request('GET', `${base}/memories`, { key });
    expect([listed.status, listed.headers.get('ratelimit-policy')]).toEqual([200, '"agent";q=100;w=60, "record-query";q=60;w=60']);
    expect((await api.request('GET', `${base}/files`, { key })).status).toBe(200);
    expect((await api.request('POST', `${base}/recall`, { key, body: { query: 'sixtieth' } })).status).toBe(200);
    for (const path of ['recall', 'files']) {
      const limited = path === 'recall' ? await api.request('POST', `${base}/recall`, { key, body: { query: 'sixty-first' } }) : await api.request('GET', `${base}/files`, { key });
      expect([path, limited.status, limited.code]).toEqual([path, 429, 'RATE_LIMITED']);
      expect(limited.headers.get('ratelimit')).toMatch(/"record-query";r=0;t=\d+/);
    }
  });
});

describe('wallet signatures on raw blob access (local mode)', () => {
  const account = privateKeyToAccount(generatePrivateKey());
  let recordId: string;
  let agentKey: string;

  beforeAll(async () => {
    const agent = await createAgentWithWallet(api, account, { name: 'local agent', mode: 'local' });
    recordId = agent.recordId;
    agentKey = agent.agentKey;
  });

  async function signed(method: 'GET' | 'POST', pathWithQuery: string, body?: unknown, opts: { timestamp?: number; signer?: typeof account; tamper?: (b: string) => string; address?: string } = {}) {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
    const signer = opts.signer ?? account;
    const signature = await signer.signMessage({ message: signatureMessage({ ...server.signatureRealm, method, pathWithQuery, timestamp, body: raw }) });
    const header = `Signature ${timestamp}:${opts.address ?? signer.address}:${signature}`;
    const sent = opts.tamper ? opts.tamper(raw) : raw;
    return { header, send: () => api.request(method, pathWithQuery, { headers: { authorization: header }, rawBody: body === undefined ? undefined : sent, contentType: 'application/json' }) };
  }

  it('stores and reads an opaque blob with signed requests', async () => {
    const content = Buffer.from([0, 1, 2, 250, 255]).toString('base64');
    const put = await (await signed('POST', `/api/v1/records/${recordId}/raw`, { path: 'keys/backup.bin', content, contentType: 'application/octet-stream' })).send();
    expect(put.status).toBe(200);
    expect(put.data).toEqual({ path: 'keys/backup.bin', size: 5, contentHash: 'sha256:' + createHash('sha256').update(Buffer.from([0, 1, 2, 250, 255])).digest('hex') });
    const get = await (await signed('GET', `/api/v1/records/${recordId}/raw?path=keys/backup.bin`)).send();
    expect(get.data).toEqual({ path: 'keys/backup.bin', content, contentType: 'application/octet-stream' });
    const missing = await (await signed('GET', `/api/v1/records/${recordId}/raw?path=nope`)).send();
    expect(missing.code).toBe('NOT_FOUND');
  });

  it('refuses replayed, expired, future-dated, tampered, foreign and malformed signatures with UNAUTHORIZED', async () => {
    const path = `/api/v1/records/${recordId}/raw?path=keys/backup.bin`;
    // Signatures are deterministic (RFC 6979): a distinct timestamp makes this request distinct from the previous test's.
    const once = await signed('GET', path, undefined, { timestamp: Math.floor(Date.now() / 1000) - 2 });
    expect((await once.send()).status).toBe(200);
    expect((await once.send()).code).toBe('UNAUTHORIZED');
    expect((await (await signed('GET', path, undefined, { timestamp: Math.floor(Date.now() / 1000) - 301 })).send()).code).toBe('UNAUTHORIZED');
    // Future-dated by a margin: the clock moves on between signing and the server's check (seconds on a loaded
    // machine), so +301 s could arrive inside the ±300 s window and be accepted.
    expect((await (await signed('GET', path, undefined, { timestamp: Math.floor(Date.now() / 1000) + 330 })).send()).code).toBe('UNAUTHORIZED');
    const tampered = await signed('POST', `/api/v1/records/${recordId}/raw`, { path: 'x', content: 'AAAA' }, { tamper: (b) => b.replace('AAAA', 'BBBB') });
    expect((await tampered.send()).code).toBe('UNAUTHORIZED');
    const stranger = privateKeyToAccount(generatePrivateKey());
    expect((await (await signed('GET', path, undefined, { signer: stranger })).send()).code).toBe('UNAUTHORIZED');
    const claimsOwner = await signed('GET', path, undefined, { signer: stranger, address: account.address });
    expect((await claimsOwner.send()).code).toBe('UNAUTHORIZED');
    for (const header of ['Signature abc', `Signature 1:${account.address}:0x12`, `Bearer ${agentKey}`, '']) {
      const res = await api.request('GET', path, { headers: header ? { authorization: header } : {} });
      expect([header, res.code]).toEqual([header, 'UNAUTHORIZED']);
    }
    // the tampered write did not land
    expect((await (await signed('GET', `/api/v1/records/${recordId}/raw?path=x`)).send()).code).toBe('NOT_FOUND');
  });

  it('refuses raw access for a cloud-mode agent with FORBIDDEN', async () => {
    const cloudWallet = privateKeyToAccount(generatePrivateKey());
    const cloud = await createAgentWithWallet(api, cloudWallet, { name: 'cloud agent' });
    const res = await (await signed('GET', `/api/v1/records/${cloud.recordId}/raw?path=a`, undefined, { signer: cloudWallet })).send();
    expect([res.status, res.code]).toEqual([403, 'FORBIDDEN']);
  });
});

describe('restart', () => {
  it('keeps agents, records, memories, files and the vector index across a restart of every process', async () => {
    // the suite's server (this is the file's last case): fresh data of its own, then a full restart
    const before = new ApiClient(server.url);
    const { agentKey: key, recordId } = await before.createAgent({ name: 'durable' });
    const base = `/api/v1/records/${recordId}`;
    const memory = (await before.request('POST', `${base}/remember`, { key, body: { content: 'Caroline adopted a grey cat named Pixel last spring.', path: 'pets/pixel' } })).data;
    await before.request('POST', `${base}/remember`, { key, body: { content: 'Forget me later.', path: 'tmp' } });
    await before.request('DELETE', `${base}/remember?path=tmp`, { key });
    await before.request('POST', `${base}/write`, { key, body: { path: 'notes.md', content: '# notes' } });
    await server.restart();
    const after = new ApiClient(server.url);
    expect((await after.request('GET', '/api/v1/agents', { key })).data.recordId).toBe(recordId);
    const recall = (await after.request('POST', `${base}/recall`, { key, body: { query: 'What is the name of the cat?' } })).data;
    expect(recall.memories.map((m: any) => m.id)).toEqual([memory.id]);
    expect((await after.request('GET', `${base}/read?path=notes.md`, { key })).data.content).toBe('# notes');
    const ctx = (await after.request('GET', `${base}/context`, { key })).data;
    expect(Object.values(ctx).flat().map((m: any) => m.path)).toEqual(['pets/pixel']);
  }, 180_000);
});

import { SUBJECTS, UsageSummarySchema } from '@agent-memory/shared';
import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, eventually, startE2eServer } from '@agent-memory/test-support';

/**
 * Per-agent storage quotas (docs/api.md, "Storage quotas") with tiny limits: exceeding a quota answers
 * 403 FORBIDDEN naming the quota, the usage and the limit, and stores nothing (no row, no blob, no
 * charge); forget and record deletion free quota; a replace counts its size change.
 */
const QUOTA_ENV = {
  QUOTA_MEMORIES_PER_AGENT: '3',
  QUOTA_MEMORY_BYTES_PER_AGENT: '1000',
  QUOTA_FILES_PER_AGENT: '2',
  QUOTA_FILE_BYTES_PER_AGENT: '1000',
};

let server: E2eServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startE2eServer({ env: QUOTA_ENV });
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

const text = (bytes: number, seed = 'x') => `${seed} `.repeat(Math.ceil(bytes / (seed.length + 1))).slice(0, bytes);

async function freshAgent() {
  return api.createAgent({ name: `quota agent ${Math.random()}` });
}

async function charged(agentId: string, operation: string): Promise<number> {
  const usage = await server.bus().request(SUBJECTS.billing.usage, { agentId, limit: 1000, offset: 0 }, UsageSummarySchema);
  return usage.entries.filter((e) => e.operation === operation).length;
}

async function memoryCount(key: string, recordId: string): Promise<number> {
  const context = (await api.request('GET', `/api/v1/records/${recordId}/context`, { key })).data as Record<string, unknown[]>;
  return Object.values(context).reduce((n, list) => n + list.length, 0);
}

describe('memory quota', () => {
  it('refuses the memory beyond the count quota with 403 naming usage and limit, in any of the agent’s records, and stores nothing', async () => {
    const { agentId, agentKey: key, recordId } = await freshAgent();
    for (let i = 0; i < 3; i++) expect((await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { content: `Fact ${i}: the sky was blue.`, type: 'fact' } })).status).toBe(200);
    const blobsBefore = (await server.blobKeys(`records/${recordId}/memories/`)).length;

    const refused = await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { content: 'One memory too many.', type: 'fact' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, error: { code: 'FORBIDDEN', message: expect.stringMatching(/Memory quota exceeded: this agent stores 3 memories, the limit is 3 per agent/) } });
    // Per agent, not per record.
    const other = (await api.request('POST', '/api/v1/records', { key, body: { name: 'second record' } })).data as { id: string };
    const refusedElsewhere = await api.request('POST', `/api/v1/records/${other.id}/remember`, { key, body: { content: 'Elsewhere.', type: 'fact' } });
    expect(refusedElsewhere.status).toBe(403);

    expect(await memoryCount(key, recordId)).toBe(3);
    expect(await memoryCount(key, other.id)).toBe(0);
    expect((await server.blobKeys(`records/${recordId}/memories/`)).length).toBe(blobsBefore);
    expect(await server.blobKeys(`records/${other.id}/memories/`)).toEqual([]);
    expect(await charged(agentId, 'remember')).toBe(3);
  });

  it('frees quota on forget and on record deletion', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const paths: string[] = [];
    for (let i = 0; i < 3; i++) paths.push(((await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { content: `Note ${i}.`, type: 'fact' } })).data as { path: string }).path);
    expect((await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { content: 'Full.', type: 'fact' } })).status).toBe(403);

    expect((await api.request('DELETE', `/api/v1/records/${recordId}/remember`, { key, body: { path: paths[0] } })).status).toBe(200);
    expect((await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { content: 'Room again after a forget.', type: 'fact' } })).status).toBe(200);
    expect((await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { content: 'Full again.', type: 'fact' } })).status).toBe(403);

    const other = (await api.request('POST', '/api/v1/records', { key, body: { name: 'to delete' } })).data as { id: string };
    expect((await api.request('DELETE', `/api/v1/records/${recordId}`, { key })).status).toBe(200);
    await eventually(async () => {
      expect((await api.request('POST', `/api/v1/records/${other.id}/remember`, { key, body: { content: 'Room after the record went.', type: 'fact' } })).status).toBe(200);
    });
  });

  it('counts bytes, and a replace at an existing path counts only its size change', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const remember = (content: string, path?: string) => api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body: { content, type: 'fact', ...(path ? { path } : {}) } });
    expect((await remember(text(600), 'notes/a')).status).toBe(200);
    const tooBig = await remember(text(401, 'y'));
    expect(tooBig.status).toBe(403);
    expect(tooBig.body).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringMatching(/Memory storage quota exceeded: this agent's memories hold 600 bytes, this write adds 401 bytes, the limit is 1000 bytes per agent/) } });
    expect((await remember(text(400, 'z'))).status).toBe(200); // exactly 1000
    // Replace 600 bytes by 590: -10, allowed; then by 611: +21 over the limit, refused, the 590 stay.
    expect((await remember(text(590, 'r'), 'notes/a')).status).toBe(200);
    const grow = await remember(text(611, 'g'), 'notes/a');
    expect(grow.status).toBe(403);
    expect(grow.body).toMatchObject({ error: { message: expect.stringMatching(/hold 990 bytes, this write adds 21 bytes/) } });
    expect((await remember(text(600, 'g'), 'notes/a')).status).toBe(200); // +10: exactly 1000
    expect((await remember(text(1, 'o'))).status).toBe(403);
    expect(await memoryCount(key, recordId)).toBe(2);
  });
});

describe('file quota', () => {
  it('refuses the file beyond the count quota, lets an existing path be replaced, and stores nothing', async () => {
    const { agentId, agentKey: key, recordId } = await freshAgent();
    const write = (path: string, content: string) => api.request('POST', `/api/v1/records/${recordId}/write`, { key, body: { path, content } });
    expect((await write('a.txt', 'alpha')).status).toBe(200);
    expect((await write('b.txt', 'beta')).status).toBe(200);
    const blobsBefore = (await server.blobKeys(`records/${recordId}/files/`)).sort();
    const refused = await write('c.txt', 'gamma');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, error: { code: 'FORBIDDEN', message: expect.stringMatching(/File quota exceeded: this agent stores 2 files and raw blobs, the limit is 2 per agent/) } });
    expect((await api.request('GET', `/api/v1/records/${recordId}/read?path=c.txt`, { key })).status).toBe(404);
    expect((await server.blobKeys(`records/${recordId}/files/`)).sort()).toEqual(blobsBefore);
    expect(await charged(agentId, 'write_file')).toBe(2);
    // A replace adds no file.
    expect((await write('a.txt', 'alpha, second version')).status).toBe(200);
  });

  it('counts bytes, and a replace counts only its size change', async () => {
    const { agentKey: key, recordId } = await freshAgent();
    const write = (path: string, content: string) => api.request('POST', `/api/v1/records/${recordId}/write`, { key, body: { path, content } });
    expect((await write('a.txt', text(600))).status).toBe(200);
    const refused = await write('b.txt', text(401));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringMatching(/File storage quota exceeded: this agent's files and raw blobs hold 600 bytes, this write adds 401 bytes, the limit is 1000 bytes per agent/) } });
    expect((await write('a.txt', text(1000, 'w'))).status).toBe(200); // +400: exactly 1000
    expect((await write('a.txt', text(1001, 'w'))).status).toBe(403);
    expect((await write('a.txt', text(300, 's'))).status).toBe(200); // -700
    expect((await write('b.txt', text(700, 'b'))).status).toBe(200); // exactly 1000 again
    expect(((await api.request('GET', `/api/v1/records/${recordId}/read?path=a.txt`, { key })).data as { content: string }).content).toBe(text(300, 's'));
  });
});

import { BLOB_STORE, type BlobStore, canonicalJson, sha256Hex } from '@agent-memory/platform';
import { ApiClient } from '@agent-memory/testing';
import { eventually, startStandaloneServer, type TestServer } from '@agent-memory/test-support';
import { MEMORY_PRISMA, type MemoryPrismaClient } from '../../services/memory/src/persistence/prisma';

/**
 * What a client may assume after a 500 or a timeout, and while its key is busy (docs/api.md "After a 500 or
 * a timeout", "Idempotency keys"), over HTTP against the standalone server with a short bus timeout
 * (BUS_REQUEST_TIMEOUT_MS 1 s) and its blob store stalled on demand: a remember the gateway answered 500
 * after a bus timeout is not applied, and its retry with the same key stores and charges it once; a key
 * whose first request crashed answers 429 RATE_LIMITED with Retry-After until that request's deadline,
 * and the retry after that stores one memory.
 */
let server: TestServer;
let api: ApiClient;
let blobs: BlobStore;
let prisma: MemoryPrismaClient;
let stallPutsMs = 0;

beforeAll(async () => {
  server = await startStandaloneServer({ env: { BUS_REQUEST_TIMEOUT_MS: '1000', BILLING_MODE: 'ledger', RATE_LIMITS: 'off' } });
  api = new ApiClient(server.url);
  blobs = server.app.get(BLOB_STORE);
  prisma = server.app.get(MEMORY_PRISMA);
  // A slow blob store (as a stalled S3): each put waits `stallPutsMs` before it stores.
  const put = blobs.put.bind(blobs);
  blobs.put = async (key, data, contentType) => {
    if (stallPutsMs > 0) await new Promise((resolve) => setTimeout(resolve, stallPutsMs));
    return put(key, data, contentType);
  };
}, 120_000);

afterAll(() => server?.close({ removeData: true }), 60_000);
afterEach(() => {
  stallPutsMs = 0;
});

async function memoryIds(key: string, recordId: string): Promise<string[]> {
  const ctx = (await api.request('GET', `/api/v1/records/${recordId}/context?limit=100`, { key })).data as Record<string, Array<{ id: string }>>;
  return Object.values(ctx).flat().map((m) => m.id);
}
async function charged(key: string): Promise<number> {
  return (await api.request('GET', '/api/v1/billing/usage?operation=remember', { key })).data.total as number;
}

it('a remember answered 500 after a bus timeout is not applied; its retry with the same key stores and charges it once', async () => {
  const { agentKey: key, recordId } = await api.createAgent({ name: 'deadline' });
  const body = { content: 'The generator is tested on the last Sunday of each month.', type: 'fact', idempotency_key: 'k-timeout' };
  // the put outlasts the request timeout (1 s) and its reply grace (3 s): the gateway answers 500
  stallPutsMs = 5_000;
  const first = await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body });
  expect([first.status, first.code]).toEqual([500, 'INTERNAL_ERROR']);
  stallPutsMs = 0;
  // the stalled write runs on to its commit point (its claim then leaves `pending`), and refuses to commit
  await eventually(async () => expect(await prisma.memoryIdempotencyKey.count({ where: { recordId, status: 'pending' } })).toBe(0), 30_000, 100);
  expect(await memoryIds(key, recordId)).toEqual([]);
  expect(await prisma.memoryIdempotencyKey.count({ where: { recordId } })).toBe(0);

  const retries = [];
  for (let i = 0; i < 3; i++) retries.push(await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body }));
  expect(retries.map((r) => r.status)).toEqual([200, 200, 200]);
  expect(new Set(retries.map((r) => r.data.id)).size).toBe(1);
  expect(await memoryIds(key, recordId)).toEqual([retries[0].data.id]);
  expect(await charged(key)).toBe(1); // stored 1, charged 1
}, 60_000);

it('a key whose first request crashed answers 429 with Retry-After until that request’s deadline; the retry after it stores one memory', async () => {
  const { agentKey: key, recordId } = await api.createAgent({ name: 'crashed' });
  const body = { content: 'The roof hatch key hangs in the boiler room.', type: 'fact', idempotency_key: 'k-crashed' };
  // the claim a crashed process left behind: pending, its request's deadline 20 s ahead
  await prisma.memoryIdempotencyKey.create({
    data: {
      recordId,
      key: body.idempotency_key,
      requestHash: sha256Hex(canonicalJson({ op: 'remember', content: body.content, type: body.type, path: undefined })),
      status: 'pending',
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 20_000),
    },
  });

  const busy = await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body });
  expect([busy.status, busy.code]).toEqual([429, 'RATE_LIMITED']);
  expect((busy.body as { error: { message: string } }).error.message).toMatch(/still in progress/);
  const retryAfter = Number(busy.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(10);
  expect(retryAfter).toBeLessThanOrEqual(20);
  expect(await memoryIds(key, recordId)).toEqual([]);

  // Retry-After seconds later (the clock is moved instead of waiting): the claim is taken over
  await prisma.memoryIdempotencyKey.updateMany({ where: { recordId, key: body.idempotency_key }, data: { expiresAt: new Date(Date.now() - 1) } });
  const retry = await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body });
  expect(retry.status).toBe(200);
  const again = await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, body });
  expect(again.data.id).toBe(retry.data.id);
  expect(await memoryIds(key, recordId)).toEqual([retry.data.id]);
  expect(await charged(key)).toBe(1);
}, 60_000);

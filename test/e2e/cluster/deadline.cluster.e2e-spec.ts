/**
 * A 500 after a bus timeout in cluster mode (docs/api.md "After a 500 or a timeout"): the gateway's bus
 * timeout is short (BUS_REQUEST_TIMEOUT_MS 2 s) and S3 is made slow (each request held 7 s, longer than the
 * timeout and its 3 s reply grace), so a remember and a file write answer 500 while their services are
 * still working. Those writes must not appear later, and the retry with the same idempotency key must be
 * stored and charged once (stored == charged).
 */
import { Client } from 'pg';
import { ApiClient } from '@agent-memory/testing';
import { ClusterServer, eventually } from '@agent-memory/test-support';

let cluster: ClusterServer;
let api: ApiClient;
let db: Client;

beforeAll(async () => {
  cluster = await ClusterServer.start({ env: { RATE_LIMITS: 'off', BUS_REQUEST_TIMEOUT_MS: '2000', BILLING_MODE: 'ledger' } });
  api = new ApiClient(cluster.url);
  db = new Client({ connectionString: cluster.database.url });
  await db.connect();
}, 240_000);
afterAll(async () => {
  await db?.end();
  await cluster?.close({ removeData: true });
}, 120_000);

/** Idempotency claims of `key` in `schema` (memory or files) still pending. */
async function pendingClaims(schema: 'memory' | 'files', recordId: string, key: string): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM "${schema}"."idempotency_keys" WHERE record_id = $1 AND key = $2 AND status = 'pending'`, [recordId, key]);
  return rows[0].n as number;
}
async function charged(agentKey: string, operation: string): Promise<number> {
  return (await api.request('GET', `/api/v1/billing/usage?operation=${operation}`, { key: agentKey })).data.total as number;
}

it('a remember and a file write answered 500 after a bus timeout are not applied; their retries are stored and charged once', async () => {
  const { agentKey: key, recordId } = await api.createAgent({ name: 'deadline' });
  const base = `/api/v1/records/${recordId}`;
  const memory = { content: 'The server room door code changes every quarter.', type: 'fact', idempotency_key: 'k-mem' };
  const file = { path: 'notes/runbook.md', content: '# Runbook\n', idempotency_key: 'k-file' };

  cluster.s3.setDelayMs(7_000);
  let first: Array<{ status: number; code?: string }>;
  try {
    first = await Promise.all([api.request('POST', `${base}/remember`, { key, body: memory }), api.request('POST', `${base}/write`, { key, body: file })]);
  } finally {
    cluster.s3.setDelayMs(0);
  }
  expect(first.map((r) => [r.status, r.code])).toEqual([
    [500, 'INTERNAL_ERROR'],
    [500, 'INTERNAL_ERROR'],
  ]);
  // the services run on to their commit points once S3 answers, and refuse to commit: the claims are released
  await eventually(async () => expect((await pendingClaims('memory', recordId, 'k-mem')) + (await pendingClaims('files', recordId, 'k-file'))).toBe(0), 60_000, 250);
  const ctx = (await api.request('GET', `${base}/context?limit=100`, { key })).data as Record<string, unknown[]>;
  expect(Object.values(ctx).flat()).toEqual([]);
  expect((await api.request('GET', `${base}/read?path=${encodeURIComponent(file.path)}`, { key })).status).toBe(404);
  expect(await charged(key, 'remember')).toBe(0);

  // retried with the same keys, twice each: one memory and one file, each charged once
  const retries = [];
  for (let i = 0; i < 2; i++) {
    retries.push(await api.request('POST', `${base}/remember`, { key, body: memory }));
    retries.push(await api.request('POST', `${base}/write`, { key, body: file }));
  }
  expect(retries.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  expect(retries[2].data.id).toBe(retries[0].data.id);
  const memories = Object.values((await api.request('GET', `${base}/context?limit=100`, { key })).data as Record<string, Array<{ id: string }>>).flat();
  expect(memories.map((m) => m.id)).toEqual([retries[0].data.id]);
  expect((await api.request('GET', `${base}/read?path=${encodeURIComponent(file.path)}`, { key })).data.content).toBe(file.content);
  expect(await charged(key, 'remember')).toBe(1);
  expect(await charged(key, 'write_file')).toBe(1);
}, 180_000);

/**
 * Fault tests of cluster mode, each on the real processes and servers of a test cluster
 * (test/support/cluster-server.ts). Each asserts that no acknowledged write is lost and that no store
 * is left half-deleted. Rate limits are off here so that bursts and retries are not refused; the Redis
 * restart under rate-limited traffic is in replicas.cluster.e2e-spec.ts (rate limits on, two gateways).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient } from '@agent-memory/testing';
import { ClusterServer, eventually } from '@agent-memory/test-support';

let cluster: ClusterServer;
let api: ApiClient;

beforeAll(async () => {
  cluster = await ClusterServer.start({ env: { RATE_LIMITS: 'off', BUS_REQUEST_TIMEOUT_MS: '5000' } });
  api = new ApiClient(cluster.url);
}, 240_000);
afterAll(() => cluster?.close({ removeData: true }), 120_000);

/** Every memory of a record, through context (grouped by type), as `path → id`. */
async function memoriesOf(key: string, recordId: string): Promise<Map<string, string>> {
  const ctx = (await api.request('GET', `/api/v1/records/${recordId}/context?limit=100`, { key })).data as Record<string, Array<{ id: string; path: string }>>;
  return new Map(Object.values(ctx).flat().map((m) => [m.path, m.id]));
}

/**
 * Replays a remember with its idempotency key. A key whose first request died with the killed process is
 * still "in progress" (429 with Retry-After) until that request's deadline has passed (BUS_REQUEST_TIMEOUT_MS
 * after it was sent, libs/platform/src/idempotency): retry until then.
 */
async function replay(path: string, key: string, body: Record<string, unknown>) {
  return eventually(async () => {
    const res = await api.request('POST', path, { key, body });
    expect(res.status).toBe(200);
    return res;
  }, 90_000, 2_000);
}

function vectorIndexText(): string {
  // every file under the index directory (one log per record under tenants/)
  return (readdirSync(cluster.vectorIndexDir, { recursive: true }) as string[])
    .map((f) => join(cluster.vectorIndexDir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

describe('memory service killed during a burst of remembers', () => {
  it('loses no acknowledged remember; replays with the same idempotency key give the same memory, once', async () => {
    const { agentKey: key, recordId } = await api.createAgent({ name: 'burst' });
    // 3 records' worth of writes would hit 30/min per record: spread the burst over several records
    const records = [recordId];
    for (let i = 0; i < 3; i++) records.push((await api.request('POST', '/api/v1/records', { key, body: { name: `r${i}` } })).data.id);
    const requests = Array.from({ length: 40 }, (_, i) => ({ record: records[i % records.length], body: { content: `Burst fact number ${i}: the sky over city ${i} was clear.`, path: `burst/${i}`, type: 'fact', idempotency_key: `burst-${i}` } }));
    const acknowledged = new Map<number, string>();
    const burst = (async () => {
      for (let i = 0; i < requests.length; i += 4) {
        const batch = requests.slice(i, i + 4).map(async (r, j) => {
          const res = await api.request('POST', `/api/v1/records/${r.record}/remember`, { key, body: r.body });
          if (res.status === 200) acknowledged.set(i + j, res.data.id);
          else expect([res.status, res.code]).toEqual([500, 'INTERNAL_ERROR']); // never hangs, never another code
        });
        await Promise.all(batch);
      }
    })();
    // kill it mid-burst: once a few writes were acknowledged (the first one also loads the model)
    await eventually(() => expect(acknowledged.size).toBeGreaterThanOrEqual(4), 60_000, 50);
    await cluster.stopProcess('memory', 0, 'SIGKILL');
    await burst;
    await cluster.startProcess('memory', 0);
    expect(acknowledged.size).toBeGreaterThan(0);

    // every acknowledged write is there; replaying every request (acked or not) with its key converges
    const replays = await Promise.all(requests.map((r) => replay(`/api/v1/records/${r.record}/remember`, key, r.body)));
    for (const [i, id] of acknowledged) expect(replays[i].data.id).toBe(id);
    const all = new Map<string, string>();
    for (const rec of records) for (const [path, id] of await memoriesOf(key, rec)) all.set(path, id);
    expect(all.size).toBe(requests.length); // one memory per request: nothing lost, nothing doubled
    for (const [i, id] of acknowledged) expect(all.get(`burst/${i}`)).toBe(id);
  }, 240_000);
});

describe('blob store failing during a forget', () => {
  it('forgets at once (invisible), and the purge job empties the blob store and the vector index once the store is back', async () => {
    const { agentKey: key, recordId } = await api.createAgent({ name: 'forgetful' });
    const base = `/api/v1/records/${recordId}`;
    const m = (await api.request('POST', `${base}/remember`, { key, body: { content: 'The vault combination is 31-7-12.', path: 'vault' } })).data;
    const keep = (await api.request('POST', `${base}/remember`, { key, body: { content: 'Lunch is at noon.', path: 'lunch' } })).data;
    expect(await cluster.blobStore().list(`records/${recordId}/memories/${m.id}/`)).toHaveLength(1);

    cluster.s3.setFailing(true);
    try {
      const res = await api.request('DELETE', `${base}/remember?path=vault`, { key });
      expect(res.data).toEqual({ deleted: true, path: 'vault' });
      // the row is gone: recall and context no longer show it, even though the blob is still stored
      const recall = (await api.request('POST', `${base}/recall`, { key, body: { query: 'vault combination', limit: 10 } })).data;
      expect(recall.memories.map((x: { id: string }) => x.id)).not.toContain(m.id);
      // the purge job is waiting for its next retry (BullMQ backoff) on the worker
      await eventually(async () => {
        const { queues } = (await (await fetch(`${cluster.handle('memory-worker').url}/jobs`)).json()) as { queues: Array<{ queue: string; delayed: number; active: number; waiting: number }> };
        const purge = queues.find((q: { queue: string }) => q.queue === 'memory-purge');
        expect(purge!.delayed + purge!.active + purge!.waiting).toBeGreaterThan(0);
      }, 10_000);
    } finally {
      cluster.s3.setFailing(false);
    }
    // the BullMQ purge job retries with backoff until every store is clean
    await eventually(async () => expect(await cluster.blobStore().list(`records/${recordId}/memories/${m.id}/`)).toEqual([]), 60_000);
    await eventually(() => {
      const text = vectorIndexText();
      expect(text).not.toContain(m.id);
      expect(text).toContain(keep.id);
    }, 30_000);
    // nothing was dead-lettered: the operators' view on the worker's ops port is empty
    const dead = await (await fetch(`${cluster.handle('memory-worker').url}/jobs/failed`)).json();
    expect(dead).toEqual({ failed: [] });
    expect((await memoriesOf(key, recordId)).has('vault')).toBe(false);
    expect((await memoriesOf(key, recordId)).get('lunch')).toBe(keep.id);
  }, 180_000);
});

describe('NATS restarted with requests in flight', () => {
  it('fails in-flight requests cleanly, recovers on its own, and loses no acknowledged write', async () => {
    const { agentKey: key, recordId } = await api.createAgent({ name: 'nats' });
    const other = (await api.request('POST', '/api/v1/records', { key, body: { name: 'second' } })).data.id as string;
    const records = [recordId, other]; // 30 writes/min per record: a burst and its replays fit in two
    const bodies = Array.from({ length: 20 }, (_, i) => ({ content: `NATS fact ${i}: the river ${i} flows north.`, path: `nats/${i}`, type: 'fact', idempotency_key: `nats-${i}` }));
    const recordOf = (i: number) => `/api/v1/records/${records[i % 2]}`;
    const acknowledged = new Map<number, string>();
    const statuses: number[] = [];
    const started = Date.now();
    const inFlight = Promise.all(
      bodies.map(async (body, i) => {
        await new Promise((r) => setTimeout(r, i * 60));
        const res = await api.request('POST', `${recordOf(i)}/remember`, { key, body });
        statuses.push(res.status);
        if (res.status === 200) acknowledged.set(i, res.data.id);
      }),
    );
    await new Promise((r) => setTimeout(r, 400));
    await cluster.nats.stop();
    await new Promise((r) => setTimeout(r, 1_000));
    await cluster.nats.start();
    await inFlight;
    expect(Date.now() - started).toBeLessThan(60_000); // nothing hung
    expect(statuses.every((s) => s === 200 || s === 500)).toBe(true);

    // the processes reconnect by themselves (probed with another agent, once a second, to spare the limits)
    const probe = await eventually(async () => {
      const agent = await api.createAgent({ name: 'probe' });
      expect(agent?.agentKey).toBeDefined();
      return agent;
    }, 60_000, 1_000);
    await eventually(async () => expect((await api.request('POST', `/api/v1/records/${probe.recordId}/recall`, { key: probe.agentKey, body: { query: 'anything' } })).status).toBe(200), 60_000, 1_000);
    const replays = await Promise.all(bodies.map((body, i) => replay(`${recordOf(i)}/remember`, key, body)));
    for (const [i, id] of acknowledged) expect(replays[i].data.id).toBe(id);
    expect((await memoriesOf(key, recordId)).size + (await memoriesOf(key, other)).size).toBe(bodies.length);
    // a durable event still flows after the restart: deleting a record purges its blobs
    const doomed = (await api.request('POST', '/api/v1/records', { key, body: { name: 'doomed' } })).data.id;
    await api.request('POST', `/api/v1/records/${doomed}/write`, { key, body: { path: 'f', content: 'x' } });
    expect((await api.request('DELETE', `/api/v1/records/${doomed}`, { key })).status).toBe(200);
    await eventually(async () => expect(await cluster.blobStore().list(`records/${doomed}/`)).toEqual([]), 30_000);
  }, 240_000);
});

describe('vector-index service restarted under running memory replicas', () => {
  it('is opened again by the memory service on first use, with every vector still there', async () => {
    const { agentKey: key, recordId } = await api.createAgent({ name: 'reopen' });
    const base = `/api/v1/records/${recordId}`;
    const m = (await api.request('POST', `${base}/remember`, { key, body: { content: 'The lighthouse keeper is called Ingrid.' } })).data;
    await cluster.stopProcess('vector-index', 0, 'SIGTERM');
    await cluster.startProcess('vector-index', 0);
    const recall = await api.request('POST', `${base}/recall`, { key, body: { query: 'Who keeps the lighthouse?' } });
    expect(recall.status).toBe(200);
    expect(recall.data.memories[0].id).toBe(m.id);
    expect((await api.request('POST', `${base}/remember`, { key, body: { content: 'Ingrid also keeps bees.' } })).status).toBe(200);
  }, 120_000);
});

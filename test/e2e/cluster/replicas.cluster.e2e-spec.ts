/**
 * Two gateway replicas and two memory replicas behind NATS queue groups: requests spread over
 * both memory replicas, the per-agent rate limit holds across both gateways (Redis), the gateways' caches
 * of keys and records stay exact across replicas (Redis cache tokens), and a Redis restart during
 * rate-limited traffic never turns into 5xx.
 */
import { ApiClient } from '@agent-memory/testing';
import { ClusterServer, eventually } from '@agent-memory/test-support';

let cluster: ClusterServer;
let gateways: ApiClient[];

beforeAll(async () => {
  cluster = await ClusterServer.start({ replicas: { gateway: 2, memory: 2 }, env: { RATE_LIMITS: 'on' } });
  gateways = cluster.gateways().map((g) => new ApiClient(g.url));
}, 240_000);
afterAll(() => cluster?.close({ removeData: true }), 120_000);

/** Sum of `agent_memory_bus_messages_total` for `subject` in a process's /metrics (`opsUrl`: its ops port). */
async function handled(opsUrl: string, subject: string): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('agent_memory_bus_messages_total{') && line.includes(`subject="${subject}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

describe('two gateways, two memory replicas', () => {
  it('spreads recalls over both memory replicas (NATS queue group) and serves through both gateways', async () => {
    expect(gateways).toHaveLength(2);
    const { agentKey: key, recordId } = await gateways[0].createAgent({ name: 'spread' });
    const base = `/api/v1/records/${recordId}`;
    const written = (await gateways[1].request('POST', `${base}/remember`, { key, body: { content: 'Ada prefers green tea in the morning.' } })).data;
    for (let i = 0; i < 40; i++) {
      const res = await gateways[i % 2].request('POST', `${base}/recall`, { key, body: { query: 'What does Ada drink?' } });
      expect(res.status).toBe(200);
      expect(res.data.memories[0].id).toBe(written.id); // both replicas see the same index and database
    }
    const perReplica = await Promise.all([0, 1].map((r) => handled(cluster.handle('memory', r).opsUrl, 'memory.v1.recall')));
    expect(perReplica[0] + perReplica[1]).toBe(40);
    expect(Math.min(...perReplica)).toBeGreaterThan(0);
  }, 120_000);

  it('holds the per-agent limit (100/min) across both gateways: 60 + 60 requests give exactly 100 answers', async () => {
    const { agentKey: key } = await gateways[0].createAgent({ name: 'limited twice' });
    const statuses = await Promise.all(
      Array.from({ length: 120 }, (_, i) => gateways[i % 2].request('GET', '/api/v1/agents', { key }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  }, 120_000);
});

describe('the gateways\' caches of keys and records (docs/architecture.md, "Caches of the gateway")', () => {
  it('skip the agents and records services once warm; a revocation or a deletion through one gateway is refused by the other on the very next call', async () => {
    const agent = await gateways[0].createAgent({ name: 'cached twice' });
    const get = (g: number, key: string, recordId = agent.recordId) => gateways[g].request('GET', `/api/v1/records/${recordId}`, { key }).then((r) => r.status);
    const asked = async () => [await handled(cluster.handle('agents', 0).opsUrl, 'agents.v1.authenticate-key'), await handled(cluster.handle('records', 0).opsUrl, 'records.v1.resolve-access')];
    // the first call through a gateway learns the key's agent, the second caches under the tokens
    for (let i = 0; i < 2; i++) for (const g of [0, 1]) expect(await get(g, agent.agentKey)).toBe(200);
    const warm = await asked();
    for (let i = 0; i < 10; i++) expect(await get(i % 2, agent.agentKey)).toBe(200);
    expect(await asked()).toEqual(warm);

    const rotated = await gateways[1].request('POST', '/api/v1/agents/keys/rotate', { key: agent.agentKey, body: { graceSeconds: 3600 } });
    expect(rotated.status).toBe(200);
    const newKey = rotated.data.agentKey as string;
    for (let i = 0; i < 2; i++) expect(await get(0, agent.agentKey)).toBe(200); // in its grace, cached again on gateway 0
    const oldKeyId = (rotated.data.previousKeys as Array<{ id: string }>)[0].id;
    expect((await gateways[1].request('POST', `/api/v1/agents/keys/${oldKeyId}/revoke`, { key: newKey, body: {} })).status).toBe(200);
    expect(await get(0, agent.agentKey)).toBe(401);
    expect(await get(0, newKey)).toBe(200);

    const child = (await gateways[0].request('POST', '/api/v1/records', { key: newKey, body: { name: 'child', parentRecordId: agent.recordId } })).data.id as string;
    for (let i = 0; i < 3; i++) expect(await get(0, newKey, child)).toBe(200);
    expect((await gateways[1].request('DELETE', `/api/v1/records/${agent.recordId}?cascade=true`, { key: newKey })).status).toBe(200);
    expect(await get(0, newKey, child)).toBe(404);
    expect(await get(0, newKey)).toBe(404);
    expect((await gateways[0].request('POST', `/api/v1/records/${child}/recall`, { key: newKey, body: { query: 'anything' } })).status).toBe(404);
  }, 120_000);
});

describe('the gateways\' metrics', () => {
  it('are not on the public API port (404 NOT_FOUND in the envelope) but on each gateway\'s ops port, with health and readiness', async () => {
    for (const gateway of cluster.gateways()) {
      expect(gateway.opsUrl).not.toBe(gateway.url);
      const onApi = await fetch(`${gateway.url}/metrics`);
      expect(onApi.status).toBe(404);
      expect(await onApi.json()).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });

      const onOps = await fetch(`${gateway.opsUrl}/metrics`);
      expect(onOps.status).toBe(200);
      expect(onOps.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await onOps.text();
      // the gateway's own figures, labelled with its service name (the 404 above is one of its HTTP requests)
      expect(text).toMatch(/^agent_memory_process_cpu_user_seconds_total\{[^}]*service="gateway"/m);
      expect(text).toMatch(/^agent_memory_http_requests_total\{[^}]*service="gateway"/m);
      for (const path of ['/healthz', '/readyz']) expect((await fetch(`${gateway.opsUrl}${path}`)).status).toBe(200);
      // the ops port serves nothing of the API
      expect((await fetch(`${gateway.opsUrl}/api/v1/agents`)).status).toBe(404);
    }
  }, 60_000);
});

describe('graceful shutdown', () => {
  it('SIGTERM on a memory replica under load: it finishes what it holds, the other takes over, no request fails', async () => {
    const { agentKey: key, recordId } = await gateways[0].createAgent({ name: 'draining' });
    const others = [recordId];
    for (let i = 0; i < 2; i++) others.push((await gateways[0].request('POST', '/api/v1/records', { key, body: { name: `d${i}` } })).data.id);
    const statuses: number[] = [];
    const failures: string[] = [];
    let stop = false;
    const load = Promise.all(
      others.map(async (rec, lane) => {
        for (let i = 0; !stop && i < 25; i++) {
          const res = await gateways[(lane + i) % 2].request('POST', `/api/v1/records/${rec}/remember`, { key, body: { content: `Draining fact ${lane}-${i}.`, path: `d/${i}` } });
          statuses.push(res.status);
          if (res.status !== 200) failures.push(`${res.status} ${res.code}: ${JSON.stringify(res.body)}`);
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 1_000));
    await cluster.stopProcess('memory', 1, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 1_000));
    stop = true;
    await load;
    const { exitCode, signalCode } = cluster.handle('memory', 1).child;
    expect(exitCode === 0 || signalCode === 'SIGTERM').toBe(true); // it stopped on its own, not killed after the 30 s grace
    expect(statuses.length).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    await cluster.startProcess('memory', 1);
  }, 120_000);
});

describe('Redis restarted during rate-limited traffic', () => {
  it('answers every request (200 or 429, never 5xx) while Redis is down, and limits through Redis again after', async () => {
    const { agentKey: key } = await gateways[0].createAgent({ name: 'limited' });
    const get = (i: number) => gateways[i % 2].request('GET', '/api/v1/agents', { key }).then((r) => r.status);
    for (let i = 0; i < 60; i++) expect(await get(i)).toBe(200);

    await cluster.redis.stop();
    const during: number[] = [];
    for (let i = 0; i < 30; i++) during.push(await get(i));
    expect(during.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    await cluster.redis.start();

    // Redis restarted empty (no persistence): a new window, limited across both gateways again
    await eventually(async () => expect(await get(0)).toBe(200), 20_000, 1_000);
    await new Promise((r) => setTimeout(r, 2_000));
    const after = await Promise.all(Array.from({ length: 120 }, (_, i) => get(i)));
    expect(after.filter((s) => s >= 500)).toEqual([]);
    expect(after.filter((s) => s === 429).length).toBeGreaterThanOrEqual(18);
    expect(after.filter((s) => s === 200).length).toBeLessThanOrEqual(102);
  }, 180_000);
});

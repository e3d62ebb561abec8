import { createServer } from 'node:net';
import { DATABASE, type Database } from '@agent-memory/platform';
import { ApiClient } from '@agent-memory/testing';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';

/**
 * The ops endpoints of standalone mode (docs/configuration.md, `OPS_PORT`): `/healthz` and `/readyz` on
 * the API port and on the ops port, answered raw, in terminus' and Prometheus' shapes, past the
 * gateway's envelope interceptor and exception filter; `/metrics` only on the ops port, with HTTP and
 * bus metrics filled by real traffic; readiness checks the database.
 */
let server: TestServer;
let api: ApiClient;
let opsUrl: string;

/** A TCP port that was free a moment ago (the ops listener takes a fixed port, as users configure it). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  const opsPort = await freePort();
  server = await startStandaloneServer({ env: { OPS_PORT: String(opsPort) } });
  api = new ApiClient(server.url);
  opsUrl = `http://127.0.0.1:${opsPort}`;
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

/** Reads one sample value from Prometheus text, or 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('ops endpoints of standalone mode', () => {
  it('answers liveness and readiness in terminus shape, not in the API envelope', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-request-id')).toBeTruthy();
    const live = (await health.json()) as any;
    expect(live).toMatchObject({ status: 'ok', info: { eventLoop: { status: 'up' } } });
    expect(live.success).toBeUndefined();
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', info: { bus: { status: 'up' }, database: { status: 'up' } }, error: {} });
  });

  it('answers liveness and readiness on the ops port too', async () => {
    expect(await (await fetch(`${opsUrl}/healthz`)).json()).toMatchObject({ status: 'ok', info: { eventLoop: { status: 'up' } } });
    expect(await (await fetch(`${opsUrl}/readyz`)).json()).toMatchObject({ status: 'ok', info: { bus: { status: 'up' }, database: { status: 'up' } } });
    const unknown = await fetch(`${opsUrl}/api/v1/agents`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('does not serve /metrics on the public API port', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Route not found' } });
  });

  it('serves Prometheus text with HTTP metrics by route template (guard rejections included) and bus handler metrics', async () => {
    const { agentKey, recordId } = await api.createAgent({ name: 'ops' });
    await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey });
    await api.request('GET', `/api/v1/records/${recordId}/context`, { key: 'amk_live_wrong' });
    const res = await fetch(`${opsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).not.toContain('"success"');
    expect(text).toMatch(/^agent_memory_process_resident_memory_bytes\{service="standalone"\} \d+/m);
    expect(sample(text, 'agent_memory_http_requests_total', { method: 'POST', route: '/api/v1/agents', status: '201', service: 'standalone' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'agent_memory_http_requests_total', { method: 'GET', route: '/api/v1/records/:recordId/context', status: '200' })).toBe(1);
    expect(sample(text, 'agent_memory_http_requests_total', { method: 'GET', route: '/api/v1/records/:recordId/context', status: '401' })).toBe(1);
    expect(text).not.toContain(recordId);
    expect(sample(text, 'agent_memory_bus_messages_total', { subject: 'agents.v1.create', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'agent_memory_bus_handler_duration_seconds_count', { subject: 'agents.v1.create' })).toBeGreaterThanOrEqual(1);
  });
});

describe('standalone readiness', () => {
  it('checks the database: with the database closed, /readyz answers 503 naming it while /healthz stays up', async () => {
    const broken = await startStandaloneServer();
    try {
      await broken.app.get<Database>(DATABASE).close();
      const ready = await fetch(`${broken.url}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as any;
      expect(body).toMatchObject({ status: 'error', error: { database: { status: 'down' } }, info: { bus: { status: 'up' } } });
      expect(JSON.stringify(body)).not.toMatch(/PGlite|closed/i); // the reason goes to the log, not to the public answer
      expect((await fetch(`${broken.url}/healthz`)).status).toBe(200);
    } finally {
      await broken.close({ removeData: true });
    }
  }, 120_000);

  it('serves /metrics nowhere unless OPS_PORT is set', async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(404);
  });
});

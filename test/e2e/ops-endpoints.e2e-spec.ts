import { ApiClient, startStandaloneServer, type TestServer } from '@agent-memory/testing';

/**
 * The ops endpoints on the gateway's HTTP app (issue 3): answered raw, in terminus' and Prometheus'
 * shapes, past the gateway's envelope interceptor and exception filter; HTTP and bus metrics filled by
 * real traffic.
 */
let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startStandaloneServer();
  api = new ApiClient(server.url);
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

describe('ops endpoints on the gateway', () => {
  it('answers liveness and readiness in terminus shape, not in the API envelope', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-request-id')).toBeTruthy();
    const live = (await health.json()) as any;
    expect(live).toMatchObject({ status: 'ok', info: { eventLoop: { status: 'up' } } });
    expect(live.success).toBeUndefined();
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', info: { bus: { status: 'up' } }, error: {} });
  });

  it('serves Prometheus text with HTTP metrics by route template (guard rejections included) and bus handler metrics', async () => {
    const { agentKey, recordId } = await api.createAgent({ name: 'ops' });
    await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey });
    await api.request('GET', `/api/v1/records/${recordId}/context`, { key: 'amk_live_wrong' });
    const res = await fetch(`${server.url}/metrics`);
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

import { AgentMemory, RateLimitedError } from '../src';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';

// The SDK under a real rate limit (docs/api.md, "Rate limits"): create agent is limited per client
// address (RATE_LIMIT_ANONYMOUS_PER_MINUTE, here 2 per sliding minute). A 429 whose Retry-After is longer
// than the client accepts is a typed RateLimitedError; a shorter one is waited out and the call repeated.
// The window is a minute, so this suite waits about one minute.

let server: TestServer;
beforeAll(async () => {
  server = await startStandaloneServer({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2' } });
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

it('reports a long Retry-After as RateLimitedError, and waits out a short one', async () => {
  const started = Date.now();
  await AgentMemory.createAgent({ baseUrl: server.url, name: 'first' });
  await AgentMemory.createAgent({ baseUrl: server.url, name: 'second' });

  const impatient = await AgentMemory.createAgent({ baseUrl: server.url, name: 'third', retries: { maxRetryAfterMs: 0 } }).catch((e: unknown) => e);
  expect(impatient).toBeInstanceOf(RateLimitedError);
  const error = impatient as RateLimitedError;
  expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, requestId: expect.any(String) });
  expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(55);
  expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);

  // a few seconds before the first call leaves the window, the next call is refused with a short Retry-After
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 56_000 - Date.now())));
  const waitedFrom = Date.now();
  const created = await AgentMemory.createAgent({ baseUrl: server.url, name: 'patient' });
  expect(created.agentKey).toMatch(/^amk_live_/);
  expect(Date.now() - waitedFrom).toBeGreaterThanOrEqual(1_000); // it waited for Retry-After instead of failing
}, 120_000);

import { z } from 'zod';
import type { OpenApiDocument } from '@agent-memory/gateway';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';

/*
 * The answers of a real standalone server conform to the OpenAPI contract (docs/api.md, "The OpenAPI
 * contract"): every status met is documented for its operation, and the body parses with the schema the
 * document gives for that status (read back from the document's JSON Schema with z.fromJSONSchema), so a
 * `@Returns` that names the wrong schema fails here.
 */

let server: TestServer;
let doc: OpenApiDocument;
const checked = new Set<string>();

beforeAll(async () => {
  server = await startStandaloneServer();
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
});
afterAll(async () => server?.close({ removeData: true }));

/** `schema` with every `#/components/schemas/…` reference replaced by its target (the contract has no cycles). */
function inline(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inline);
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref !== undefined) return inline((doc.components as { schemas: Record<string, unknown> }).schemas[ref.replace('#/components/schemas/', '')]);
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inline(value)]));
}

/** Calls `method template` (path parameters filled from `params`) and checks the answer against the document. */
async function call(method: string, template: string, options: { params?: Record<string, string>; query?: string; key?: string; body?: unknown } = {}) {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => options.params?.[name] ?? '');
  const res = await fetch(`${server.url}${path}${options.query ? `?${options.query}` : ''}`, {
    method,
    headers: { ...(options.key ? { authorization: `Bearer ${options.key}` } : {}), ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const body = (await res.json()) as { success: boolean; data?: any };
  const operation = doc.paths[template]?.[method.toLowerCase()];
  expect([method, template, operation !== undefined]).toEqual([method, template, true]);
  const response = operation.responses[String(res.status)] as { content: { 'application/json': { schema: unknown } } } | undefined;
  expect([method, template, res.status, response !== undefined]).toEqual([method, template, res.status, true]);
  const parsed = z.fromJSONSchema(inline(response!.content['application/json'].schema) as never).safeParse(body);
  expect([method, template, res.status, parsed.success ? 'conforms' : parsed.error.message, body]).toEqual([method, template, res.status, 'conforms', body]);
  checked.add(`${method} ${template} ${res.status}`);
  return { status: res.status, data: body.data };
}

describe('the answers of the server', () => {
  it('conform to the OpenAPI document, successes and failures', async () => {
    const agent = await call('POST', '/api/v1/agents', { body: { name: 'conformance' } });
    expect(agent.status).toBe(201);
    const key = agent.data.agentKey as string;
    const recordId = agent.data.recordId as string;
    const params = { recordId };
    await call('GET', '/api/v1/agents', { key });
    await call('GET', '/api/v1/agents/keys', { key });
    await call('POST', '/api/v1/agents/wallet-challenge', { body: { walletAddress: agent.data.walletAddress } });
    const second = await call('POST', '/api/v1/records', { key, body: { name: 'second', tags: ['a'] } });
    await call('GET', '/api/v1/records', { key, query: 'limit=5' });
    await call('GET', '/api/v1/records/{recordId}', { key, params });
    await call('PATCH', '/api/v1/records/{recordId}', { key, params: { recordId: second.data.id }, body: { name: 'renamed' } });
    await call('DELETE', '/api/v1/records/{recordId}', { key, params: { recordId: second.data.id } });
    await call('POST', '/api/v1/records/{recordId}/remember', { key, params, body: { content: 'The user prefers tea.', type: 'fact', path: 'prefs/drink.md' } });
    await call('POST', '/api/v1/records/{recordId}/recall', { key, params, body: { query: 'what does the user drink?' } });
    await call('GET', '/api/v1/records/{recordId}/context', { key, params, query: 'limit=5' });
    await call('GET', '/api/v1/records/{recordId}/memories', { key, params });
    await call('POST', '/api/v1/records/{recordId}/write', { key, params, body: { path: 'files/a.txt', content: 'hello' } });
    await call('GET', '/api/v1/records/{recordId}/read', { key, params, query: 'path=files/a.txt' });
    await call('GET', '/api/v1/records/{recordId}/files', { key, params });
    await call('DELETE', '/api/v1/records/{recordId}/remember', { key, params, query: 'path=prefs/drink.md' });
    await call('GET', '/api/v1/billing/prices');
    await call('GET', '/api/v1/billing/balance', { key });
    await call('GET', '/api/v1/billing/usage', { key, query: 'limit=10' });
    await call('POST', '/api/v1/agents/keys/rotate', { key, body: { graceSeconds: 60 } });
    await call('POST', '/api/v1/auth/passkey/login/options');
    // Failures: the envelope with a documented status.
    expect((await call('GET', '/api/v1/agents')).status).toBe(401);
    expect((await call('GET', '/api/v1/records/{recordId}', { key, params: { recordId: 'rec_unknown0000000000000000' } })).status).toBe(404);
    expect((await call('POST', '/api/v1/records', { key, body: { name: '' } })).status).toBe(400);
    expect((await call('POST', '/api/v1/records/{recordId}/raw', { key, params, body: { path: 'x', content: '' } })).status).toBe(401);
    expect((await call('GET', '/api/v1/humans/me', { key })).status).toBe(401);
    expect((await call('POST', '/api/v1/billing/sandbox/top-up', { key, body: { amount: '1' } })).status).toBe(403);
    const sandbox = await call('POST', '/api/v1/agents', { body: { name: 'sandbox', environment: 'test' } });
    await call('POST', '/api/v1/billing/sandbox/top-up', { key: sandbox.data.agentKey, body: { amount: '1.50' } });
    expect(checked.size).toBeGreaterThanOrEqual(29);
  });
});

import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, startE2eServer } from '@agent-memory/test-support';

/**
 * The gateway keeps the principal of a key and a record's access check between calls
 * (docs/architecture.md, "Caches of the gateway"): a revocation, a rotation's end of grace and
 * a record deletion must still take effect at once. Every case first makes calls that fill the cache.
 * The same cases hold in cluster mode (Redis cache tokens; across two gateways in
 * test/e2e/cluster/replicas.cluster.e2e-spec.ts).
 */
let server: E2eServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startE2eServer({ env: { RATE_LIMITS: 'off' } });
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

async function warm(key: string, recordId: string): Promise<void> {
  for (let i = 0; i < 3; i++) expect((await api.request('GET', `/api/v1/records/${recordId}`, { key })).status).toBe(200);
}

it('a revoked key is refused on the very next call after the revoke answers', async () => {
  const agent = await api.createAgent({ name: 'revoked' });
  await warm(agent.agentKey, agent.recordId);
  const rotated = await api.request('POST', '/api/v1/agents/keys/rotate', { key: agent.agentKey, body: { graceSeconds: 3600 } });
  expect(rotated.status).toBe(200);
  const newKey = rotated.data.agentKey as string;
  // the old key still works in its grace (and is cached again with its new end)
  await warm(agent.agentKey, agent.recordId);
  const oldKeyId = (rotated.data.previousKeys as Array<{ id: string }>)[0].id;
  expect((await api.request('POST', `/api/v1/agents/keys/${oldKeyId}/revoke`, { key: newKey, body: {} })).status).toBe(200);
  const refused = await api.request('GET', `/api/v1/records/${agent.recordId}`, { key: agent.agentKey });
  expect(refused.status).toBe(401);
  expect((await api.request('GET', `/api/v1/records/${agent.recordId}`, { key: newKey })).status).toBe(200);
});

it('a key in a rotation grace is refused as soon as the grace ends, although it was cached', async () => {
  const agent = await api.createAgent({ name: 'grace' });
  const rotated = await api.request('POST', '/api/v1/agents/keys/rotate', { key: agent.agentKey, body: { graceSeconds: 2 } });
  expect(rotated.status).toBe(200);
  const ends = Date.parse((rotated.data.previousKeys as Array<{ expiresAt: string }>)[0].expiresAt);
  await warm(agent.agentKey, agent.recordId);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, ends - Date.now()) + 50));
  expect((await api.request('GET', `/api/v1/records/${agent.recordId}`, { key: agent.agentKey })).status).toBe(401);
});

it('a deleted record, and with cascade its children, answer 404 on the very next call, recall included', async () => {
  const agent = await api.createAgent({ name: 'deleter' });
  const parent = (await api.request('POST', '/api/v1/records', { key: agent.agentKey, body: { name: 'parent' } })).data.id as string;
  const child = (await api.request('POST', '/api/v1/records', { key: agent.agentKey, body: { name: 'child', parentRecordId: parent } })).data.id as string;
  expect((await api.request('POST', `/api/v1/records/${child}/remember`, { key: agent.agentKey, body: { content: 'The child record holds a secret about blue herons.' } })).status).toBe(200);
  await warm(agent.agentKey, parent);
  await warm(agent.agentKey, child);
  const recall = () => api.request('POST', `/api/v1/records/${child}/recall`, { key: agent.agentKey, body: { query: 'blue herons' } });
  expect((await recall()).status).toBe(200);
  expect((await api.request('DELETE', `/api/v1/records/${parent}?cascade=true`, { key: agent.agentKey })).status).toBe(200);
  expect((await api.request('GET', `/api/v1/records/${parent}`, { key: agent.agentKey })).status).toBe(404);
  expect((await recall()).status).toBe(404);
});

it('another agent never reaches a record through the cache of its owner', async () => {
  const owner = await api.createAgent({ name: 'owner' });
  const other = await api.createAgent({ name: 'other' });
  await warm(owner.agentKey, owner.recordId);
  expect((await api.request('GET', `/api/v1/records/${owner.recordId}`, { key: other.agentKey })).status).toBe(404);
  expect((await api.request('POST', `/api/v1/records/${owner.recordId}/recall`, { key: other.agentKey, body: { query: 'anything' } })).status).toBe(404);
});

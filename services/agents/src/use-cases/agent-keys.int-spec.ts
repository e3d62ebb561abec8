import { newId, randomBase62 } from '@agent-memory/shared';
import { openEmbeddedTestPrisma } from '@agent-memory/testing';
import { seedAgent as seedAgentIn } from '../persistence/agents.fixture';
import { PrismaAgentsRepository } from '../persistence/prisma-agents.repository';
import { openAgentsPrisma, type AgentsPrismaClient } from '../persistence/prisma';
import { AgentKeysUseCases } from './agent-keys.use-cases';

/** Agent keys on a freshly migrated embedded PostgreSQL, with a clock the test moves. */
let close: () => Promise<void>;
let prisma: AgentsPrismaClient;
let now = new Date('2026-06-01T12:00:00Z');
const clock = () => now;
let keys: AgentKeysUseCases;

beforeAll(async () => {
  ({ prisma, close } = await openEmbeddedTestPrisma(openAgentsPrisma));
  keys = new AgentKeysUseCases(new PrismaAgentsRepository(prisma), 'amk', 3600, clock);
}, 60_000);
afterAll(() => close?.());

const seedAgent = (environment: 'live' | 'test' = 'live') =>
  seedAgentIn(new PrismaAgentsRepository(prisma), { name: 'a', walletAddress: `0x${'1'.repeat(40)}`, environment, keyCreatedAt: now });

describe('agent keys', () => {
  it('authenticates a key by its hash and never stores the key itself', async () => {
    const { agentId, key } = await seedAgent();
    expect(await keys.authenticate({ agentKey: key })).toEqual({ agentId, keyEnvironment: 'live', mode: 'cloud', keyExpiresAt: null });
    const rows = await prisma.agentKey.findMany({ where: { agentId } });
    expect(JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(key.slice(9));
    await expect(keys.authenticate({ agentKey: key.replace('_live_', '_test_') })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(keys.authenticate({ agentKey: `amk_live_${randomBase62(43)}` })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(keys.authenticate({ agentKey: 'amk_live_short' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('rotates: the new key works, the old one until the grace period ends, then 401', async () => {
    const { agentId, key: old } = await seedAgent();
    now = new Date(now.getTime() + 1000);
    const rotated = await keys.rotate({ agentId, requestedBy: 'agent' });
    expect(rotated.agentKey).toMatch(/^amk_live_[0-9A-Za-z]{43}$/);
    expect(rotated.previousKeys).toHaveLength(1);
    expect(rotated.previousKeys[0]).toMatchObject({ status: 'expiring', expiresAt: new Date(now.getTime() + 3600_000).toISOString() });
    expect((await keys.authenticate({ agentKey: old })).agentId).toBe(agentId);
    now = new Date(now.getTime() + 3600_000 - 1);
    expect((await keys.authenticate({ agentKey: old })).agentId).toBe(agentId);
    now = new Date(now.getTime() + 1);
    await expect(keys.authenticate({ agentKey: old })).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/expired/) });
    expect((await keys.authenticate({ agentKey: rotated.agentKey })).agentId).toBe(agentId);
    const listed = (await keys.list({ agentId })).keys;
    expect(listed.map((k) => k.status)).toEqual(['active', 'expired']);
    expect(JSON.stringify(listed)).not.toContain(rotated.agentKey);
  });

  it('rotating twice keeps the earlier end of an expiring key; grace 0 ends old keys at once', async () => {
    const { agentId, key: first } = await seedAgent();
    const second = await keys.rotate({ agentId, graceSeconds: 600, requestedBy: 'agent' });
    const third = await keys.rotate({ agentId, graceSeconds: 3600, requestedBy: 'agent' });
    const byId = new Map((await keys.list({ agentId })).keys.map((k) => [k.id, k]));
    expect(byId.get(third.previousKeys.find((k) => k.id !== second.key.id)!.id)!.expiresAt).toBe(new Date(now.getTime() + 600_000).toISOString());
    expect(byId.get(second.key.id)!.expiresAt).toBe(new Date(now.getTime() + 3600_000).toISOString());
    const fourth = await keys.rotate({ agentId, graceSeconds: 0, requestedBy: 'agent' });
    for (const k of [first, second.agentKey, third.agentKey]) await expect(keys.authenticate({ agentKey: k })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await keys.authenticate({ agentKey: fourth.agentKey })).agentId).toBe(agentId);
  });

  it('revokes at once and for good, idempotently; another agent’s key is NOT_FOUND', async () => {
    const { agentId, key } = await seedAgent('test');
    const keyId = (await keys.list({ agentId })).keys[0].id;
    const other = await seedAgent();
    await expect(keys.revoke({ agentId: other.agentId, keyId, requestedBy: 'agent' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const revoked = await keys.revoke({ agentId, keyId, requestedBy: 'agent' });
    expect(revoked.key).toMatchObject({ id: keyId, status: 'revoked', environment: 'test' });
    expect((await keys.revoke({ agentId, keyId, requestedBy: 'agent' })).key.revokedAt).toBe(revoked.key.revokedAt);
    await expect(keys.authenticate({ agentKey: key })).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) });
    // a rotation after a revocation issues a working key of the agent's environment
    const fresh = await keys.rotate({ agentId, requestedBy: 'agent' });
    expect(fresh.agentKey).toMatch(/^amk_test_/);
    expect(fresh.previousKeys).toEqual([]);
  });

  it('rotating an unknown agent is NOT_FOUND', async () => {
    await expect(keys.rotate({ agentId: newId('agent'), requestedBy: 'agent' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

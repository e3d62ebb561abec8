import { newId } from '@agent-memory/shared';
import { openTestPrisma } from '@agent-memory/testing';
import { seedAgent as seedAgentIn } from '../persistence/agents.fixture';
import { DEFAULT_PASSKEY_OPTIONS } from '../humans/passkey.options';
import { ClaimsUseCases } from '../humans/use-cases/claims.use-cases';
import { SessionsUseCases } from '../humans/use-cases/sessions.use-cases';
import { PrismaAgentsRepository } from '../persistence/prisma-agents.repository';
import { PrismaHumansRepository } from '../persistence/prisma-humans.repository';
import { openAgentsPrisma, type AgentsPrismaClient } from '../persistence/prisma';
import { AgentKeysUseCases } from './agent-keys.use-cases';

/**
 * Agent keys and claims under concurrency, on the machine's PostgreSQL (a fresh database per run, a pool
 * of several connections, so transactions really overlap; the embedded PGlite has one connection).
 * Rotations, revocations and claims lock the agent's row (`SELECT ... FOR UPDATE`).
 */
let prisma: AgentsPrismaClient;
let close: () => Promise<void>;
let keys: AgentKeysUseCases;
let claims: ClaimsUseCases;
let sessions: SessionsUseCases;
const clock = () => new Date();

beforeAll(async () => {
  ({ prisma, close } = await openTestPrisma(openAgentsPrisma, 8));
  const agents = new PrismaAgentsRepository(prisma);
  keys = new AgentKeysUseCases(agents, 'amk', 3600, clock);
  sessions = new SessionsUseCases(new PrismaHumansRepository(prisma), 'amk', DEFAULT_PASSKEY_OPTIONS, clock);
  claims = new ClaimsUseCases(agents, clock, keys, sessions);
}, 60_000);
afterAll(() => close?.());

const seedAgent = () => seedAgentIn(new PrismaAgentsRepository(prisma), { name: 'concurrent', walletAddress: `0x${'3'.repeat(40)}` });

/** A human and a passkey session of it, as the gateway passes them on. */
async function seedHuman(): Promise<{ humanId: string; sessionId: string }> {
  const id = newId('human');
  await prisma.human.create({ data: { id, name: 'h', webauthnUserId: newId('human') } });
  const { token } = await sessions.issue(id, 'passkey');
  const { humanId, sessionId } = await sessions.authenticate({ token });
  return { humanId, sessionId };
}

describe('concurrent key changes', () => {
  it('parallel rotations leave exactly one key without expiry, every other one in grace', async () => {
    for (let round = 0; round < 3; round++) {
      const { agentId } = await seedAgent();
      const rotations = await Promise.all(Array.from({ length: 6 }, () => keys.rotate({ agentId, graceSeconds: 600, requestedBy: 'agent' })));
      const listed = (await keys.list({ agentId })).keys;
      expect(listed).toHaveLength(7);
      const active = listed.filter((k) => k.status === 'active');
      expect(active).toHaveLength(1);
      expect(rotations.map((r) => r.key.id)).toContain(active[0].id);
      expect(listed.filter((k) => k.status === 'expiring')).toHaveLength(6);
    }
  });

  it('parallel grace-0 rotations leave exactly one valid key', async () => {
    const { agentId } = await seedAgent();
    const rotations = await Promise.all(Array.from({ length: 4 }, () => keys.rotate({ agentId, graceSeconds: 0, requestedBy: 'agent' })));
    const valid = [];
    for (const r of rotations) valid.push(await keys.authenticate({ agentKey: r.agentKey }).then(() => r.key.id, () => null));
    expect(valid.filter((v) => v !== null)).toHaveLength(1);
  });

  it('a claim racing the agent’s grace-0 rotation never survives it', async () => {
    for (let round = 0; round < 5; round++) {
      const { agentId, key } = await seedAgent();
      const human = await seedHuman();
      const [claim] = await Promise.allSettled([claims.claim({ ...human, agentKey: key }), keys.rotate({ agentId, graceSeconds: 0, requestedBy: 'agent' })]);
      if (claim.status === 'rejected') expect(claim.reason).toMatchObject({ code: 'FORBIDDEN' });
      expect(await prisma.agentClaim.findUnique({ where: { agentId } })).toBeNull();
    }
  });
});

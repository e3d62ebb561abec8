import { randomBytes } from 'node:crypto';
import { newId } from '@agent-memory/shared';
import { openTestPrisma } from '@agent-memory/testing';
import { PrismaHumansRepository } from '../../persistence/prisma-humans.repository';
import { openAgentsPrisma, type AgentsPrismaClient } from '../../persistence/prisma';
import type { PasskeyOptions } from '../passkey.options';
import { PasskeysUseCases } from './passkeys.use-cases';
import { SessionsUseCases } from './sessions.use-cases';

/**
 * Passkey deletion under concurrency (docs/authentication.md, "Passkeys (humans)") on the machine's
 * PostgreSQL with a pool of connections, so that the deletions really run at the same time: however they
 * interleave, an account keeps exactly one passkey (the human's row lock serialises them).
 */
const OPTIONS: PasskeyOptions = { rpId: 'memory.example.com', rpName: 'agent-memory', origins: ['https://memory.example.com'], sessionTtlSeconds: 3600, challengeTtlSeconds: 300 };
let close: () => Promise<void>;
let prisma: AgentsPrismaClient;
let humans: PrismaHumansRepository;
let passkeys: PasskeysUseCases;
let sessions: SessionsUseCases;

beforeAll(async () => {
  ({ prisma, close } = await openTestPrisma(openAgentsPrisma, 12));
  humans = new PrismaHumansRepository(prisma);
  const clock = () => new Date();
  sessions = new SessionsUseCases(humans, 'amk', OPTIONS, clock);
  passkeys = new PasskeysUseCases(humans, OPTIONS, clock, sessions);
}, 60_000);
afterAll(() => close?.());

/** A human with `count` passkeys stored directly (their keys are never used here). */
async function humanWithPasskeys(count: number): Promise<{ humanId: string; passkeyIds: string[] }> {
  const humanId = newId('human');
  const passkeyIds = Array.from({ length: count }, () => randomBytes(16).toString('base64url'));
  const passkey = (id: string) => ({ id, humanId, publicKey: randomBytes(77), counter: 0n, transports: ['internal'], deviceType: 'singleDevice', backedUp: false, createdAt: new Date() });
  await humans.addPasskey(passkey(passkeyIds[0]), { id: humanId, name: 'Racer', webauthnUserId: randomBytes(32).toString('base64url'), createdAt: new Date() });
  for (const id of passkeyIds.slice(1)) await humans.addPasskey(passkey(id));
  return { humanId, passkeyIds };
}

it('concurrent deletions of every passkey of an account leave exactly one (the others: FORBIDDEN)', async () => {
  for (let round = 0; round < 8; round++) {
    const { humanId, passkeyIds } = await humanWithPasskeys(4);
    const { token } = await sessions.issue(humanId, 'passkey');
    const { sessionId } = await sessions.authenticate({ token });
    const outcomes = await Promise.allSettled(passkeyIds.map((passkeyId) => passkeys.deletePasskey({ humanId, sessionId, passkeyId })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    expect(outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code: string }).code] : []))).toEqual(['FORBIDDEN']);
    expect(await prisma.passkeyCredential.count({ where: { humanId } })).toBe(1);
  }
});

import { Inject, Injectable } from '@nestjs/common';
import { type HumanRecord, HumansRepository, type PasskeyRecord, type SessionMethod, type SessionRecord, type WebauthnChallengeRecord } from './humans.repository';
import { AGENTS_PRISMA, type AgentsPrismaClient, isUniqueViolation } from './prisma';

/** The human accounts store on PostgreSQL through Prisma (with `prisma-agents.repository.ts`, the only Prisma callers of the agents service). */
@Injectable()
export class PrismaHumansRepository extends HumansRepository {
  constructor(@Inject(AGENTS_PRISMA) private readonly db: AgentsPrismaClient) {
    super();
  }

  findHuman(humanId: string): Promise<HumanRecord | null> {
    return this.db.human.findUnique({ where: { id: humanId }, include: { passkeys: { orderBy: { createdAt: 'asc' } } } });
  }

  async addPasskey(
    passkey: Omit<PasskeyRecord, 'lastUsedAt'>,
    newHuman?: Omit<HumanRecord, 'passkeys'>,
    opts: { onlyFirst?: boolean; onlyWallet?: string } = {},
  ): Promise<'added' | 'already-registered' | 'not-first' | 'other-wallets'> {
    try {
      return await this.db.$transaction(async (tx) => {
        if (newHuman) await tx.human.create({ data: newHuman });
        if (opts.onlyFirst || opts.onlyWallet !== undefined) {
          // The human's row lock (as deletePasskey) serialises two first passkeys of one account.
          await tx.$queryRaw`SELECT "id" FROM "agents"."humans" WHERE "id" = ${passkey.humanId} FOR UPDATE`;
          if (opts.onlyFirst && (await tx.passkeyCredential.count({ where: { humanId: passkey.humanId } })) > 0) return 'not-first' as const;
          const otherWallet = { humanId: passkey.humanId, agent: { walletAddress: { not: opts.onlyWallet } } };
          if (opts.onlyWallet !== undefined && (await tx.agentClaim.count({ where: otherWallet })) > 0) return 'other-wallets' as const;
        }
        await tx.passkeyCredential.create({ data: { ...passkey, publicKey: new Uint8Array(passkey.publicKey) } });
        return 'added' as const;
      });
    } catch (err) {
      if (isUniqueViolation(err)) return 'already-registered';
      throw err;
    }
  }

  async claimedWallets(humanId: string): Promise<string[]> {
    const rows = await this.db.agentClaim.findMany({ where: { humanId }, select: { agent: { select: { walletAddress: true } } } });
    return [...new Set(rows.map((r) => r.agent.walletAddress))].sort();
  }

  async findPasskey(credentialId: string): Promise<(PasskeyRecord & { webauthnUserId: string }) | null> {
    const row = await this.db.passkeyCredential.findUnique({ where: { id: credentialId }, include: { human: { select: { webauthnUserId: true } } } });
    if (!row) return null;
    const { human, ...passkey } = row;
    return { ...passkey, webauthnUserId: human.webauthnUserId };
  }

  async deletePasskey(humanId: string, credentialId: string, keepSessionId: string, now: Date): Promise<'deleted' | 'not-found' | 'last'> {
    return this.db.$transaction(async (tx) => {
      // The human's row lock serialises deletions of its passkeys, so the count below stays true until commit.
      const locked = await tx.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "agents"."humans" WHERE "id" = ${humanId} FOR UPDATE`;
      if (locked.length === 0) return 'not-found';
      const passkeys = await tx.passkeyCredential.findMany({ where: { humanId }, select: { id: true } });
      if (!passkeys.some((p) => p.id === credentialId)) return 'not-found';
      if (passkeys.length <= 1) return 'last';
      await tx.passkeyCredential.delete({ where: { id: credentialId } });
      await tx.humanSession.updateMany({ where: { humanId, id: { not: keepSessionId }, endedAt: null }, data: { endedAt: now } });
      return 'deleted';
    });
  }

  async recordPasskeyUse(credentialId: string, counter: bigint, usedAt: Date): Promise<void> {
    await this.db.passkeyCredential.update({ where: { id: credentialId }, data: { counter, lastUsedAt: usedAt } });
  }

  async addChallenge(challenge: WebauthnChallengeRecord, now: Date): Promise<void> {
    await this.db.webauthnChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
    await this.db.webauthnChallenge.create({ data: challenge });
  }

  takeChallenge(challenge: string): Promise<WebauthnChallengeRecord | null> {
    return this.db.webauthnChallenge.delete({ where: { challenge } }).catch(() => null);
  }

  async addSession(session: Omit<SessionRecord, 'endedAt'>, now: Date): Promise<void> {
    await this.db.humanSession.deleteMany({ where: { humanId: session.humanId, expiresAt: { lt: now } } });
    await this.db.humanSession.create({ data: session });
  }

  async findSession(sessionId: string): Promise<SessionRecord | null> {
    const row = await this.db.humanSession.findUnique({ where: { id: sessionId } });
    return row ? toSession(row) : null;
  }

  async findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    const row = await this.db.humanSession.findUnique({ where: { tokenHash } });
    return row ? toSession(row) : null;
  }

  async endSession(sessionId: string, endedAt: Date): Promise<void> {
    await this.db.humanSession.update({ where: { id: sessionId }, data: { endedAt } });
  }
}

/** A session row in its record form (`method` narrowed to the two known values). */
function toSession(row: Omit<SessionRecord, 'method'> & { method: string }): SessionRecord {
  return { ...row, method: row.method as SessionMethod };
}

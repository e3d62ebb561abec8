import { Inject, Injectable } from '@nestjs/common';
import { runInTransaction } from '@agent-memory/platform';
import type { Agent } from '@agent-memory/shared';
import type { Agent as AgentRow, AgentClaim as ClaimRow, Prisma } from './generated/client';
import { type AgentKeyRecord, AgentsRepository, type ClaimRecord, type NewAgent, type NewAgentKey, type NewHuman, type SiweNonceRecord, type WalletChallengeRecord } from './agents.repository';
import { AGENTS_PRISMA, type AgentsPrismaClient, isUniqueViolation } from './prisma';

/** The agents store on PostgreSQL through Prisma (with `prisma-humans.repository.ts`, the only code of the agents service that touches Prisma). */
@Injectable()
export class PrismaAgentsRepository extends AgentsRepository {
  constructor(@Inject(AGENTS_PRISMA) private readonly db: AgentsPrismaClient | Prisma.TransactionClient) {
    super();
  }

  transaction<T>(work: (tx: AgentsRepository) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, this, (tx) => new PrismaAgentsRepository(tx), work);
  }

  async lockAgent(agentId: string): Promise<boolean> {
    const rows = await this.db.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "agents"."agents" WHERE "id" = ${agentId} FOR UPDATE`;
    return rows.length > 0;
  }

  async createAgent(agent: NewAgent, firstKey: NewAgentKey): Promise<'created' | 'wallet-taken'> {
    const { agentId: _owner, ...key } = firstKey;
    try {
      await this.db.agent.create({ data: { ...agent, keys: { create: key } } });
      return 'created';
    } catch (err) {
      // Two concurrent creates with one local wallet: the partial unique index decides.
      if (isUniqueViolation(err)) return 'wallet-taken';
      throw err;
    }
  }

  async findAgent(agentId: string): Promise<Agent | null> {
    const row = await this.db.agent.findUnique({ where: { id: agentId } });
    return row ? toAgent(row) : null;
  }

  async findAgentByWallet(walletAddress: string): Promise<Agent | null> {
    const row =
      (await this.db.agent.findFirst({ where: { walletAddress, mode: 'local' } })) ??
      (await this.db.agent.findFirst({ where: { walletAddress }, orderBy: { createdAt: 'asc' } }));
    return row ? toAgent(row) : null;
  }

  async hasLocalAgentWithWallet(walletAddress: string): Promise<boolean> {
    return (await this.db.agent.findFirst({ where: { walletAddress, mode: 'local' }, select: { id: true } })) !== null;
  }

  async findKeyByHash(keyHash: string): Promise<{ key: AgentKeyRecord; agentMode: Agent['mode'] } | null> {
    // One statement (every authenticated request runs it): Prisma's include would read the agent in a second.
    const [row] = await this.db.$queryRaw<Array<AgentKeyRecord & { agentMode: string }>>`
      SELECT k.id, k.agent_id AS "agentId", k.key_hash AS "keyHash", k.environment, k.display_prefix AS "displayPrefix",
             k.created_at AS "createdAt", k.revoked_at AS "revokedAt", k.expires_at AS "expiresAt", a.mode AS "agentMode"
      FROM "agents"."agent_keys" k JOIN "agents"."agents" a ON a.id = k.agent_id
      WHERE k.key_hash = ${keyHash}`;
    if (!row) return null;
    const { agentMode, ...key } = row;
    return { key, agentMode: agentMode as Agent['mode'] };
  }

  findKey(agentId: string, keyId: string): Promise<AgentKeyRecord | null> {
    return this.db.agentKey.findFirst({ where: { id: keyId, agentId } });
  }

  listKeys(agentId: string): Promise<AgentKeyRecord[]> {
    return this.db.agentKey.findMany({ where: { agentId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  }

  validKeys(agentId: string, now: Date): Promise<AgentKeyRecord[]> {
    return this.db.agentKey.findMany({ where: { agentId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } });
  }

  createKey(key: NewAgentKey): Promise<AgentKeyRecord> {
    return this.db.agentKey.create({ data: key });
  }

  updateKey(keyId: string, change: { expiresAt: Date } | { revokedAt: Date }): Promise<AgentKeyRecord> {
    return this.db.agentKey.update({ where: { id: keyId }, data: change });
  }

  async findClaim(agentId: string): Promise<ClaimRecord | null> {
    const row = await this.db.agentClaim.findUnique({ where: { agentId }, include: { agent: true } });
    return row ? toClaim(row) : null;
  }

  async createClaim(agentId: string, humanId: string, createdAt: Date, newHuman?: NewHuman): Promise<ClaimRecord> {
    if (newHuman) await this.db.human.create({ data: newHuman });
    return toClaim(await this.db.agentClaim.create({ data: { agentId, humanId, createdAt }, include: { agent: true } }));
  }

  async listClaims(humanId: string): Promise<ClaimRecord[]> {
    const rows = await this.db.agentClaim.findMany({ where: { humanId }, include: { agent: true }, orderBy: [{ createdAt: 'desc' }, { agentId: 'asc' }] });
    return rows.map(toClaim);
  }

  async deleteClaim(agentId: string, humanId?: string): Promise<number> {
    // One statement: the claim and its human's link to the agent's wallet go together.
    const rows = await this.db.$queryRaw<Array<{ n: number }>>`
      WITH gone AS (
        DELETE FROM "agents"."agent_claims" c
        WHERE c."agent_id" = ${agentId} AND (${humanId ?? null}::text IS NULL OR c."human_id" = ${humanId ?? null}::text)
        RETURNING c."human_id", c."agent_id"
      ), unlinked AS (
        DELETE FROM "agents"."human_wallets" w
        USING gone g JOIN "agents"."agents" a ON a."id" = g."agent_id"
        WHERE w."human_id" = g."human_id" AND w."wallet_address" = a."wallet_address"
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM gone)::int AS "n", (SELECT count(*) FROM unlinked)::int AS "unlinked"`;
    return rows[0]?.n ?? 0;
  }

  async isWalletLinked(humanId: string, walletAddress: string): Promise<boolean> {
    return (await this.db.humanWallet.findUnique({ where: { humanId_walletAddress: { humanId, walletAddress } }, select: { humanId: true } })) !== null;
  }

  async linkWallet(humanId: string, walletAddress: string, createdAt: Date): Promise<void> {
    await this.db.humanWallet.upsert({ where: { humanId_walletAddress: { humanId, walletAddress } }, create: { humanId, walletAddress, createdAt }, update: {} });
  }

  async addWalletChallenge(challenge: WalletChallengeRecord, now: Date): Promise<void> {
    await this.db.walletChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
    await this.db.walletChallenge.create({ data: challenge });
  }

  takeWalletChallenge(nonce: string): Promise<WalletChallengeRecord | null> {
    return this.db.walletChallenge.delete({ where: { nonce } }).catch(() => null);
  }

  async addSiweNonce(nonce: SiweNonceRecord, now: Date): Promise<void> {
    await this.db.siweNonce.deleteMany({ where: { expiresAt: { lt: now } } });
    await this.db.siweNonce.create({ data: nonce });
  }

  async takeSiweNonce(nonce: string): Promise<SiweNonceRecord | null> {
    // DELETE … RETURNING: one statement, so two concurrent verifies cannot both take the nonce.
    const rows = await this.db.$queryRaw<Array<{ nonce: string; wallet_address: string; human_id: string | null; expires_at: Date }>>`DELETE FROM "agents"."siwe_nonces" WHERE "nonce" = ${nonce} RETURNING "nonce", "wallet_address", "human_id", "expires_at"`;
    const row = rows[0];
    return row ? { nonce: row.nonce, walletAddress: row.wallet_address, humanId: row.human_id, expiresAt: row.expires_at } : null;
  }
}

/** The API form of an agent row. */
function toAgent(row: AgentRow): Agent {
  return {
    id: row.id,
    name: row.name,
    mode: row.mode as Agent['mode'],
    tags: row.tags,
    category: row.category,
    walletAddress: row.walletAddress,
    recordId: row.recordId,
    keyEnvironment: row.keyEnvironment as Agent['keyEnvironment'],
    createdAt: row.createdAt.toISOString(),
  };
}

function toClaim(row: ClaimRow & { agent: AgentRow }): ClaimRecord {
  return { humanId: row.humanId, createdAt: row.createdAt, agent: toAgent(row.agent) };
}

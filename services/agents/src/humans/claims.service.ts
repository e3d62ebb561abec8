import { Inject, Injectable } from '@nestjs/common';
import { type ClaimedAgent, DomainError, ForbiddenError, NotFoundError, type Principal } from '@agent-memory/shared';
import { AgentKeysService, AGENTS_PRISMA, lockAgentRow } from '../agent-keys.service';
import { toAgent } from '../agents.service';
import { CLOCK, type Clock } from '../clock';
import type { AgentsPrismaClient } from '../persistence/prisma';
import type { Agent as AgentRow, AgentClaim as ClaimRow } from '../persistence/generated/client';

/**
 * Claims: a human takes ownership of an agent by presenting one of its valid keys once
 * (docs/authentication.md, "Claiming an agent"); from then on the human's session reads the agent's
 * data and manages its keys. An agent has at most one owner: a claim of an agent another human owns is
 * FORBIDDEN until that human releases it. A key that is not valid is FORBIDDEN too (the human is
 * authenticated; it is the key that grants nothing), and so is a key in a rotation's grace period: a key
 * the agent has rotated away (perhaps because it leaked) no longer grants ownership. The agent can drop a
 * claim itself ({@link releaseByAgent}), and does so when it revokes a key or rotates with grace 0
 * ({@link AgentKeysService}). A claim locks the agent's row like rotations and revocations, so a claim
 * racing a grace-0 rotation either sees the key expired or is dropped by it.
 */
@Injectable()
export class ClaimsService {
  constructor(
    @Inject(AGENTS_PRISMA) private readonly prisma: AgentsPrismaClient,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly keys: AgentKeysService,
  ) {}

  /**
   * Claims the agent of `agentKey` for `humanId` (idempotent for the same human). FORBIDDEN when the key
   * is not valid, is in a rotation's grace period (`expiresAt` set), or another human owns the agent.
   */
  async claim(humanId: string, agentKey: string): Promise<ClaimedAgent> {
    const invalid = () => new ForbiddenError('agentKey: not a valid agent key (unknown, revoked or expired)');
    const rotatedAway = () => new ForbiddenError('agentKey: this key was rotated away (it only works until its grace period ends); claim with the agent’s current key');
    let agentId: string;
    try {
      const valid = await this.keys.validKey(agentKey);
      if (valid.key.expiresAt) throw rotatedAway();
      agentId = valid.principal.agentId;
    } catch (err) {
      if (err instanceof DomainError && err.code === 'UNAUTHORIZED') throw invalid();
      throw err;
    }
    return this.prisma.$transaction(async (tx) => {
      // Under the agent's row lock, re-check the key: a rotation or revocation may have committed meanwhile.
      if (!(await lockAgentRow(tx, agentId))) throw invalid();
      let recheck;
      try {
        recheck = await this.keys.validKey(agentKey, tx);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'UNAUTHORIZED') throw invalid();
        throw err;
      }
      if (recheck.key.expiresAt) throw rotatedAway();
      const existing = await tx.agentClaim.findUnique({ where: { agentId }, include: { agent: true } });
      if (existing) {
        if (existing.humanId !== humanId) throw new ForbiddenError('This agent is already claimed by another account');
        return toClaimed(existing, existing.agent);
      }
      const created = await tx.agentClaim.create({ data: { agentId, humanId, createdAt: this.clock() }, include: { agent: true } });
      return toClaimed(created, created.agent);
    });
  }

  /** The agents `humanId` claimed, most recent claim first. */
  async list(humanId: string): Promise<{ agents: ClaimedAgent[] }> {
    const rows = await this.prisma.agentClaim.findMany({ where: { humanId }, include: { agent: true }, orderBy: [{ createdAt: 'desc' }, { agentId: 'asc' }] });
    return { agents: rows.map((r) => toClaimed(r, r.agent)) };
  }

  /** Gives up the claim; NOT_FOUND if `humanId` does not own `agentId`. */
  async release(humanId: string, agentId: string): Promise<{ released: true; agentId: string }> {
    const { count } = await this.prisma.agentClaim.deleteMany({ where: { humanId, agentId } });
    if (count === 0) throw new NotFoundError('Agent not found');
    return { released: true, agentId };
  }

  /**
   * The agent itself drops any human's claim on it (`DELETE /api/v1/agents/claim`); `released` is false
   * when no one had claimed it. Idempotent.
   */
  async releaseByAgent(agentId: string): Promise<{ released: boolean }> {
    const { count } = await this.prisma.agentClaim.deleteMany({ where: { agentId } });
    return { released: count > 0 };
  }

  /** The principal of an agent `humanId` owns; NOT_FOUND otherwise (no existence leak). */
  async resolve(humanId: string, agentId: string): Promise<Principal> {
    const claim = await this.prisma.agentClaim.findUnique({ where: { agentId }, include: { agent: true } });
    if (!claim || claim.humanId !== humanId) throw new NotFoundError('Agent not found');
    return { agentId, keyEnvironment: claim.agent.keyEnvironment as Principal['keyEnvironment'], mode: claim.agent.mode as Principal['mode'] };
  }
}

function toClaimed(claim: ClaimRow, agent: AgentRow): ClaimedAgent {
  return { ...toAgent(agent), claimedAt: claim.createdAt.toISOString() };
}

import { Inject, Injectable } from '@nestjs/common';
import { type ClaimedAgent, DomainError, ForbiddenError, NotFoundError, type Principal } from '@agent-memory/shared';
import { CLOCK, type Clock } from '../../clock';
import { AgentsRepository, type ClaimRecord } from '../../persistence/agents.repository';
import { AgentKeysUseCases } from '../../use-cases/agent-keys.use-cases';
import type { ClaimAgentMessage, ListClaimsMessage, ReleaseClaimByAgentMessage, ReleaseClaimMessage, ResolveClaimMessage } from '../humans.messages';

/**
 * Claims: a human takes ownership of an agent by presenting one of its valid keys once
 * (docs/authentication.md, "Claiming and managing an agent"); from then on the human's session reads the agent's
 * data and manages its keys. An agent has at most one owner: a claim of an agent another human owns is
 * FORBIDDEN until that human releases it. A key that is not valid is FORBIDDEN too (the human is
 * authenticated; it is the key that grants nothing), and so is a key in a rotation's grace period: a key
 * the agent has rotated away (perhaps because it leaked) no longer grants ownership. The agent can drop a
 * claim itself ({@link releaseByAgent}), and does so when it revokes a key or rotates with grace 0
 * ({@link AgentKeysUseCases}). A claim locks the agent's row like rotations and revocations, so a claim
 * racing a grace-0 rotation either sees the key expired or is dropped by it.
 */
@Injectable()
export class ClaimsUseCases {
  constructor(
    private readonly agents: AgentsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly keys: AgentKeysUseCases,
  ) {}

  /**
   * Claims the agent of `agentKey` for `humanId` (idempotent for the same human). FORBIDDEN when the key
   * is not valid, is in a rotation's grace period (`expiresAt` set), or another human owns the agent.
   */
  async claim({ humanId, agentKey }: ClaimAgentMessage): Promise<ClaimedAgent> {
    const agentId = await this.claimingAgent(agentKey, this.agents);
    return this.agents.transaction(async (tx) => {
      // Under the agent's row lock, re-check the key: a rotation or revocation may have committed meanwhile.
      if (!(await tx.lockAgent(agentId))) throw invalidKey();
      await this.claimingAgent(agentKey, tx);
      const existing = await tx.findClaim(agentId);
      if (existing && existing.humanId !== humanId) throw new ForbiddenError('This agent is already claimed by another account');
      return toClaimed(existing ?? (await tx.createClaim(agentId, humanId, this.clock())));
    });
  }

  /** The agents `humanId` claimed, most recent claim first. */
  async list({ humanId }: ListClaimsMessage): Promise<{ agents: ClaimedAgent[] }> {
    return { agents: (await this.agents.listClaims(humanId)).map(toClaimed) };
  }

  /** Gives up the claim; NOT_FOUND if `humanId` does not own `agentId`. */
  async release({ humanId, agentId }: ReleaseClaimMessage): Promise<{ released: true; agentId: string }> {
    if ((await this.agents.deleteClaim(agentId, humanId)) === 0) throw new NotFoundError('Agent not found');
    return { released: true, agentId };
  }

  /**
   * The agent itself drops any human's claim on it (`DELETE /api/v1/agents/claim`); `released` is false
   * when no one had claimed it. Idempotent.
   */
  async releaseByAgent({ agentId }: ReleaseClaimByAgentMessage): Promise<{ released: boolean }> {
    return { released: (await this.agents.deleteClaim(agentId)) > 0 };
  }

  /** The principal of an agent `humanId` owns; NOT_FOUND otherwise (no existence leak). */
  async resolve({ humanId, agentId }: ResolveClaimMessage): Promise<Principal> {
    const claim = await this.agents.findClaim(agentId);
    if (!claim || claim.humanId !== humanId) throw new NotFoundError('Agent not found');
    return { agentId, keyEnvironment: claim.agent.keyEnvironment, mode: claim.agent.mode };
  }

  /** The agent a key may claim, read through `agents`; FORBIDDEN when the key is not valid or in a rotation's grace period. */
  private async claimingAgent(agentKey: string, agents: AgentsRepository): Promise<string> {
    const valid = await this.keys.validKey(agentKey, agents).catch((err: unknown) => {
      throw err instanceof DomainError && err.code === 'UNAUTHORIZED' ? invalidKey() : err;
    });
    if (valid.key.expiresAt) throw new ForbiddenError('agentKey: this key was rotated away (it only works until its grace period ends); claim with the agent’s current key');
    return valid.principal.agentId;
  }
}

function invalidKey(): ForbiddenError {
  return new ForbiddenError('agentKey: not a valid agent key (unknown, revoked or expired)');
}

function toClaimed(claim: ClaimRecord): ClaimedAgent {
  return { ...claim.agent, claimedAt: claim.createdAt.toISOString() };
}

import { Inject, Injectable } from '@nestjs/common';
import { type ClaimedAgent, DomainError, ForbiddenError, NotFoundError, type Principal } from '@agent-memory/shared';
import { CLOCK, type Clock } from '../../clock';
import { AgentsRepository, type ClaimRecord } from '../../persistence/agents.repository';
import { AgentKeysUseCases } from '../../use-cases/agent-keys.use-cases';
import type { ClaimAgentMessage, ListClaimsMessage, ReleaseClaimByAgentMessage, ReleaseClaimMessage, ResolveClaimMessage } from '../humans.messages';
import { scopeReaches, SessionsUseCases, SIWE_OTHER_AGENT } from './sessions.use-cases';

/** The one line a Sign in with Ethereum session gets when it tries to claim an agent. */
export const SIWE_NO_CLAIM = 'Sign in with a passkey to claim more agents: a Sign in with Ethereum session manages only the agents of its wallet';

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
 *
 * A Sign in with Ethereum session reaches only the agents whose wallet signed it in (docs/authentication.md,
 * "Sign in with Ethereum (humans)"; {@link SessionsUseCases}): every agent holds its own wallet, so a
 * compromised agent must not reach the other agents of the account it is linked to. Such a session
 * lists only its wallet's agents, resolves any other agent of the account as FORBIDDEN
 * ({@link SIWE_OTHER_AGENT}) and may not claim ({@link SIWE_NO_CLAIM}).
 */
@Injectable()
export class ClaimsUseCases {
  constructor(
    private readonly agents: AgentsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly keys: AgentKeysUseCases,
    private readonly sessions: SessionsUseCases,
  ) {}

  /**
   * Claims the agent of `agentKey` for `humanId` (idempotent for the same human) with its session
   * `sessionId`. FORBIDDEN when the session is a Sign in with Ethereum one ({@link SIWE_NO_CLAIM}), the key
   * is not valid, is in a rotation's grace period (`expiresAt` set), or another human owns the agent;
   * UNAUTHORIZED when `sessionId` is not an open session of `humanId`.
   */
  async claim({ humanId, sessionId, agentKey }: ClaimAgentMessage): Promise<ClaimedAgent> {
    if ((await this.sessions.scopeOf(humanId, sessionId)).method === 'siwe') throw new ForbiddenError(SIWE_NO_CLAIM);
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

  /**
   * The agents `humanId` claimed, most recent claim first; with `sessionId` (the gateway always sends the
   * calling session), those that session reaches: a Sign in with Ethereum session's wallet's agents only.
   * UNAUTHORIZED when `sessionId` is not an open session of `humanId`.
   */
  async list({ humanId, sessionId }: ListClaimsMessage): Promise<{ agents: ClaimedAgent[] }> {
    const scope = sessionId === undefined ? undefined : await this.sessions.scopeOf(humanId, sessionId);
    const claims = await this.agents.listClaims(humanId);
    return { agents: claims.filter((c) => !scope || scopeReaches(scope, c.agent.walletAddress)).map(toClaimed) };
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

  /**
   * The principal of an agent `humanId` owns, for a call of its session `sessionId`: NOT_FOUND when the
   * human does not own it (no existence leak); FORBIDDEN ({@link SIWE_OTHER_AGENT}) when the session is a
   * Sign in with Ethereum one and the agent's wallet is not the session's; UNAUTHORIZED when `sessionId`
   * is not an open session of `humanId`.
   */
  async resolve({ humanId, sessionId, agentId }: ResolveClaimMessage): Promise<Principal> {
    const [scope, claim] = await Promise.all([this.sessions.scopeOf(humanId, sessionId), this.agents.findClaim(agentId)]);
    if (!claim || claim.humanId !== humanId) throw new NotFoundError('Agent not found');
    if (!scopeReaches(scope, claim.agent.walletAddress)) throw new ForbiddenError(SIWE_OTHER_AGENT);
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

import { Inject, Injectable, Optional } from '@nestjs/common';
import { CACHE_INVALIDATIONS, type CacheInvalidations } from '@agent-memory/platform';
import {
  AgentKeyIdSchema,
  type AgentKeyInfo,
  type AgentKeyList,
  newId,
  NotFoundError,
  type Principal,
  type RevokeKeyResponse,
  type RotateKeyResponse,
  UnauthorizedError,
} from '@agent-memory/shared';
import { AGENT_KEY_PREFIX, constantTimeEqualHex, issueAgentKey, parseAgentKey } from '../agent-key';
import type { AuthenticateKeyMessage, ListKeysMessage, RevokeKeyMessage, RotateKeyMessage } from '../agents.messages';
import { CLOCK, type Clock, hasExpired, secondsAfter } from '../clock';
import { type AgentKeyRecord, AgentsRepository } from '../persistence/agents.repository';

/** Injection token of the default grace of a key rotation, seconds. */
export const KEY_ROTATION_GRACE_SECONDS = Symbol('KeyRotationGraceSeconds');

/** A presented key that is valid now: its principal, and its record (`expiresAt` set while in a rotation's grace period). */
export interface ValidAgentKey {
  principal: Principal;
  key: AgentKeyRecord;
}

/**
 * Agent keys after creation (revocable and rotatable; docs/authentication.md): authentication by hash,
 * listing without secrets, rotation with a grace period, revocation.
 *
 * - A key is valid while it is not revoked and `expiresAt` (set only by a rotation) is in the future.
 * - Rotation issues a new key of the agent's environment and gives every other valid key
 *   `expiresAt = min(its expiresAt, now + grace)`; grace 0 ends them at once.
 * - Revocation is immediate and final.
 * - Rotation and revocation lock the agent's row first ({@link AgentsRepository.lockAgent}): concurrent
 *   ones serialize, so exactly one key without expiry remains after any number of parallel rotations.
 * - When the agent itself (Bearer key or wallet signature; `requestedBy: 'agent'`) revokes a key or
 *   rotates with grace 0, any human's claim on it is dropped in the same transaction: a leaked key that
 *   was used to claim the agent keeps no foothold once the owner cuts it off (docs/authentication.md).
 */
@Injectable()
export class AgentKeysUseCases {
  constructor(
    private readonly agents: AgentsRepository,
    @Inject(AGENT_KEY_PREFIX) private readonly keyPrefix: string,
    @Inject(KEY_ROTATION_GRACE_SECONDS) private readonly defaultGraceSeconds: number,
    @Inject(CLOCK) private readonly clock: Clock,
    /** Told after a rotation or revocation commits, before the answer, so no gateway's cached authentication outlives it (docs/architecture.md, "Caches of the gateway"). */
    @Optional() @Inject(CACHE_INVALIDATIONS) private readonly invalidations?: CacheInvalidations,
  ) {}

  /**
   * The principal of a presented agent key (`Authorization: Bearer <agent key>`) and when the key ends
   * (`keyExpiresAt`, ISO 8601; null while it has no end), so that a cache never keeps it longer. UNAUTHORIZED
   * when malformed, unknown, revoked, or expired after a rotation.
   */
  async authenticate({ agentKey }: AuthenticateKeyMessage): Promise<Principal & { keyExpiresAt: string | null }> {
    const { principal, key } = await this.validKey(agentKey);
    return { ...principal, keyExpiresAt: key.expiresAt?.toISOString() ?? null };
  }

  /**
   * Like {@link authenticate}, also giving the key's record (claims refuse a key in its grace period).
   * Reads through `agents` (a repository bound to a transaction, to re-check a key under the agent's row
   * lock) or the service's repository. UNAUTHORIZED when malformed, unknown, revoked or expired.
   */
  async validKey(agentKey: string, agents: AgentsRepository = this.agents): Promise<ValidAgentKey> {
    const parsed = parseAgentKey(agentKey);
    if (!parsed) throw new UnauthorizedError('Invalid agent key');
    const found = await agents.findKeyByHash(parsed.hash);
    if (!found || !constantTimeEqualHex(found.key.keyHash, parsed.hash) || found.key.environment !== parsed.environment) throw new UnauthorizedError('Invalid agent key');
    const { key, agentMode } = found;
    if (key.revokedAt) throw new UnauthorizedError('This agent key was revoked');
    if (hasExpired(key.expiresAt, this.clock())) throw new UnauthorizedError('This agent key expired after a key rotation');
    return { principal: { agentId: key.agentId, keyEnvironment: parsed.environment, mode: agentMode }, key };
  }

  /** Every key of the agent, newest first, without secrets. */
  async list({ agentId }: ListKeysMessage): Promise<AgentKeyList> {
    const rows = await this.agents.listKeys(agentId);
    const now = this.clock();
    return { keys: rows.map((r) => toKeyInfo(r, now)) };
  }

  /**
   * Issues a new key (returned once) and lets the agent's other valid keys expire after `graceSeconds`
   * (default: the configured grace). With grace 0 asked by the agent itself, a human's claim is dropped
   * too. NOT_FOUND if the agent does not exist.
   */
  async rotate({ agentId, graceSeconds = this.defaultGraceSeconds, requestedBy }: RotateKeyMessage): Promise<RotateKeyResponse> {
    const now = this.clock();
    const graceEnd = secondsAfter(now, graceSeconds);
    const { created, previous, issued } = await this.agents.transaction(async (tx) => {
      const agent = (await tx.lockAgent(agentId)) ? await tx.findAgent(agentId) : null;
      if (!agent) throw new NotFoundError('Agent not found');
      const issued = issueAgentKey(this.keyPrefix, agent.keyEnvironment);
      const previous: AgentKeyRecord[] = [];
      for (const key of await tx.validKeys(agentId, now)) {
        // a key already ending before the new grace keeps its earlier end
        previous.push(key.expiresAt && key.expiresAt.getTime() <= graceEnd.getTime() ? key : await tx.updateKey(key.id, { expiresAt: graceEnd }));
      }
      const created = await tx.createKey({ id: newId('agentKey'), agentId, keyHash: issued.hash, environment: agent.keyEnvironment, displayPrefix: issued.displayPrefix, createdAt: now });
      if (requestedBy === 'agent' && graceSeconds === 0) await tx.deleteClaim(agentId);
      return { created, previous, issued };
    });
    await this.invalidations?.publish('agent-keys', agentId);
    return { agentKey: issued.key, key: toKeyInfo(created, now), previousKeys: previous.map((k) => toKeyInfo(k, now)) };
  }

  /**
   * Revokes one of the agent's keys at once (idempotent). Asked by the agent itself, it also drops a
   * human's claim. NOT_FOUND if the key is not the agent's (nothing changes then).
   */
  async revoke({ agentId, keyId, requestedBy }: RevokeKeyMessage): Promise<RevokeKeyResponse> {
    // A malformed id is no key of anyone's (and never reaches the database: NUL bytes would fail there).
    if (!AgentKeyIdSchema.safeParse(keyId).success) throw new NotFoundError('Key not found');
    const now = this.clock();
    const revoked = await this.agents.transaction(async (tx) => {
      const key = (await tx.lockAgent(agentId)) ? await tx.findKey(agentId, keyId) : null;
      if (!key) throw new NotFoundError('Key not found');
      const revoked = key.revokedAt ? key : await tx.updateKey(key.id, { revokedAt: now });
      if (requestedBy === 'agent') await tx.deleteClaim(agentId);
      return revoked;
    });
    await this.invalidations?.publish('agent-keys', agentId);
    return { revoked: true, key: toKeyInfo(revoked, now) };
  }
}

/** The listed form of a key at time `now`. */
function toKeyInfo(row: AgentKeyRecord, now: Date): AgentKeyInfo {
  const status: AgentKeyInfo['status'] = row.revokedAt ? 'revoked' : !row.expiresAt ? 'active' : hasExpired(row.expiresAt, now) ? 'expired' : 'expiring';
  return {
    id: row.id,
    displayPrefix: row.displayPrefix,
    environment: row.environment as AgentKeyInfo['environment'],
    status,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

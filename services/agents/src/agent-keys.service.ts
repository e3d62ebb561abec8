import { Inject, Injectable } from '@nestjs/common';
import {
  AgentKeyIdSchema,
  type AgentKeyInfo,
  type AgentKeyList,
  type KeyChangeRequester,
  newId,
  NotFoundError,
  type Principal,
  type RevokeKeyResponse,
  type RotateKeyResponse,
  UnauthorizedError,
} from '@agent-memory/shared';
import { constantTimeEqualHex, issueAgentKey, parseAgentKey } from './agent-key';
import { CLOCK, type Clock } from './clock';
import type { AgentsPrismaClient } from './persistence/prisma';
import type { AgentKey as AgentKeyRow, Prisma } from './persistence/generated/client';

export const AGENTS_PRISMA = Symbol('AgentsPrisma');
/** Injection token of the agent key prefix (`amk` by default: `amk_live_…`). */
export const AGENT_KEY_PREFIX = Symbol('AgentKeyPrefix');
/** Injection token of the default grace of a key rotation, seconds. */
export const KEY_ROTATION_GRACE_SECONDS = Symbol('KeyRotationGraceSeconds');

/**
 * Locks the agent's row (`SELECT ... FOR UPDATE`) inside an interactive transaction, so that rotations,
 * revocations and claims of one agent run one after another (two concurrent rotations would otherwise
 * both read the same valid keys and both leave their new key without expiry). False when there is no
 * such agent. The lock ends with the transaction.
 */
export async function lockAgentRow(tx: Prisma.TransactionClient, agentId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT "id" FROM "agents"."agents" WHERE "id" = ${agentId} FOR UPDATE`;
  return rows.length > 0;
}

/** A presented key that is valid now: its principal, and its row (id, `expiresAt` set while in a rotation's grace period). */
export interface ValidAgentKey {
  principal: Principal;
  key: AgentKeyRow;
}

/**
 * Agent keys after creation (revocable and rotatable; docs/authentication.md):
 * authentication by hash, listing without secrets, rotation with a grace period, revocation.
 *
 * - A key is valid while it is not revoked and `expiresAt` (set only by a rotation) is in the future.
 * - Rotation issues a new key of the agent's environment and gives every other valid key
 *   `expiresAt = min(its expiresAt, now + grace)`; grace 0 ends them at once.
 * - Revocation is immediate and final.
 * - Rotation and revocation lock the agent's row first ({@link lockAgentRow}): concurrent ones serialize,
 *   so exactly one key without expiry remains after any number of parallel rotations.
 * - When the agent itself (Bearer key or wallet signature; `requestedBy: 'agent'`) revokes a key or
 *   rotates with grace 0, any human's claim on it is dropped in the same transaction: a leaked key that
 *   was used to claim the agent keeps no foothold once the owner cuts it off (docs/authentication.md).
 */
@Injectable()
export class AgentKeysService {
  constructor(
    @Inject(AGENTS_PRISMA) private readonly prisma: AgentsPrismaClient,
    @Inject(AGENT_KEY_PREFIX) private readonly keyPrefix: string,
    @Inject(KEY_ROTATION_GRACE_SECONDS) private readonly defaultGraceSeconds: number,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The principal of a presented agent key (`Authorization: Bearer <agent key>`).
   * UNAUTHORIZED when malformed, unknown, revoked, or expired after a rotation.
   */
  async authenticate(agentKey: string): Promise<Principal> {
    return (await this.validKey(agentKey)).principal;
  }

  /**
   * Like {@link authenticate}, also giving the key's row (claims refuse a key in its grace period). Reads
   * through `db` (a transaction client, to re-check a key under the agent's row lock) or the client.
   * UNAUTHORIZED when malformed, unknown, revoked or expired.
   */
  async validKey(agentKey: string, db: Prisma.TransactionClient = this.prisma): Promise<ValidAgentKey> {
    const parsed = parseAgentKey(agentKey);
    if (!parsed) throw new UnauthorizedError('Invalid agent key');
    const key = await db.agentKey.findUnique({ where: { keyHash: parsed.hash }, include: { agent: true } });
    if (!key || !constantTimeEqualHex(key.keyHash, parsed.hash) || key.environment !== parsed.environment) throw new UnauthorizedError('Invalid agent key');
    if (key.revokedAt) throw new UnauthorizedError('This agent key was revoked');
    if (key.expiresAt && key.expiresAt.getTime() <= this.clock().getTime()) throw new UnauthorizedError('This agent key expired after a key rotation');
    const { agent, ...row } = key;
    return { principal: { agentId: key.agentId, keyEnvironment: parsed.environment, mode: agent.mode as Principal['mode'] }, key: row };
  }

  /** Every key of the agent, newest first, without secrets. */
  async list(agentId: string): Promise<AgentKeyList> {
    const rows = await this.prisma.agentKey.findMany({ where: { agentId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    const now = this.clock();
    return { keys: rows.map((r) => toKeyInfo(r, now)) };
  }

  /**
   * Issues a new key (returned once) and lets the agent's other valid keys expire after `graceSeconds`
   * (default: the configured grace). With grace 0 asked by the agent itself, a human's claim is dropped
   * too. NOT_FOUND if the agent does not exist.
   */
  async rotate(agentId: string, graceSeconds: number = this.defaultGraceSeconds, requestedBy: KeyChangeRequester = 'agent'): Promise<RotateKeyResponse> {
    const now = this.clock();
    const graceEnd = new Date(now.getTime() + graceSeconds * 1000);
    const { created, previous, issued } = await this.prisma.$transaction(async (tx) => {
      if (!(await lockAgentRow(tx, agentId))) throw new NotFoundError('Agent not found');
      const agent = await tx.agent.findUniqueOrThrow({ where: { id: agentId } });
      const issued = issueAgentKey(this.keyPrefix, agent.keyEnvironment as 'live' | 'test');
      const valid = await tx.agentKey.findMany({ where: { agentId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } });
      const previous: AgentKeyRow[] = [];
      for (const key of valid) {
        if (key.expiresAt && key.expiresAt.getTime() <= graceEnd.getTime()) {
          previous.push(key);
          continue;
        }
        previous.push(await tx.agentKey.update({ where: { id: key.id }, data: { expiresAt: graceEnd } }));
      }
      const created = await tx.agentKey.create({
        data: { id: newId('agentKey'), agentId, keyHash: issued.hash, environment: agent.keyEnvironment, displayPrefix: issued.displayPrefix, createdAt: now },
      });
      if (requestedBy === 'agent' && graceSeconds === 0) await tx.agentClaim.deleteMany({ where: { agentId } });
      return { created, previous, issued };
    });
    return { agentKey: issued.key, key: toKeyInfo(created, now), previousKeys: previous.map((k) => toKeyInfo(k, now)) };
  }

  /**
   * Revokes one of the agent's keys at once (idempotent). Asked by the agent itself, it also drops a
   * human's claim. NOT_FOUND if the key is not the agent's (nothing changes then).
   */
  async revoke(agentId: string, keyId: string, requestedBy: KeyChangeRequester = 'agent'): Promise<RevokeKeyResponse> {
    // A malformed id is no key of anyone's (and never reaches the database: NUL bytes would fail there).
    if (!AgentKeyIdSchema.safeParse(keyId).success) throw new NotFoundError('Key not found');
    const now = this.clock();
    const revoked = await this.prisma.$transaction(async (tx) => {
      if (!(await lockAgentRow(tx, agentId))) throw new NotFoundError('Key not found');
      const key = await tx.agentKey.findFirst({ where: { id: keyId, agentId } });
      if (!key) throw new NotFoundError('Key not found');
      const revoked = key.revokedAt ? key : await tx.agentKey.update({ where: { id: key.id }, data: { revokedAt: now } });
      if (requestedBy === 'agent') await tx.agentClaim.deleteMany({ where: { agentId } });
      return revoked;
    });
    return { revoked: true, key: toKeyInfo(revoked, now) };
  }
}

/** The listed form of a key row at time `now`. */
export function toKeyInfo(row: AgentKeyRow, now: Date): AgentKeyInfo {
  const status: AgentKeyInfo['status'] = row.revokedAt ? 'revoked' : !row.expiresAt ? 'active' : row.expiresAt.getTime() > now.getTime() ? 'expiring' : 'expired';
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

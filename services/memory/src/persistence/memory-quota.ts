import { ForbiddenError } from '@agent-memory/shared';
import type { Prisma } from './generated/client';

/** Per-agent storage quota of memories (docs/api.md, "Storage quotas"; docs/configuration.md). */
export interface MemoryQuota {
  /** Memories an agent may store, all its records together. */
  maxMemories: number;
  /** Bytes (UTF-8) of memory content an agent may store, all its records together. */
  maxBytes: number;
}

/** Injection token of the {@link MemoryQuota} in force. */
export const MEMORY_QUOTA = Symbol('MemoryQuota');

/** Defaults (docs/configuration.md): 100,000 memories and 1 GiB of content per agent. */
export const DEFAULT_MEMORY_QUOTA: MemoryQuota = { maxMemories: 100_000, maxBytes: 1024 ** 3 };

/** An agent's stored memories and their content bytes. */
export interface MemoryUsage {
  memories: number;
  bytes: number;
}

/**
 * Adds (`memories`, `bytes`) to the agent's usage inside the caller's transaction, only if the result
 * stays within `quota` (an increase never passes the limit; a decrease always passes, even above a
 * limit lowered since). One conditional UPDATE: it locks the agent's usage row until the transaction
 * ends, so two concurrent writes of one agent, in any replica, see each other's charge and together
 * never overshoot. The row is created at first use.
 * @throws ForbiddenError (403) naming the quota, the usage and the limit; the caller's transaction then
 *   rolls back, so nothing of the write is kept.
 */
export async function chargeMemoryUsage(tx: Prisma.TransactionClient, agentId: string, delta: MemoryUsage, quota: MemoryQuota): Promise<void> {
  await tx.$executeRaw`INSERT INTO "memory"."agent_usage" (agent_id) VALUES (${agentId}) ON CONFLICT (agent_id) DO NOTHING`;
  const updated = await tx.$executeRaw`
    UPDATE "memory"."agent_usage"
    SET memory_count = memory_count + ${delta.memories}::bigint, memory_bytes = memory_bytes + ${delta.bytes}::bigint
    WHERE agent_id = ${agentId}
      AND (${delta.memories}::bigint <= 0 OR memory_count + ${delta.memories}::bigint <= ${quota.maxMemories}::bigint)
      AND (${delta.bytes}::bigint <= 0 OR memory_bytes + ${delta.bytes}::bigint <= ${quota.maxBytes}::bigint)`;
  if (updated === 1) return;
  throw quotaExceeded(await readMemoryUsage(tx, agentId), delta, quota);
}

/** Subtracts what a forget or a record deletion removed, per agent, in agent id order (no deadlocks between purges). */
export async function releaseMemoryUsage(tx: Prisma.TransactionClient, released: readonly ({ agentId: string } & MemoryUsage)[]): Promise<void> {
  for (const r of [...released].sort((a, b) => (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0))) {
    await tx.$executeRaw`
      UPDATE "memory"."agent_usage"
      SET memory_count = greatest(memory_count - ${r.memories}::bigint, 0), memory_bytes = greatest(memory_bytes - ${r.bytes}::bigint, 0)
      WHERE agent_id = ${r.agentId}`;
  }
}

/** The agent's usage now (zero when it has none). */
export async function readMemoryUsage(db: Pick<Prisma.TransactionClient, '$queryRaw'>, agentId: string): Promise<MemoryUsage> {
  const [row] = await db.$queryRaw<{ memories: bigint; bytes: bigint }[]>`
    SELECT memory_count AS memories, memory_bytes AS bytes FROM "memory"."agent_usage" WHERE agent_id = ${agentId}`;
  return { memories: Number(row?.memories ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/**
 * Refuses a write that would exceed the quota, before any work is done (a cheap early answer; the
 * exact check is {@link chargeMemoryUsage} inside the write's transaction).
 * @throws ForbiddenError as {@link chargeMemoryUsage}.
 */
export function assertWithinMemoryQuota(usage: MemoryUsage, delta: MemoryUsage, quota: MemoryQuota): void {
  const countOver = delta.memories > 0 && usage.memories + delta.memories > quota.maxMemories;
  const bytesOver = delta.bytes > 0 && usage.bytes + delta.bytes > quota.maxBytes;
  if (countOver || bytesOver) throw quotaExceeded(usage, delta, quota);
}

function quotaExceeded(usage: MemoryUsage, delta: MemoryUsage, quota: MemoryQuota): ForbiddenError {
  if (delta.memories > 0 && usage.memories + delta.memories > quota.maxMemories) {
    return new ForbiddenError(
      `Memory quota exceeded: this agent stores ${usage.memories} memories, the limit is ${quota.maxMemories} per agent. Forget memories to free quota.`,
    );
  }
  return new ForbiddenError(
    `Memory storage quota exceeded: this agent's memories hold ${usage.bytes} bytes, this write adds ${delta.bytes} bytes, the limit is ${quota.maxBytes} bytes per agent. Forget memories to free quota.`,
  );
}

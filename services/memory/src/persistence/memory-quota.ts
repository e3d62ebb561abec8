import { ForbiddenError } from '@agent-memory/shared';
import { AgentUsageCounters, type RawSqlTransaction } from '@agent-memory/platform';
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

/** The memory service's usage counters (`memory.agent_usage`: `memory_count`, `memory_bytes`). */
const counters = new AgentUsageCounters('"memory"."agent_usage"', 'memory_count', 'memory_bytes');

/**
 * Adds (`memories`, `bytes`) to the agent's usage inside the caller's transaction, only if the result
 * stays within `quota` ({@link AgentUsageCounters.tryCharge}: one conditional UPDATE that locks the
 * agent's usage row, so concurrent writes of one agent, in any replica, never overshoot together; a
 * decrease always passes).
 * @throws ForbiddenError (403) naming the quota, the usage and the limit; the caller's transaction then
 *   rolls back, so nothing of the write is kept.
 */
export async function chargeMemoryUsage(tx: Prisma.TransactionClient, agentId: string, delta: MemoryUsage, quota: MemoryQuota): Promise<void> {
  if (await counters.tryCharge(tx, agentId, { count: delta.memories, bytes: delta.bytes }, { maxCount: quota.maxMemories, maxBytes: quota.maxBytes })) return;
  throw quotaExceeded(await readMemoryUsage(tx, agentId), delta, quota);
}

/** Subtracts what a forget or a record deletion removed, per agent, in agent id order (no deadlocks between purges). */
export function releaseMemoryUsage(tx: Prisma.TransactionClient, released: readonly ({ agentId: string } & MemoryUsage)[]): Promise<void> {
  return counters.release(tx, released.map((r) => ({ agentId: r.agentId, count: r.memories, bytes: r.bytes })));
}

/** The agent's usage now (zero when it has none). */
export async function readMemoryUsage(db: RawSqlTransaction, agentId: string): Promise<MemoryUsage> {
  const { count, bytes } = await counters.read(db, agentId);
  return { memories: count, bytes };
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

import type { ReclaimScheduler } from '@agent-memory/platform';

/**
 * The memory service's tables that can hold a forgotten memory's text or a trace of it: the row (summary,
 * the whole content of a short memory), the stored idempotent response (summary), the write log (paths)
 * and the purge tasks (blob keys). After every purge they are rewritten (`Database.reclaim`), so no dead
 * tuple keeps the text (docs/deployment.md, "Forgotten content and the database files").
 */
export const MEMORY_RECLAIM_TABLES = ['memory.memories', 'memory.idempotency_keys', 'memory.write_log', 'memory.purge_tasks'] as const;

/** Default delay between the first purge and the rewrite of {@link MEMORY_RECLAIM_TABLES}, ms (`FORGET_VACUUM_DELAY_MS`). */
export const DEFAULT_FORGET_VACUUM_DELAY_MS = 30_000;

/** Injection token of the memory service's {@link ReclaimScheduler}. */
export const MEMORY_RECLAIM = Symbol('MemoryReclaim');
export type MemoryReclaim = ReclaimScheduler;

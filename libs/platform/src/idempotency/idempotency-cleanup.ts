import { IDEMPOTENCY_TTL_SECONDS } from '@agent-memory/shared';

/**
 * Clean-up of the idempotency-key tables (memory and files each own one; docs/api.md, "Idempotency keys"). Keys are only
 * honoured for IDEMPOTENCY_TTL_SECONDS (24 h, libs/shared); rows past that plus an hour of margin are
 * deleted, and pending rows (a crashed write) once a day old. Every 10 minutes, in one DELETE statement,
 * so that replicas running it at the same time are safe.
 */
export const IDEMPOTENCY_CLEANUP = {
  intervalMs: 10 * 60_000,
  /** Any key created longer ago than this is deleted. */
  retentionMs: IDEMPOTENCY_TTL_SECONDS * 1000 + 60 * 60_000,
  /** A key still pending after this long is deleted. */
  pendingRetentionMs: 24 * 60 * 60_000,
} as const;

/**
 * The `where` of the clean-up DELETE for a Prisma idempotency-key model (fields `createdAt`, `status`):
 * created before `now - retentionMs`, or pending and created before `now - pendingRetentionMs`.
 */
export function expiredIdempotencyKeysWhere(now = Date.now()): { OR: Array<{ createdAt: { lt: Date }; status?: string }> } {
  return {
    OR: [
      { createdAt: { lt: new Date(now - IDEMPOTENCY_CLEANUP.retentionMs) } },
      { status: 'pending', createdAt: { lt: new Date(now - IDEMPOTENCY_CLEANUP.pendingRetentionMs) } },
    ],
  };
}

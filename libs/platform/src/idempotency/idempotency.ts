import { IDEMPOTENCY_TTL_SECONDS, ValidationError } from '@agent-memory/shared';

/** A stored idempotency key: the request's fingerprint and, once done, its response. */
export interface IdempotencyEntry {
  requestHash: string;
  status: 'pending' | 'completed';
  response: unknown;
  createdAt: Date;
}

/**
 * Port of a service's idempotency-key table (memory and files each own one). `claim` inserts a pending
 * entry stamped `claimedAt` unless one exists (atomic), and returns the existing one otherwise; `takeOver`
 * re-claims an expired or abandoned entry (stamping it `claimedAt`) only if it is still the one the caller
 * saw; `release` deletes the pending entry only if it is still the caller's claim (`claimedAt`), so a
 * claimer that was taken over never drops the new owner's claim.
 *
 * The write that completes a claim must do so with a guarded update (`status = 'pending'` and
 * `created_at = claimedAt`) inside its own transaction and roll back when no row matched: the claim was
 * taken over meanwhile (see {@link IDEMPOTENCY_ABANDONED_AFTER_MS}), and the new owner writes instead.
 */
export interface IdempotencyStore {
  claim(scope: string, key: string, requestHash: string, claimedAt: Date): Promise<IdempotencyEntry | null>;
  takeOver(scope: string, key: string, seen: IdempotencyEntry, requestHash: string, claimedAt: Date): Promise<boolean>;
  release(scope: string, key: string, claimedAt: Date): Promise<void>;
}

/**
 * Thrown inside a write transaction (to roll it back) when the guarded completion of an idempotency key
 * matched no row: the claim was taken over by another request with the same key.
 */
export class IdempotencyClaimLostError extends Error {
  constructor(readonly scope: string, readonly key: string) {
    super(`idempotency_key ${key}: the claim was taken over by another request`);
    this.name = 'IdempotencyClaimLostError';
  }
}

/**
 * What a request answers once its claim was lost ({@link IdempotencyClaimLostError}): the completed
 * entry's response as a replay when the new owner finished with the same body, else VALIDATION_ERROR
 * (another body, or still in progress), the same answers {@link claimIdempotencyKey} gives.
 */
export function answerAfterLostClaim(entry: IdempotencyEntry | null, requestHash: string): { claimed: false; replay: unknown } {
  if (entry && entry.requestHash !== requestHash) {
    throw new ValidationError('idempotency_key: this key was already used with a different request body');
  }
  if (entry?.status === 'completed') return { claimed: false, replay: entry.response };
  throw new ValidationError('idempotency_key: a request with this key is still in progress; retry later');
}

/**
 * A pending entry older than this is taken to be abandoned by a crashed process (a remember or write
 * takes well under a second; the gateway gives up on the bus after BUS_REQUEST_TIMEOUT_MS, 10-30 s), so
 * a client retrying with the same key after a crash is served within about half a minute.
 */
export const IDEMPOTENCY_ABANDONED_AFTER_MS = 30_000;
const ABANDONED_AFTER_MS = IDEMPOTENCY_ABANDONED_AFTER_MS;
const POLL_MS = 50;
const WAIT_FOR_PENDING_MS = 15_000;

/**
 * Claims an idempotency key before a write (DESIGN.md §4): `{ replay }` when the same key and body
 * already completed (the caller returns `replay` and writes and charges nothing), `{ claimed: true }`
 * when the caller must do the write and then mark the entry completed in the write's own transaction
 * (or `release` it on failure). The same key with another body is VALIDATION_ERROR. Entries expire
 * after 24 h. A concurrent request with the same key waits for the first to finish. `claimedAt` (ms
 * precision, from `now`) identifies this claim for the guarded completion and for `release`.
 */
export async function claimIdempotencyKey(
  store: IdempotencyStore,
  scope: string,
  key: string,
  requestHash: string,
  now: () => number = Date.now,
): Promise<{ claimed: true; claimedAt: Date } | { claimed: false; replay: unknown }> {
  const deadline = now() + WAIT_FOR_PENDING_MS;
  for (;;) {
    const claimedAt = new Date(now());
    const existing = await store.claim(scope, key, requestHash, claimedAt);
    if (!existing) return { claimed: true, claimedAt };
    const age = now() - existing.createdAt.getTime();
    const expired = age > IDEMPOTENCY_TTL_SECONDS * 1000;
    const abandoned = existing.status === 'pending' && age > ABANDONED_AFTER_MS;
    if (expired || abandoned) {
      const takenAt = new Date(Math.max(now(), existing.createdAt.getTime() + 1));
      if (await store.takeOver(scope, key, existing, requestHash, takenAt)) return { claimed: true, claimedAt: takenAt };
      continue;
    }
    if (existing.requestHash !== requestHash) {
      throw new ValidationError('idempotency_key: this key was already used with a different request body');
    }
    if (existing.status === 'completed') return { claimed: false, replay: existing.response };
    if (now() > deadline) throw new ValidationError('idempotency_key: a request with this key is still in progress; retry later');
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

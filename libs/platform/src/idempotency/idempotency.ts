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
 * entry unless one exists (atomic), and returns the existing one otherwise; `takeOver` re-claims an
 * expired or abandoned entry only if it is still the one the caller saw.
 */
export interface IdempotencyStore {
  claim(scope: string, key: string, requestHash: string): Promise<IdempotencyEntry | null>;
  takeOver(scope: string, key: string, seen: IdempotencyEntry, requestHash: string): Promise<boolean>;
  release(scope: string, key: string): Promise<void>;
}

/** A pending entry older than this is taken to be abandoned by a crashed request. */
const ABANDONED_AFTER_MS = 120_000;
const POLL_MS = 50;
const WAIT_FOR_PENDING_MS = 15_000;

/**
 * Claims an idempotency key before a write (DESIGN.md §4): `{ replay }` when the same key and body
 * already completed (the caller returns `replay` and writes and charges nothing), `{ claimed: true }`
 * when the caller must do the write and then mark the entry completed in the write's own transaction
 * (or `release` it on failure). The same key with another body is VALIDATION_ERROR. Entries expire
 * after 24 h. A concurrent request with the same key waits for the first to finish.
 */
export async function claimIdempotencyKey(
  store: IdempotencyStore,
  scope: string,
  key: string,
  requestHash: string,
  now: () => number = Date.now,
): Promise<{ claimed: true } | { claimed: false; replay: unknown }> {
  const deadline = now() + WAIT_FOR_PENDING_MS;
  for (;;) {
    const existing = await store.claim(scope, key, requestHash);
    if (!existing) return { claimed: true };
    const age = now() - existing.createdAt.getTime();
    const expired = age > IDEMPOTENCY_TTL_SECONDS * 1000;
    const abandoned = existing.status === 'pending' && age > ABANDONED_AFTER_MS;
    if (expired || abandoned) {
      if (await store.takeOver(scope, key, existing, requestHash)) return { claimed: true };
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

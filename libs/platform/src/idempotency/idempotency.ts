import { IDEMPOTENCY_TTL_SECONDS, RateLimitedError, ValidationError } from '@agent-memory/shared';
import { requestDeadline } from '../bus/bus-context';
import { sha256Hex } from '../hashing';

/** A stored idempotency key: the request's fingerprint and, once done, its response. */
export interface IdempotencyEntry {
  requestHash: string;
  status: 'pending' | 'completed';
  response: unknown;
  /** When the claim was made: identifies the claim (guarded completion, release) and the committed write. */
  createdAt: Date;
  /** A pending claim's expiry: the deadline of the request holding it (null: none was given). */
  expiresAt?: Date | null;
}

/**
 * Port of a service's idempotency-key table (memory and files each own one). `claim` inserts a pending
 * entry stamped `claimedAt` (expiring at `expiresAt`, the claiming request's deadline) unless one exists
 * (atomic), and returns the existing one otherwise; `takeOver` re-claims an expired or abandoned entry
 * (stamping it `claimedAt`, `expiresAt`) only if it is still the one the caller saw; `release` deletes the
 * pending entry only if it is still the caller's claim (`claimedAt`), so a claimer that was taken over never
 * drops the new owner's claim.
 *
 * The write that completes a claim must do so with a guarded update (`status = 'pending'` and
 * `created_at = claimedAt`) inside its own transaction and roll back when no row matched: the claim was
 * taken over meanwhile (see {@link claimIdempotencyKey}), and the new owner writes instead.
 */
export interface IdempotencyStore {
  claim(scope: string, key: string, requestHash: string, claimedAt: Date, expiresAt: Date | null): Promise<IdempotencyEntry | null>;
  takeOver(scope: string, key: string, seen: IdempotencyEntry, requestHash: string, claimedAt: Date, expiresAt: Date | null): Promise<boolean>;
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
 * The commit id of the write that completed the claim of `key` made at `claimedAt` in `scope` of `service`
 * (memory, files): the same for the original request and every replay, different for a later claim of the
 * same key (after a forget, or after the 24 h TTL). The billing ledger charges one entry per commit id
 * (docs/api.md "After a 500 or a timeout"). Shape: `<service>:<40 hex digits>`.
 */
export function idempotentCommitId(service: string, scope: string, key: string, claimedAt: Date): string {
  return `${service}:${sha256Hex(`${scope}\n${key}\n${claimedAt.getTime()}`).slice(0, 40)}`;
}

/**
 * A pending entry without a deadline (`expiresAt` null: a claim made outside a bus request, or before
 * deadlines were stored) older than this is taken to be abandoned by a crashed process (a remember or
 * write takes well under a second; the gateway gives up on the bus after BUS_REQUEST_TIMEOUT_MS, 10-30 s).
 * A claim with a deadline is abandoned once that deadline has passed: its request commits nothing later.
 */
export const IDEMPOTENCY_ABANDONED_AFTER_MS = 30_000;
const POLL_MS = 50;
/** How long a request waits for a pending claim of its key to finish before answering 429 (at most). */
export const IDEMPOTENCY_WAIT_FOR_PENDING_MS = 5_000;
/** A waiting request answers this long before its own deadline at the latest, so its reply is not lost. */
const WAIT_MARGIN_MS = 1_000;

/** When a pending entry may be taken over (epoch ms): its deadline, or `createdAt` + 30 s without one. */
export function claimAbandonedAt(entry: IdempotencyEntry): number {
  return entry.expiresAt ? entry.expiresAt.getTime() : entry.createdAt.getTime() + IDEMPOTENCY_ABANDONED_AFTER_MS;
}

/**
 * RATE_LIMITED (429, with Retry-After) for a key whose first request is still in progress: a retry is
 * answered once that request finishes, and is sure to be served (a replay, or a takeover) after
 * `retryAfterSeconds`, when the claim expires (docs/api.md "Idempotency keys").
 */
function stillInProgress(entry: IdempotencyEntry, now: number): RateLimitedError {
  const seconds = Math.max(1, Math.ceil((claimAbandonedAt(entry) - now) / 1000));
  return new RateLimitedError(`idempotency_key: a request with this key is still in progress; retry after ${seconds} s with the same key`, seconds);
}

/**
 * What a request answers once its claim was lost ({@link IdempotencyClaimLostError}): the completed
 * entry's response as a replay (with the claim time of the write that completed it) when the new owner
 * finished with the same body; VALIDATION_ERROR for another body; RATE_LIMITED while the new owner is
 * still in progress: the same answers {@link claimIdempotencyKey} gives.
 */
export function answerAfterLostClaim(entry: IdempotencyEntry | null, requestHash: string, now: number = Date.now()): { claimed: false; replay: unknown; claimedAt: Date } {
  if (entry && entry.requestHash !== requestHash) {
    throw new ValidationError('idempotency_key: this key was already used with a different request body');
  }
  if (entry?.status === 'completed') return { claimed: false, replay: entry.response, claimedAt: entry.createdAt };
  if (entry) throw stillInProgress(entry, now);
  throw new RateLimitedError('idempotency_key: a request with this key is still in progress; retry after 1 s with the same key', 1);
}

/**
 * Claims an idempotency key before a write (docs/api.md, "Idempotency keys"): `{ replay, claimedAt }` when the same key and
 * body already completed (the caller returns `replay`; `claimedAt` names the write, see
 * {@link idempotentCommitId}), `{ claimed: true, claimedAt }` when the caller must do the write and then
 * mark the entry completed in the write's own transaction (or `release` it on failure). The same key with
 * another body is VALIDATION_ERROR. Entries expire after 24 h.
 *
 * The claim expires with the deadline of the bus request being handled ({@link requestDeadline}): that
 * request commits nothing after it, so another request with the same key takes the claim over then. Until
 * then a concurrent request waits for the first to finish, at most {@link IDEMPOTENCY_WAIT_FOR_PENDING_MS}
 * (and not past its own deadline), then answers RATE_LIMITED with Retry-After = the seconds until the
 * claim expires. `claimedAt` (ms precision, from `now`) identifies this claim for the guarded completion
 * and for `release`.
 */
export async function claimIdempotencyKey(
  store: IdempotencyStore,
  scope: string,
  key: string,
  requestHash: string,
  now: () => number = Date.now,
): Promise<{ claimed: true; claimedAt: Date } | { claimed: false; replay: unknown; claimedAt: Date }> {
  const ownDeadline = requestDeadline();
  const expiresAt = ownDeadline === undefined ? null : new Date(ownDeadline);
  const waitUntil = Math.min(now() + IDEMPOTENCY_WAIT_FOR_PENDING_MS, ownDeadline === undefined ? Infinity : ownDeadline - WAIT_MARGIN_MS);
  for (;;) {
    const claimedAt = new Date(now());
    const existing = await store.claim(scope, key, requestHash, claimedAt, expiresAt);
    if (!existing) return { claimed: true, claimedAt };
    const expired = now() - existing.createdAt.getTime() > IDEMPOTENCY_TTL_SECONDS * 1000;
    const abandoned = existing.status === 'pending' && now() > claimAbandonedAt(existing);
    if (expired || abandoned) {
      const takenAt = new Date(Math.max(now(), existing.createdAt.getTime() + 1));
      if (await store.takeOver(scope, key, existing, requestHash, takenAt, expiresAt)) return { claimed: true, claimedAt: takenAt };
      continue;
    }
    if (existing.requestHash !== requestHash) {
      throw new ValidationError('idempotency_key: this key was already used with a different request body');
    }
    if (existing.status === 'completed') return { claimed: false, replay: existing.response, claimedAt: existing.createdAt };
    if (now() >= waitUntil) throw stillInProgress(existing, now());
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

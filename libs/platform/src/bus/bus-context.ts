import { AsyncLocalStorage } from 'node:async_hooks';
import { DomainError } from '@agent-memory/shared';

/**
 * Metadata carried beside every bus message (NATS headers in cluster mode; in-process otherwise):
 * the correlation id and, once the gateway has authenticated the caller, the principal (docs/architecture.md, "Security of the bus":
 * "Requests carry a correlation id and the authenticated principal (agent id, key environment) in
 * headers"). Services log them; their logic takes the agent id from the validated message body.
 */
export interface BusHeaders {
  /** Correlation id of the HTTP request that caused the message; appears in every log line. */
  requestId: string;
  /** The authenticated agent the request acts for (absent before authentication and for anonymous calls). */
  agentId?: string;
  /** Environment of that agent and its key. */
  keyEnvironment?: 'live' | 'test';
  /**
   * Deadline of a bus request, epoch milliseconds (the sender's clock): the sender stops waiting for the
   * reply {@link BUS_REPLY_GRACE_MS} after it, so a write must not commit once it has passed
   * ({@link assertBeforeDeadline}). Set per request by `BusClient`; never carried by events.
   */
  deadline?: number;
}

/**
 * How long a sender keeps waiting for a reply after the request's deadline, ms. A write checks the
 * deadline inside its transaction just before COMMIT; the grace covers the COMMIT itself, the reply's
 * way back and clock skew between hosts, so a timeout seen by the sender means "not applied" unless
 * those take longer than this (docs/api.md "After a 500 or a timeout").
 */
export const BUS_REPLY_GRACE_MS = 3_000;

/** The deadline of the bus request being handled (epoch ms), if the sender gave one. */
export function requestDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}

/**
 * Thrown by {@link assertBeforeDeadline} inside a write transaction (to roll it back) when the request's
 * deadline has passed: the sender has stopped waiting (or is about to), so the write must not be applied.
 * It reaches the sender, if at all, as INTERNAL_ERROR (a 500 that means "not applied").
 */
export class DeadlineExceededError extends DomainError {
  constructor(readonly deadline: number) {
    super('INTERNAL_ERROR', `The request's deadline (${new Date(deadline).toISOString()}) passed before the write was committed; nothing was written`);
  }
}

/** Throws {@link DeadlineExceededError} when the current bus request's deadline has passed (no-op without one). */
export function assertBeforeDeadline(now: number = Date.now()): void {
  const deadline = requestDeadline();
  if (deadline !== undefined && now > deadline) throw new DeadlineExceededError(deadline);
}

const storage = new AsyncLocalStorage<BusHeaders>();

/** Runs `fn` with `headers` as the current bus context, so that messages sent inside carry them. */
export function runWithBusHeaders<T>(headers: BusHeaders, fn: () => T): T {
  return storage.run(headers, fn);
}

/**
 * Records the authenticated principal in the current bus context (the gateway calls it from its
 * authentication guards), so that every message sent for the rest of the request carries it. No-op
 * outside a bus context.
 */
export function setBusPrincipal(principal: { agentId: string; keyEnvironment: 'live' | 'test' }): void {
  const headers = storage.getStore();
  if (!headers) return;
  headers.agentId = principal.agentId;
  headers.keyEnvironment = principal.keyEnvironment;
}

/** The fields of the current bus headers worth a log line: request id and, when known, agent id. */
export function busLogFields(): { requestId?: string; agentId?: string } {
  const headers = storage.getStore();
  if (!headers) return {};
  return headers.agentId ? { requestId: headers.requestId, agentId: headers.agentId } : { requestId: headers.requestId };
}

/** The bus headers of the current async context, if any. */
export function currentBusHeaders(): BusHeaders | undefined {
  return storage.getStore();
}

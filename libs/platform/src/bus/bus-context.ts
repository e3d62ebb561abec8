import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Metadata carried beside every bus message (NATS headers in cluster mode; in-process otherwise):
 * the correlation id and, once the gateway has authenticated the caller, the principal (DESIGN.md §1:
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

import { AgentMemory, AgentMemoryError, AgentMemoryNetworkError } from '@agent-memory/client';

/** sessionStorage key of the passkey session token: kept for the tab only, gone when it closes. */
const SESSION_KEY = 'agent-memory.session';

/** The session token saved for this tab, if any. */
export function savedSessionToken(): string | undefined {
  return sessionStorage.getItem(SESSION_KEY) ?? undefined;
}

/** Saves (or, with undefined, forgets) the session token for this tab. */
export function saveSessionToken(token: string | undefined): void {
  if (token === undefined) sessionStorage.removeItem(SESSION_KEY);
  else sessionStorage.setItem(SESSION_KEY, token);
}

/**
 * A client of the public API on this page's own origin, with the human's session (`Authorization:
 * Passkey`). Reads are retried by the SDK's rules; paid reads are not repeated after a lost answer.
 */
export function apiClient(sessionToken?: string): AgentMemory {
  return new AgentMemory({ baseUrl: window.location.origin, ...(sessionToken ? { sessionToken } : {}), retries: 1, timeoutMs: 30_000 });
}

/** A one-line message for an error of a call (the API's message, or what went wrong on the way). */
export function errorMessage(error: unknown): string {
  if (error instanceof AgentMemoryError) return error.message;
  if (error instanceof AgentMemoryNetworkError) return 'The service did not answer. Check your connection and try again.';
  if (error instanceof Error) return error.message;
  return String(error);
}

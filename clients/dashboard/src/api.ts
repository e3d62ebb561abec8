import { AgentMemory, AgentMemoryError, AgentMemoryNetworkError } from '@agent-memory/client';

/** Paths of the sign-in ceremonies and logout: their 401 is an answer to that call, not the end of the session. */
const AUTH_PATH = '/api/v1/auth/';

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
export function apiClient(sessionToken?: string, onUnauthorized?: () => void): AgentMemory {
  const base = globalThis.fetch.bind(globalThis);
  // any 401 to a call made with the session (outside the /auth/ ceremonies) means the session is over
  const watched: typeof fetch = async (input, init) => {
    const response = await base(input, init);
    if (response.status === 401 && sessionToken && onUnauthorized && !requestUrl(input).includes(AUTH_PATH)) onUnauthorized();
    return response;
  };
  return new AgentMemory({ baseUrl: window.location.origin, ...(sessionToken ? { sessionToken } : {}), fetch: watched, retries: 1, timeoutMs: 30_000 });
}

function requestUrl(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** True for the SDK's UnauthorizedError (any {@link AgentMemoryError} with status 401). */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof AgentMemoryError && error.status === 401;
}

/** A one-line message for an error of a call (the API's message, or what went wrong on the way). */
export function errorMessage(error: unknown): string {
  if (error instanceof AgentMemoryError) return error.message;
  if (error instanceof AgentMemoryNetworkError) return 'The service did not answer. Check your connection and try again.';
  if (error instanceof Error) return error.message;
  return String(error);
}

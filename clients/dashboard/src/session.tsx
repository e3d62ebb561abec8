import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import type { AgentMemory, Human, HumanWithSession } from '@agent-memory/client';
import { apiClient, errorMessage, isUnauthorized, saveSessionToken, savedSessionToken } from './api';

/** The notice the sign-in page shows after the API refused the tab's session (401) mid-session. */
export const SESSION_ENDED = 'Your session ended. Sign in again.';

/** The signed-in human (or none) and the API client that acts for them. */
export interface Session {
  /** The client; it carries the session token once signed in. Any 401 it receives ends the session (see {@link expired}). */
  client: AgentMemory;
  /**
   * The signed-in human and the tab's session (`human.session`: `method` `passkey`, or `siwe` with the
   * `walletAddress` whose agents alone it reaches), undefined when signed out, null while the saved
   * session is being checked.
   */
  human: HumanWithSession | undefined | null;
  /** Why the saved session could not be checked (network, 429, 5xx); the token is kept and {@link retry} checks again. */
  loadError: string | undefined;
  /** A notice for the sign-in page, e.g. {@link SESSION_ENDED}; cleared by the next sign-in. */
  notice: string | undefined;
  /**
   * Call after a ceremony answered a session: keeps the token for this tab. `how`: the session's method,
   * its wallet (Sign in with Ethereum; else null) and expiry, as the ceremony's answer says.
   */
  signedIn(token: string, human: Human, how: HumanWithSession['session']): void;
  /** Re-reads the account (e.g. after adding or removing a passkey). */
  refresh(): Promise<void>;
  /** Checks the saved session again after {@link loadError}. */
  retry(): void;
  /** The API refused the session (401): forgets it in this tab and shows the sign-in page with {@link SESSION_ENDED}. */
  expired(): void;
  /** Ends the session on the server and in this tab; a failed logout still signs out here. */
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | undefined>(undefined);

/**
 * Provides {@link Session} to the app; restores a token saved in this tab. Every call of its client that
 * the API answers 401 (an expired, signed-out or deleted session; docs/authentication.md, "Passkeys
 * (humans)") ends the session in the tab: the pages need not catch it. Only 401 does: a network error,
 * 429 or 5xx while checking the saved session keeps the token and offers a retry.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | undefined>(() => savedSessionToken());
  const [human, setHuman] = useState<HumanWithSession | undefined | null>(() => (savedSessionToken() ? null : undefined));
  const [loadError, setLoadError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [attempt, setAttempt] = useState(0);

  const expired = useCallback(() => {
    saveSessionToken(undefined);
    setToken(undefined);
    setHuman(undefined);
    setLoadError(undefined);
    setNotice(SESSION_ENDED);
  }, []);
  // `expired` is stable: the client is made again only for a new token
  const client = useMemo(() => apiClient(token, expired), [token, expired]);

  const refresh = useCallback(async () => {
    if (!token) return setHuman(undefined);
    // a 401 has already ended the session (the client's hook); other errors leave the account as it was
    const me = await client.humans.me();
    setHuman(me);
  }, [client, token]);

  // a token saved in this tab is checked once, when the page loads (and again on "Retry")
  useEffect(() => {
    if (human !== null || !token) return;
    let current = true;
    client.humans.me().then(
      (me) => current && setHuman(me),
      (error: unknown) => {
        if (!current || isUnauthorized(error)) return; // 401: expired() ran
        setLoadError(errorMessage(error));
      },
    );
    return () => {
      current = false;
    };
  }, [client, human, token, attempt]);

  const value = useMemo<Session>(
    () => ({
      client,
      human,
      loadError,
      notice,
      signedIn(newToken, signedInHuman, how) {
        saveSessionToken(newToken);
        setToken(newToken);
        setHuman({ ...signedInHuman, session: how });
        setNotice(undefined);
        setLoadError(undefined);
      },
      refresh,
      retry() {
        setLoadError(undefined);
        setAttempt((n) => n + 1);
      },
      expired,
      async signOut() {
        try {
          await client.humans.logout();
        } catch {
          // the server may be unreachable or the session already over: this tab forgets it anyway
        } finally {
          saveSessionToken(undefined);
          setToken(undefined);
          setHuman(undefined);
          setNotice(undefined);
        }
      },
    }),
    [client, human, loadError, notice, refresh, expired],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The current {@link Session}; only inside {@link SessionProvider}. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** A passkey session's description for {@link Session.signedIn}: it reaches the whole account. */
export function passkeySession(expiresAt: string): HumanWithSession['session'] {
  return { method: 'passkey', walletAddress: null, expiresAt };
}

/** `0xAbCd…1234`: a wallet address, shortened for text. */
export function shortWallet(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

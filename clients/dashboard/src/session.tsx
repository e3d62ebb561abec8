import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import type { AgentMemory, Human } from '@agent-memory/client';
import { apiClient, saveSessionToken, savedSessionToken } from './api';

/** The signed-in human (or none) and the API client that acts for them. */
export interface Session {
  /** The client; it carries the session token once signed in. */
  client: AgentMemory;
  /** The signed-in human, undefined when signed out, null while the saved session is being checked. */
  human: Human | undefined | null;
  /** Call after a ceremony answered a session: keeps the token for this tab. */
  signedIn(token: string, human: Human): void;
  /** Re-reads the account (e.g. after adding or removing a passkey). */
  refresh(): Promise<void>;
  /** Ends the session on the server and in this tab. */
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | undefined>(undefined);

/** Provides {@link Session} to the app; restores a token saved in this tab. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | undefined>(() => savedSessionToken());
  const [human, setHuman] = useState<Human | undefined | null>(() => (savedSessionToken() ? null : undefined));
  const client = useMemo(() => apiClient(token), [token]);

  const refresh = useCallback(async () => {
    try {
      const me = token ? await client.humans.me() : undefined;
      setHuman(me);
    } catch {
      // an expired or signed-out session: back to the sign-in page
      saveSessionToken(undefined);
      setToken(undefined);
      setHuman(undefined);
    }
  }, [client, token]);

  // a token saved in this tab is checked once, when the page loads
  useEffect(() => {
    if (human !== null || !token) return;
    let current = true;
    client.humans.me().then(
      (me) => current && setHuman(me),
      () => {
        if (!current) return;
        saveSessionToken(undefined);
        setToken(undefined);
        setHuman(undefined);
      },
    );
    return () => {
      current = false;
    };
  }, [client, human, token]);

  const value = useMemo<Session>(
    () => ({
      client,
      human,
      signedIn(newToken, signedInHuman) {
        saveSessionToken(newToken);
        setToken(newToken);
        setHuman(signedInHuman);
      },
      refresh,
      async signOut() {
        try {
          await client.humans.logout();
        } finally {
          saveSessionToken(undefined);
          setToken(undefined);
          setHuman(undefined);
        }
      },
    }),
    [client, human, refresh],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The current {@link Session}; only inside {@link SessionProvider}. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

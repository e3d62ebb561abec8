import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, startE2eServer } from '@agent-memory/test-support';

/**
 * The server and helpers of the authentication suites (docs/authentication.md): auth.e2e-spec.ts (agent
 * keys, environments, wallet signatures, the HTTP edge) and auth-passkeys.e2e-spec.ts (passkeys for
 * humans).
 */
export const ORIGIN = 'http://localhost:8080';
export let server: E2eServer;
export let api: ApiClient;

/** Registers the suite's hooks: `beforeAll` starts the server (passkeys for ORIGIN, billing in ledger mode), `afterAll` removes it. */
export function useAuthServer(): void {
  beforeAll(async () => {
    server = await startE2eServer({ env: { PASSKEY_ORIGINS: ORIGIN, PASSKEY_RP_ID: 'localhost', BILLING_MODE: 'ledger' } });
    api = new ApiClient(server.url);
  }, 180_000);
  afterAll(() => server?.close({ removeData: true }));
}

export const passkey = (token: string) => ({ authorization: `Passkey ${token}` });

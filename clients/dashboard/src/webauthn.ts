import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { AgentMemory, HumanSession, WebAuthnCredentialJson } from '@agent-memory/client';
import { errorMessage } from './api';

/**
 * The passkey ceremonies of the dashboard (docs/authentication.md, "Passkeys (humans)"): options from the
 * API, the browser's `navigator.credentials.create/get` through `@simplewebauthn/browser`, then the
 * verify call that answers a session. Errors are turned into one-line messages by {@link passkeyErrorMessage}.
 */

type Options = Parameters<typeof startRegistration>[0]['optionsJSON'];

/**
 * Registers a new passkey. With `name` (and a client without a session): a new account; with a client
 * that holds a session: a passkey added to that account (the name is then ignored by the API).
 * Resolves to the session the API answers. Throws the browser's error (see {@link passkeyErrorMessage}) or
 * the API's (401 when the ceremony does not verify).
 */
export async function registerPasskey(client: AgentMemory, name?: string): Promise<HumanSession> {
  const { options } = await client.humans.registerOptions(name === undefined ? {} : { name });
  const credential = await startRegistration({ optionsJSON: options as unknown as Options });
  return client.humans.registerVerify(credential as unknown as WebAuthnCredentialJson);
}

/** Signs in with any passkey of this site (discoverable credentials: no user name asked). Errors as {@link registerPasskey}. */
export async function signInWithPasskey(client: AgentMemory): Promise<HumanSession> {
  const { options } = await client.humans.loginOptions();
  const assertion = await startAuthentication({ optionsJSON: options });
  return client.humans.loginVerify(assertion as unknown as WebAuthnCredentialJson);
}

/**
 * A message for a failed ceremony: the browser's refusals by their DOMException name (NotAllowedError: the
 * user cancelled, failed verification, or the request timed out; InvalidStateError on registration: this
 * authenticator already holds a passkey of the account; SecurityError: the page's origin does not match the
 * relying party the server is configured for), otherwise the API's message (e.g. its 401).
 */
export function passkeyErrorMessage(error: unknown, ceremony: 'register' | 'sign-in'): string {
  const name = error instanceof Error ? error.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey request was cancelled or timed out. Try again.';
  if (name === 'InvalidStateError' && ceremony === 'register') return 'This device already has a passkey for this site. Sign in with it instead, or use another device.';
  if (name === 'SecurityError') {
    return `The browser refused the passkey: this page's address (${window.location.origin}) does not match the site the server binds passkeys to. The operator must set PASSKEY_RP_ID to this domain and list this origin in PASSKEY_ORIGINS.`;
  }
  if (name === 'NotSupportedError') return 'This browser or device does not support passkeys.';
  return errorMessage(error);
}

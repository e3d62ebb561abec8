import type { BusSigner, BusVerifier } from './bus-signature';
import { natsInboxPrefix } from './nats-permissions';

/**
 * Credentials and keys of one process's NATS connections (docs/configuration.md, "Bus authentication"):
 * its NATS user (the inbox prefix follows from it), and the gateway's signing key or the services'
 * verifying key.
 */
export interface NatsAuthOptions {
  /** NATS user and password; without them the connection is anonymous (a NATS server without authorization). */
  user?: string;
  pass?: string;
  /** Signs every message this process sends (the gateway). */
  signer?: BusSigner;
  /** Verifies the principal of every request this process serves. */
  verifier?: BusVerifier;
}

/** Connection options (nats.js) for `auth`: credentials and the user's private inbox prefix. */
export function natsConnectionOptions(auth: NatsAuthOptions = {}): { user?: string; pass?: string; inboxPrefix?: string } {
  return auth.user ? { user: auth.user, pass: auth.pass, inboxPrefix: natsInboxPrefix(auth.user) } : {};
}

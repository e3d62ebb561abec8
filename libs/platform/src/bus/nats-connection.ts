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

/**
 * Connection options (nats.js) for `auth`: credentials and the user's private inbox prefix, and
 * `noAsyncTraces`. By default nats.js captures a JavaScript stack (`new Error()`) for every request and
 * every subscription with a timeout, only to attach the caller's frames to a timeout error. A failed
 * request is mapped to the spec's INTERNAL_ERROR by its code alone (nats-bus.client.ts), so that capture
 * (two per request) is pure cost on every bus hop (docs/architecture.md, "What a bus hop costs"). What is
 * lost: a timed-out request or JetStream publish no longer carries its caller's frames in a log's stack.
 */
export function natsConnectionOptions(auth: NatsAuthOptions = {}): { user?: string; pass?: string; inboxPrefix?: string; noAsyncTraces: true } {
  return auth.user ? { user: auth.user, pass: auth.pass, inboxPrefix: natsInboxPrefix(auth.user), noAsyncTraces: true } : { noAsyncTraces: true };
}

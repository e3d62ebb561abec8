import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs } from 'nats';
import { type BusHeaders, currentBusHeaders } from './bus-context';
import { type BusSigner, type BusVerifier, SIGNATURE_HEADER, SIGNED_AT_HEADER } from './bus-signature';

/** NATS header carrying the correlation id (the HTTP request id) beside every message. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** NATS headers of the authenticated principal ({@link BusHeaders}). */
export const AGENT_ID_HEADER = 'x-agent-id';
export const KEY_ENVIRONMENT_HEADER = 'x-key-environment';
/** NATS header of a request's deadline, epoch milliseconds ({@link BusHeaders.deadline}); never on events. */
export const DEADLINE_HEADER = 'x-deadline';

/**
 * NATS headers of a message sent from the current bus context. The principal crosses only when this
 * process signs (the gateway): a principal another service forwarded could not be told from a forged one,
 * so services send the correlation id alone. A request carries its deadline (set by `BusClient`); an
 * event never does: its consumers handle it whenever it arrives.
 */
export function headersFromContext(signing: boolean, kind: 'request' | 'event' = 'request'): MsgHdrs {
  const h = natsHeaders();
  const current = currentBusHeaders() ?? { requestId: randomUUID() };
  h.set(REQUEST_ID_HEADER, current.requestId);
  if (signing && current.agentId) h.set(AGENT_ID_HEADER, current.agentId);
  if (signing && current.keyEnvironment) h.set(KEY_ENVIRONMENT_HEADER, current.keyEnvironment);
  if (kind === 'request' && current.deadline !== undefined) h.set(DEADLINE_HEADER, String(current.deadline));
  return h;
}

/** Adds the signing time and signature of `signer` over (`subject`, headers, `body`) to `h`. */
export function signHeaders(signer: BusSigner, subject: string, h: MsgHdrs, body: Uint8Array): void {
  const signedAt = Date.now();
  h.set(SIGNED_AT_HEADER, String(signedAt));
  const fields = { subject, requestId: h.get(REQUEST_ID_HEADER), agentId: h.get(AGENT_ID_HEADER) || undefined, keyEnvironment: h.get(KEY_ENVIRONMENT_HEADER) || undefined, deadline: h.get(DEADLINE_HEADER) || undefined };
  h.set(SIGNATURE_HEADER, signer.sign({ ...fields, signedAt, body }));
}

/** Headers whose principal {@link principalRefusal} verified (only these are trusted by {@link busHeadersFrom}). */
const verifiedHeaders = new WeakSet<object>();

/**
 * Why a received request may not run (its principal is not vouched for), or undefined. A message that
 * carries a principal or a signature must bear a valid, fresh signature of the gateway over its subject,
 * headers and exact body (`verifier`; without one no principal is trusted); one without either runs
 * without a principal (a service's own call). Headers that pass are remembered as verified, so
 * {@link busHeadersFrom} then reads the principal from them.
 */
export function principalRefusal(verifier: BusVerifier | undefined, msg: { subject: string; data: Uint8Array; headers?: MsgHdrs }): string | undefined {
  const h = msg.headers;
  if (!h) return undefined;
  const agentId = h.get(AGENT_ID_HEADER) || undefined;
  const keyEnvironment = h.get(KEY_ENVIRONMENT_HEADER) || undefined;
  const signature = h.get(SIGNATURE_HEADER) || undefined;
  if (!agentId && !keyEnvironment && !signature) return undefined;
  if (!verifier) return 'this service has no key to verify the principal with';
  const fields = { subject: msg.subject, requestId: h.get(REQUEST_ID_HEADER), agentId, keyEnvironment, deadline: h.get(DEADLINE_HEADER) || undefined, body: msg.data };
  const failure = verifier.verify(fields, h.get(SIGNED_AT_HEADER) || undefined, signature);
  if (failure) return `the principal is not signed by the gateway (${failure})`;
  verifiedHeaders.add(h);
  return undefined;
}

/**
 * Bus context of a received message: the correlation id, a request's deadline (it can only make the
 * receiver refuse a write, so it needs no signature), and the principal only from verified headers.
 */
export function busHeadersFrom(h: MsgHdrs | undefined, kind: 'request' | 'event' = 'request'): BusHeaders {
  const headers: BusHeaders = { requestId: h?.get(REQUEST_ID_HEADER) || randomUUID() };
  const deadline = Number(h?.get(DEADLINE_HEADER) || NaN);
  if (kind === 'request' && Number.isSafeInteger(deadline) && deadline > 0) headers.deadline = deadline;
  if (!h || !verifiedHeaders.has(h)) return headers;
  const agentId = h.get(AGENT_ID_HEADER);
  const keyEnvironment = h.get(KEY_ENVIRONMENT_HEADER);
  if (agentId) headers.agentId = agentId;
  if (keyEnvironment === 'live' || keyEnvironment === 'test') headers.keyEnvironment = keyEnvironment;
  return headers;
}

import type { FastifyReply } from 'fastify';
import type { PaymentTarget, VerifiedPayment } from './payment-protocol';

/**
 * What {@link PaymentAuthGuard} learnt about a paid request, for the handler and the UsageRecorder: the
 * reply (to attach `Payment-Receipt`), what is being paid for, and the verified credential when the caller
 * pays with `Authorization: Payment`. Kept beside the request, not on it, so the auth state stays as is.
 */
export interface PaymentState {
  reply: FastifyReply;
  target: PaymentTarget;
  verified?: VerifiedPayment;
  /**
   * The record whose owner agent the guard proved to be the payer (records.resolveOwner, then that agent's
   * wallet against the credential's signer): the record access check needs no second lookup for it.
   */
  ownerProvenFor?: string;
}

const states = new WeakMap<object, PaymentState>();

/** Attaches the payment state to a request (one per request). */
export function setPaymentState(req: object, state: PaymentState): void {
  states.set(req, state);
}

/** The request's payment state, or undefined on routes without {@link PaymentAuthGuard}. */
export function paymentStateOf(req: object): PaymentState | undefined {
  return states.get(req);
}

/**
 * Whether {@link PaymentAuthGuard} already proved that the request's principal owns `recordId` (a call paid
 * with a verified Payment credential signed by the record's owner agent's wallet); RecordAccessGuard then
 * skips its own `records.resolve-access` round trip.
 */
export function recordOwnerProven(req: object, recordId: string): boolean {
  return states.get(req)?.ownerProvenFor === recordId;
}

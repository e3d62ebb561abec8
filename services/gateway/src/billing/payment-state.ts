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

import type { PaymentOptions } from './billing/payment.options';

/** Billing modes (docs/billing.md): `off` records nothing, `ledger` records usage, `enforce` also requires payment (balance or Payment credential). */
export type BillingMode = 'off' | 'ledger' | 'enforce';

/** Options of the gateway, parsed from the environment by the launcher. */
export interface GatewayOptions {
  /** Spec rate limits on (default) or off (benchmarks only). */
  rateLimitsEnabled: boolean;
  /** Requests per minute per client address for calls without an agent (create agent). */
  anonymousPerMinute: number;
  billingMode: BillingMode;
  /** The `Payment` authentication scheme (docs/billing.md); defaults: see `paymentOptionsFromEnv`. */
  payments?: PaymentOptions;
  /** Accepted clock skew of wallet signatures, seconds (DESIGN.md §4: ±300 s). */
  signatureWindowSeconds: number;
}
export const GATEWAY_OPTIONS = Symbol('GatewayOptions');

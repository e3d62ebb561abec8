/** Billing modes (DESIGN.md §4): `off` records nothing, `ledger` records usage, `enforce` also requires payment (a later issue). */
export type BillingMode = 'off' | 'ledger' | 'enforce';

/** Options of the gateway, parsed from the environment by the launcher. */
export interface GatewayOptions {
  /** Spec rate limits on (default) or off (benchmarks only). */
  rateLimitsEnabled: boolean;
  /** Requests per minute per client address for calls without an agent (create agent). */
  anonymousPerMinute: number;
  billingMode: BillingMode;
  /** Accepted clock skew of wallet signatures, seconds (DESIGN.md §4: ±300 s). */
  signatureWindowSeconds: number;
}
export const GATEWAY_OPTIONS = Symbol('GatewayOptions');

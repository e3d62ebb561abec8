import type { SignatureRealm } from './auth/wallet-signature';
import type { PaymentOptions } from './billing/payment.options';

/** Billing modes (docs/billing.md): `off` records nothing, `ledger` records usage, `enforce` also requires payment (balance or Payment credential). */
export type BillingMode = 'off' | 'ledger' | 'enforce';

/** Options of the gateway, parsed from the environment by the launcher. */
export interface GatewayOptions {
  /** The rate limits of docs/api.md on (default) or off (benchmarks only). */
  rateLimitsEnabled: boolean;
  /** Requests per minute per client address for calls without an agent (create agent). */
  anonymousPerMinute: number;
  billingMode: BillingMode;
  /** The `Payment` authentication scheme (docs/billing.md); defaults: see `paymentOptionsFromEnv`. */
  payments?: PaymentOptions;
  /** Accepted clock skew of wallet signatures, seconds (±300 s by default; docs/authentication.md). */
  signatureWindowSeconds: number;
  /**
   * The deployment's domain in every signed message (`SIGNATURE_DOMAIN`, docs/authentication.md); with
   * the payment chain id it makes a wallet signature valid on this deployment only. Default `localhost`.
   */
  signatureDomain?: string;
}
export const GATEWAY_OPTIONS = Symbol('GatewayOptions');

/** `SIGNATURE_DOMAIN` when none is configured (docs/configuration.md derives it from `PASSKEY_ORIGINS`). */
export const DEFAULT_SIGNATURE_DOMAIN = 'localhost';
/** EIP-155 chain id when no payment options are given: Base Sepolia, `PAYMENT_CHAIN_ID`'s default. */
const DEFAULT_CHAIN_ID = 84532;

/** The deployment a wallet signature must name: the configured domain and the payment chain id. */
export function signatureRealmOf(options: Pick<GatewayOptions, 'signatureDomain' | 'payments'>): SignatureRealm {
  return { domain: options.signatureDomain ?? DEFAULT_SIGNATURE_DOMAIN, chainId: options.payments?.chainId ?? DEFAULT_CHAIN_ID };
}

/**
 * An EIP-3009 `transferWithAuthorization` signed by the payer, as carried by an `evm/charge` Payment
 * credential (Machine Payments Protocol). Amounts are token base units as decimal strings (USDC: 6
 * decimals, so `"50000"` is 0.05 USD); times are Unix seconds as decimal strings.
 */
export interface TransferAuthorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  /** 32-byte nonce; mppx sets it to keccak256(challenge id ‖ realm), so it is unique per challenge. */
  nonce: `0x${string}`;
  signature: `0x${string}`;
}

/** What to settle: the authorization, the token and chain it is for, and the challenge it pays. */
export interface SettlementRequest {
  challengeId: string;
  chainId: number;
  /** Token contract address. */
  currency: `0x${string}`;
  authorization: TransferAuthorization;
  /**
   * Called with the settlement's reference (on chain: the signed transaction's hash) once it is known and
   * before the money can move, so that it is stored with the claimed payment for reconciliation. When it
   * rejects, the settlement must not move the money and throws {@link PaymentSettlementError}.
   */
  onSubmitted?: (reference: string) => Promise<void>;
}

/** A settled payment: `reference` is the proof (a transaction hash on chain), shown in the Payment-Receipt. */
export interface SettlementResult {
  reference: string;
  /** ISO 8601 time of settlement; now when omitted. */
  timestamp?: string;
}

/**
 * Port: moves the money of a verified Payment credential (docs/billing.md "Settlement"). The default
 * adapter submits the authorization to the configured chain; tests inject a local one. Replay protection
 * is not the settlement's job: the gateway claims the challenge id in the billing service first.
 * `settle` throws {@link PaymentSettlementError} with a message safe to show when the money did not move.
 */
export interface PaymentSettlement {
  readonly name: string;
  settle(request: SettlementRequest): Promise<SettlementResult>;
}
export const PAYMENT_SETTLEMENT = Symbol('PaymentSettlement');

/** The payment was verified but could not be settled; the message is shown to the caller (402). */
export class PaymentSettlementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentSettlementError';
  }
}

/**
 * The settlement was submitted but its outcome is unknown (no answer from the node, or no receipt in
 * time): the money may have moved. The payment stays `claimed` with `reference` for reconciliation
 * (docs/billing.md "When a settlement is not confirmed"); it is neither failed nor settled.
 */
export class PaymentPendingError extends Error {
  constructor(
    readonly reference: string,
    readonly reason: string,
  ) {
    super(`The transfer ${reference} is not confirmed: ${reason}`);
    this.name = 'PaymentPendingError';
  }
}

/** Settlement when no chain is configured: every payment is refused with the variables to set. */
export class UnconfiguredPaymentSettlement implements PaymentSettlement {
  readonly name = 'unconfigured';

  settle(): Promise<SettlementResult> {
    return Promise.reject(new PaymentSettlementError('Payments cannot be settled on this server: it has no PAYMENT_RECIPIENT, PAYMENT_RPC_URL and PAYMENT_SETTLER_PRIVATE_KEY configured'));
  }
}

import {
  type AgentActivity,
  type BillingClaimPaymentMessage,
  type BillingCreditMessage,
  type BillingEnvironment,
  type BillingRecordUsageMessage,
  type BillingReleaseMessage,
  type BillingReserveMessage,
  type BillingSettlePaidCallMessage,
  type LedgerEntry,
  type PaidOperation,
  type PaymentRecord,
  type Reservation,
  SANDBOX_INITIAL_CREDIT_MICRO_USD,
  type SettlePaidCallReply,
  type UsageSummary,
} from '@agent-memory/shared';

/** How a balance starts the first time it is used: the amount, and the credit reason recorded for it. */
export type BalanceOpening = (environment: BillingEnvironment) => { amountMicroUsd: number; reason: 'sandbox_grant' } | undefined;

/**
 * Opening credit of a balance (docs/billing.md): a test (sandbox) balance starts with `sandboxMicroUsd`
 * (default {@link SANDBOX_INITIAL_CREDIT_MICRO_USD}); a live balance starts at zero and grows only by
 * settled payments (and refunds of paid calls that failed).
 */
export function sandboxOpening(sandboxMicroUsd: number = SANDBOX_INITIAL_CREDIT_MICRO_USD): BalanceOpening {
  return (environment) => (environment === 'test' && sandboxMicroUsd > 0 ? { amountMicroUsd: sandboxMicroUsd, reason: 'sandbox_grant' } : undefined);
}

/** Filter of ledger queries; `from` inclusive, `to` exclusive. */
export interface LedgerFilter {
  agentId: string;
  environment?: BillingEnvironment;
  operation?: PaidOperation;
  from?: Date;
  to?: Date;
}

/** A reservation as held: its charge id, the amount held (micro-USD) and its status. */
export type HeldReservation = Pick<Reservation, 'chargeId' | 'amountMicroUsd' | 'status'>;

/**
 * Port: the billing service's store (schema `billing`; adapter {@link PrismaBillingRepository}): the usage
 * ledger, balances, reservations, payments and credits. Every money movement is keyed (charge id, challenge
 * id, credit id) and happens in one transaction, so a repeated message moves nothing more and parallel
 * calls never overdraw a balance. Amounts are micro-USD. Also the DI token of the adapter.
 */
export abstract class BillingRepository {
  /**
   * Balances (both environments) and the time of the most recent ledger entry of each distinct agent of
   * `agentIds`, in that order, read only: a balance not opened yet reads as its opening credit. Two
   * queries whatever the number of agents (the last entry by the `(agent_id, created_at)` index).
   */
  abstract agentsActivity(agentIds: readonly string[]): Promise<AgentActivity[]>;

  /** The balance in micro-USD (created with its opening credit on first read). */
  abstract balance(agentId: string, environment: BillingEnvironment): Promise<number>;

  /**
   * Reserves `amountMicroUsd` for the call `m.chargeId` by an atomic conditional debit. Returns the
   * reservation (the existing one for a repeated charge id, which debits nothing) and the balance after,
   * or `insufficient` with the balance when it does not cover the amount.
   */
  abstract reserve(m: BillingReserveMessage, amountMicroUsd: number): Promise<{ reservation: HeldReservation; balanceMicroUsd: number } | { insufficient: true; balanceMicroUsd: number }>;

  /**
   * Commits a reservation into exactly one ledger entry (keyed by the charge id); the existing entry when
   * already committed; undefined when there is no live reservation. With `commitId`, a write already charged
   * is not charged again: the reservation is refunded and the entry that charged the write returned.
   */
  abstract commit(chargeId: string, idempotencyKey: string | undefined, commitId: string | undefined): Promise<LedgerEntry | undefined>;

  /**
   * Voids a reservation and refunds it, once; with no reservation yet, leaves a `voided` marker so a late
   * reserve of that charge id debits nothing. `released` only when a held amount was refunded.
   */
  abstract release(m: BillingReleaseMessage): Promise<{ released: boolean; balanceMicroUsd?: number }>;

  /** Voids and refunds every reservation held longer than `olderThanMs`, each exactly once even with several replicas sweeping. */
  abstract sweepReservations(olderThanMs: number): Promise<{ voided: number; refundedMicroUsd: number }>;

  /**
   * Records a ledger entry of `amountMicroUsd` with no balance movement; a repeated charge id returns the
   * first entry; with `commitId`, a write already charged under another charge id returns that entry.
   */
  abstract recordUsage(m: BillingRecordUsageMessage, amountMicroUsd: number): Promise<LedgerEntry>;

  /**
   * Records the ledger entries `entries` (each at its `amountMicroUsd`, no balance movement) in one insert,
   * by the rules of {@link recordUsage}: an entry whose charge id is already there, or whose commit id is
   * already charged (also by an earlier entry of the same batch), writes nothing. Returns how many were written.
   */
  abstract recordUsageBatch(entries: readonly { entry: BillingRecordUsageMessage; amountMicroUsd: number }[]): Promise<number>;

  /** One page of ledger entries (newest first) and the totals over every entry the filter selects. */
  abstract usage(filter: LedgerFilter, limit: number, offset: number): Promise<UsageSummary>;

  /** Claims a challenge id (insert if absent); undefined when it was claimed before. */
  abstract claimPayment(m: BillingClaimPaymentMessage): Promise<PaymentRecord | undefined>;

  /**
   * Moves a `claimed` payment to `settled` or `failed` (a settled top-up credits the live balance once, in
   * the same transaction); `submitted` only stores the reference. Returns the payment (undefined if unknown)
   * and, for a settled top-up, the live balance afterwards.
   */
  abstract completePayment(challengeId: string, outcome: 'settled' | 'failed' | 'submitted', reference: string | undefined): Promise<{ payment?: PaymentRecord; balanceMicroUsd?: number }>;

  /**
   * In one transaction: completes the payment `m.challengeId` as settled with `m.reference`, records the
   * call's ledger entry of `amountMicroUsd` (when `m.recordUsage` and the call is not a replay without a
   * commit id), and, when `refundOf(entry)` says so, credits `refund:<challengeId>` (the payment's amount)
   * to the live balance, once. Undefined when the challenge id is unknown.
   */
  abstract settlePaidCall(
    m: BillingSettlePaidCallMessage,
    amountMicroUsd: number,
    refundOf: (entry: LedgerEntry | undefined) => boolean,
  ): Promise<SettlePaidCallReply | undefined>;

  /** One payment by challenge id, or undefined (operators reconcile `claimed` payments by their reference). */
  abstract payment(challengeId: string): Promise<PaymentRecord | undefined>;

  /** Applies a credit once (by `creditId`); returns the balance afterwards. */
  abstract credit(c: BillingCreditMessage): Promise<number>;
}

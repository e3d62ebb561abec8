import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import {
  type Balance,
  type BillingClaimPaymentMessage,
  BillingCreditMessageSchema,
  type BillingEnvironment,
  type BillingRecordUsageMessage,
  type BillingReleaseMessage,
  type BillingReserveMessage,
  type BillingUsageMessage,
  DomainError,
  type LedgerEntry,
  PaymentRequiredError,
  type PaymentRecord,
  PRICE_LIST_MICRO_USD,
  type Reservation,
  SANDBOX_INITIAL_CREDIT_MICRO_USD,
  type UsageSummary,
  usdLabel,
} from '@agent-memory/shared';
import { type BalanceOpening, BillingRepository, toLedgerEntry, toPaymentRecord } from './persistence/billing.repository';

export const BILLING_REPOSITORY = Symbol('BillingRepository');

/**
 * Opening credit of a balance (docs/billing.md): a test (sandbox) balance starts with `sandboxMicroUsd`
 * (default {@link SANDBOX_INITIAL_CREDIT_MICRO_USD}); a live balance starts at zero and grows only by
 * settled payments (and refunds of paid calls that failed).
 */
export function sandboxOpening(sandboxMicroUsd: number = SANDBOX_INITIAL_CREDIT_MICRO_USD): BalanceOpening {
  return (environment) => (environment === 'test' && sandboxMicroUsd > 0 ? { amountMicroUsd: sandboxMicroUsd, reason: 'sandbox_grant' } : undefined);
}

/**
 * The billing use cases (price list, usage ledger, balances, payments; docs/billing.md): prices come
 * from the shared price list; a paid call is charged exactly once, only when it succeeds, through either a reservation (prepaid balance) or a settled payment.
 */
@Injectable()
export class BillingService {
  constructor(@Inject(BILLING_REPOSITORY) private readonly repo: BillingRepository) {}

  /** Records the charge of one call without a balance movement; returns the entry (the existing one for a repeated chargeId). */
  async recordUsage(usage: BillingRecordUsageMessage): Promise<LedgerEntry> {
    return toLedgerEntry(await this.repo.recordUsage(usage, PRICE_LIST_MICRO_USD[usage.operation]));
  }

  /** An agent's ledger entries, newest first, with the count, sum, and totals per operation and per UTC day. */
  async usage(m: BillingUsageMessage): Promise<UsageSummary> {
    const r = await this.repo.usage(
      { agentId: m.agentId, environment: m.environment, operation: m.operation, from: m.from ? new Date(m.from) : undefined, to: m.to ? new Date(m.to) : undefined },
      m.limit,
      m.offset,
    );
    return { entries: r.rows.map(toLedgerEntry), total: r.total, totalMicroUsd: r.totalMicroUsd, byOperation: r.byOperation, byDay: r.byDay };
  }

  /** The balance of an agent in one environment. */
  async balance(agentId: string, environment: BillingEnvironment): Promise<Balance> {
    return { agentId, environment, balanceMicroUsd: await this.repo.balance(agentId, environment) };
  }

  /**
   * Reserves the operation's price from the balance (atomic conditional debit).
   * @throws PaymentRequiredError when the balance is below the price (nothing is debited).
   */
  async reserve(m: BillingReserveMessage): Promise<Reservation> {
    const price = PRICE_LIST_MICRO_USD[m.operation];
    const r = await this.repo.reserve(m, price);
    if ('insufficient' in r) {
      const where = m.environment === 'test' ? 'sandbox balance' : 'balance';
      throw new PaymentRequiredError(`Insufficient ${where}: ${usdLabel(r.balanceMicroUsd)} available, ${usdLabel(price)} needed for ${m.operation}`);
    }
    return { chargeId: r.reservation.chargeId, amountMicroUsd: r.reservation.amountMicroUsd, status: r.reservation.status as Reservation['status'], balanceMicroUsd: r.balanceMicroUsd };
  }

  /**
   * Turns the reservation into its one ledger entry; with `commitId` (an idempotent write) only if that
   * write was not charged yet, else the reservation is refunded and the entry that charged it returned.
   * @throws DomainError INTERNAL_ERROR when there is no live reservation for the charge id (a gateway bug).
   */
  async commit(chargeId: string, idempotencyKey: string | undefined, commitId?: string): Promise<LedgerEntry> {
    const row = await this.repo.commit(chargeId, idempotencyKey, commitId);
    if (!row) throw new DomainError('INTERNAL_ERROR', `No reservation to commit for ${chargeId}`);
    return toLedgerEntry(row);
  }

  /**
   * Voids the reservation (refund); a repeated release changes nothing; an unknown charge id leaves a
   * `voided` marker, so a reserve of it arriving later (in flight on the bus) debits nothing.
   */
  async release(m: BillingReleaseMessage): Promise<{ chargeId: string; released: boolean }> {
    const r = await this.repo.release(m);
    return { chargeId: m.chargeId, released: r.released };
  }

  /**
   * Voids (refunds) every reservation still held after `olderThanMs` (its commit or release was lost);
   * exactly once per reservation even with several replicas sweeping (docs/billing.md).
   */
  async sweepReservations(olderThanMs: number): Promise<{ voided: number; refundedMicroUsd: number }> {
    return this.repo.sweepReservations(olderThanMs);
  }

  /** One payment by challenge id, or undefined (for reconciliation of `claimed` payments). */
  async payment(challengeId: string): Promise<PaymentRecord | undefined> {
    const row = await this.repo.payment(challengeId);
    return row ? toPaymentRecord(row) : undefined;
  }

  /**
   * Claims a Payment credential's challenge id, once.
   * @throws PaymentRequiredError when the challenge id was claimed before (a replayed credential).
   */
  async claimPayment(m: BillingClaimPaymentMessage): Promise<PaymentRecord> {
    const row = await this.repo.claimPayment(m);
    if (!row) throw new PaymentRequiredError('This payment credential was already used: pay the new challenge');
    return toPaymentRecord(row);
  }

  /**
   * Records a claimed payment's settlement outcome; a settled top-up credits the live balance (once);
   * `submitted` stores the settlement reference and leaves the payment `claimed`.
   * @throws DomainError INTERNAL_ERROR for an unknown challenge id.
   */
  async completePayment(challengeId: string, outcome: 'settled' | 'failed' | 'submitted', reference: string | undefined): Promise<{ payment: PaymentRecord; balance?: Balance }> {
    const r = await this.repo.completePayment(challengeId, outcome, reference);
    if (!r.payment) throw new DomainError('INTERNAL_ERROR', `No claimed payment ${challengeId}`);
    const payment = toPaymentRecord(r.payment);
    return { payment, balance: r.balanceMicroUsd === undefined ? undefined : { agentId: payment.agentId, environment: 'live', balanceMicroUsd: r.balanceMicroUsd } };
  }

  /** Applies a credit once (refund of a paid call that failed; sandbox top-up); returns the balance. */
  async credit(c: z.output<typeof BillingCreditMessageSchema>): Promise<Balance> {
    return { agentId: c.agentId, environment: c.environment, balanceMicroUsd: await this.repo.credit(c) };
  }
}

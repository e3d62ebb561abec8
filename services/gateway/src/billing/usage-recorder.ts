import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  type Balance,
  CompletePaymentReplySchema,
  DomainError,
  ForbiddenError,
  LedgerEntrySchema,
  type PaidOperation,
  PaymentRecordSchema,
  PaymentRequiredError,
  randomBase62,
  BalanceSchema,
  ReservationSchema,
  SettlePaidCallReplySchema,
  SUBJECTS,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { z } from 'zod';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { type GatewayRequest, principalOf } from '../auth/request-context';
import { requestWithRetry } from './bus-retry';
import { PaymentProtocol, PaymentReconciliationError, requestBindingOf, type SettledPayment } from './payment-protocol';
import { paymentStateOf, type PaymentState } from './payment-state';
import { UsageBatch } from './usage-batch';

/** A new charge id: the key of one paid call in the billing service (never the client's x-request-id). */
export function newChargeId(): string {
  return `chg_${randomBase62(22)}`;
}

/**
 * The fields of one paid call's ledger entry that every billing message about it carries (docs/billing.md):
 * its charge id, the request and authenticated principal, the operation, record, idempotency key and the
 * commit id of the write it pays for.
 */
function ledgerFieldsOf(req: GatewayRequest, chargeId: string, p: { operation: PaidOperation; recordId: string; idempotencyKey?: string }, commitId: string | undefined) {
  const principal = principalOf(req);
  return { chargeId, requestId: String(req.id), agentId: principal.agentId, environment: principal.keyEnvironment, operation: p.operation, recordId: p.recordId, idempotencyKey: p.idempotencyKey, commitId };
}

const ReleaseReplySchema = z.object({ chargeId: z.string(), released: z.boolean() });

/**
 * What a paid write's reply says about billing: `replayed` when it was an idempotent replay, and `commitId`
 * (idempotent writes only) naming the write that committed, the same for the original and every replay.
 */
export interface WriteOutcome {
  replayed: boolean;
  commitId?: string;
}
const NOT_A_REPLAY: WriteOutcome = { replayed: false };

/**
 * One paid call for {@link UsageRecorder.paid}: the paid `operation` on `recordId`, the `call` itself,
 * `outcome(result)` saying whether it was an idempotent replay and which write it committed or replayed
 * ({@link WriteOutcome}; default: not a replay, no commit id), and the request's idempotency key (ledger).
 */
export interface PaidCallOptions<T> {
  operation: PaidOperation;
  recordId: string;
  call: () => Promise<T>;
  outcome?: (result: T) => WriteOutcome;
  idempotencyKey?: string;
}

type WithOutcome<T> = PaidCallOptions<T> & { outcome: (result: T) => WriteOutcome };

/** What a settled top-up answers: the live balance afterwards, the amount credited (micro-USD) and the settlement reference. */
export interface TopUpResult {
  balance: Balance;
  creditedMicroUsd: number;
  reference: string;
}

/**
 * The gateway's one money flow (docs/billing.md): charges a paid call exactly once, only when it succeeds
 * (only 2xx, never a free endpoint), by the way the caller pays, and tops up a live balance with a Payment
 * credential. An idempotent write is charged once per committed write, not per request (docs/api.md "After
 * a 500 or a timeout"): its reply names the write (`commitId`), and the ledger takes one entry per commit
 * id, so a replay is charged only when no request of that write was (its original answered 500 although it
 * committed), and otherwise refunded like a replay without one:
 *
 * - `Authorization: Payment`: claim the challenge id (a replay is refused), settle, run the call, then one
 *   billing transaction (`billing.v1.settle-paid-call`) completes the payment, writes the ledger entry and,
 *   for an idempotent replay of a write already charged, credits the paid amount to the agent's live
 *   balance (the money has moved; it is not charged twice); a replay whose write was never charged keeps
 *   the payment. A call that fails: the payment is completed and its amount credited back. A top-up claims and settles the same way ({@link settleCredential}), then
 *   credits the live balance.
 * - Bearer key in `enforce` mode: reserve the price from the balance (atomic conditional debit; 402 with a
 *   challenge when it does not cover it), run the call, then commit the reservation into the ledger entry,
 *   or void it (refund) when the call failed or was a replay of a write already charged (the billing
 *   service decides that inside the commit, by the commit id's unique index).
 * - Bearer key in `ledger` mode: run the call, then write the ledger entry (once per commit id), batched
 *   with the entries of other calls of this process ({@link UsageBatch}); `off`: nothing.
 *
 * With a Bearer key the ledger entry (the commit of the reservation, or the usage record) is written right
 * after the answer rather than before it ({@link afterAnswer}); reads of the agent's usage and balance
 * through this gateway wait for it ({@link settled}), and send a waiting batch at once.
 *
 * Every billing step is keyed (charge id, challenge id, credit id), so a repeated bus message changes nothing;
 * the steps after the money moved or was held (store the settlement reference, complete the payment, refund,
 * commit, release, record usage) are therefore retried ({@link requestWithRetry}: 5 attempts over ~3 s) before
 * the gap is logged for reconciliation. A settlement whose outcome is unknown leaves the payment `claimed` with
 * its reference and answers 402 without a challenge (docs/billing.md "When a settlement is not confirmed").
 */
@Injectable()
export class UsageRecorder implements OnModuleDestroy {
  private readonly logger = new Logger(UsageRecorder.name);
  /** Ledger writes of answered calls still in progress, per agent ({@link afterAnswer}). */
  private readonly pending = new Map<string, Set<Promise<void>>>();
  /** Set by shutdown: ledger writes are then made before the answer. */
  private closing = false;
  /** The ledger entries of `ledger` mode, written in batches ({@link UsageBatch}). */
  private readonly usageBatch: UsageBatch;

  constructor(
    private readonly bus: BusClient,
    private readonly payments: PaymentProtocol,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {
    this.usageBatch = new UsageBatch(bus, this.logger);
  }

  /**
   * Runs `paid.call` as the paid `paid.operation` on `paid.recordId` ({@link PaidCallOptions}). A replay
   * without a commit id is not charged; one with a commit id is charged only if that write never was.
   * Throws what the call throws, or PaymentRequiredError when payment is missing. An erasure by the
   * claiming human's passkey session (`ownerErasure`) just runs: no charge, no ledger entry, no 402.
   */
  async paid<T>(req: GatewayRequest, paid: PaidCallOptions<T>): Promise<T> {
    // The owner's right to erase is not metered: a forget by the claiming human's session is free, in every mode.
    if (req.gateway?.ownerErasure) return paid.call();
    const p: WithOutcome<T> = { ...paid, outcome: paid.outcome ?? (() => NOT_A_REPLAY) };
    const payment = paymentStateOf(req);
    if (payment?.verified) return this.paidByCredential(req, payment, p);
    if (this.options.billingMode === 'enforce') return this.paidFromBalance(req, p);
    const result = await p.call();
    const o = p.outcome(result);
    if (this.options.billingMode === 'ledger' && (!o.replayed || o.commitId)) {
      const entry = { ...ledgerFieldsOf(req, newChargeId(), p, o.commitId), paymentMethod: req.gateway?.authMethod ?? 'agent_key' };
      await this.afterAnswer(entry.agentId, () => this.usageBatch.add(entry));
    }
    return result;
  }

  /**
   * Waits until the ledger entries of `agentId`'s answered calls are written (the ones this gateway process
   * writes after the answer, {@link afterAnswer}), so that a usage or balance read right after a call sees
   * it. Never rejects (a failed write is logged for reconciliation).
   */
  async settled(agentId: string): Promise<void> {
    // Only the writes pending now: an agent that keeps calling must not hold its own reads forever.
    const pending = this.pending.get(agentId);
    if (!pending) return;
    // Its entries may be waiting for the batch window: the read does not wait for that.
    void this.usageBatch.flush();
    await Promise.all([...pending]);
  }

  /** Waits for every ledger write still pending after its answer, of every agent (a waiting batch is sent now). Never rejects. */
  async drained(): Promise<void> {
    while (this.pending.size > 0) {
      void this.usageBatch.flush();
      await Promise.all([...this.pending.values()].flatMap((set) => [...set]));
    }
  }

  /**
   * Shutdown: from now on each ledger write is made before its answer (the HTTP server still answers the
   * calls in flight after this hook), and the writes pending after earlier answers finish, while the bus and
   * the database are still open (they close in later hooks).
   */
  onModuleDestroy(): Promise<void> {
    this.closing = true;
    void this.usageBatch.sendAtOnce();
    return this.drained();
  }

  /**
   * Runs `write` (a ledger write after a successful call; it logs its own failure and never rejects) without
   * holding the answer: the caller's latency does not include the bookkeeping (docs/billing.md, "When the
   * ledger entry is written"). Tracked per agent for {@link settled} and for shutdown; at most one entry per
   * call in flight, so memory follows the calls in progress. Once shutting down, the write is awaited
   * instead (resolves when it is done).
   */
  private async afterAnswer(agentId: string, write: () => Promise<unknown>): Promise<void> {
    if (this.closing) {
      await write().catch(() => undefined);
      return;
    }
    let set = this.pending.get(agentId);
    if (!set) this.pending.set(agentId, (set = new Set()));
    const done: Promise<void> = write().then(
      () => undefined,
      () => undefined,
    ).finally(() => {
      set.delete(done);
      if (set.size === 0 && this.pending.get(agentId) === set) this.pending.delete(agentId);
    });
    set.add(done);
  }

  /**
   * Top-up of the caller's live balance by `amountMicroUsd`. Without a verified Payment credential (a Bearer
   * key): 403 for a test key (no real funds), else 402 with a challenge for the amount, bound to the agent.
   * With one: claim, settle ({@link settleCredential}), credit (retried); answers the balance afterwards.
   * @throws PaymentReconciliationError (402, no challenge) when the settlement's outcome is unknown or its
   *   credit could not be recorded: the payment stays `claimed` with its reference.
   */
  async topUp(req: GatewayRequest, amountMicroUsd: number): Promise<TopUpResult> {
    const principal = principalOf(req);
    const payment = paymentStateOf(req);
    if (!payment?.verified) {
      if (principal.keyEnvironment === 'test') throw new ForbiddenError('Test keys cannot spend real funds: add sandbox credit with POST /api/v1/billing/sandbox/top-up');
      const target = this.payments.topUpTarget(principal.agentId, amountMicroUsd);
      throw new PaymentRequiredError(`Payment required: ${target.description}. Pay the challenge and repeat this request with "Authorization: Payment <credential>"`, await this.payments.challenge(target));
    }
    const { verified } = payment;
    const settled = await this.settleCredential(req, payment, { purpose: 'top_up', agentId: principal.agentId });
    let done;
    try {
      done = await requestWithRetry(this.bus, SUBJECTS.billing.completePayment, { challengeId: verified.challengeId, outcome: 'settled', reference: settled.reference }, CompletePaymentReplySchema);
    } catch (err) {
      this.logger.error({ err, requestId: req.id, challengeId: verified.challengeId, reference: settled.reference, amountMicroUsd: verified.amountMicroUsd }, 'Settled top-up could not be credited: left claimed for reconciliation');
      throw new PaymentReconciliationError(
        settled.reference,
        `Payment ${settled.reference} settled, but the credit could not be recorded yet: it is being reconciled. Do not pay again: the amount will be credited to the agent's live balance`,
      );
    }
    const balance = done.balance ?? { agentId: principal.agentId, environment: 'live' as const, balanceMicroUsd: 0 };
    return { balance, creditedMicroUsd: verified.amountMicroUsd, reference: settled.reference };
  }

  private async paidFromBalance<T>(req: GatewayRequest, p: WithOutcome<T>): Promise<T> {
    const principal = principalOf(req);
    const chargeId = newChargeId();
    const charge = { chargeId, requestId: String(req.id), agentId: principal.agentId, environment: principal.keyEnvironment, operation: p.operation, recordId: p.recordId };
    const release = () => this.release(charge);
    try {
      await this.bus.request(SUBJECTS.billing.reserve, charge, ReservationSchema);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'PAYMENT_REQUIRED') {
        if (principal.keyEnvironment === 'test') {
          throw new PaymentRequiredError(`${err.message}. Test keys draw on the sandbox balance only: add sandbox credit with POST /api/v1/billing/sandbox/top-up`);
        }
        throw new PaymentRequiredError(
          `${err.message}. Top up with POST /api/v1/billing/top-up, or pay this call with the challenge ("Authorization: Payment <credential>", signed by the agent's wallet)`,
          await this.payments.challenge(this.payments.callTarget(p.operation, p.recordId, requestBindingOf(req))),
        );
      }
      // The reservation may have happened before the transport failed, or may still be in flight: release
      // it (a release that comes first leaves a voided marker, so the late reserve debits nothing).
      await release();
      throw err;
    }
    let result: T;
    try {
      result = await p.call();
    } catch (err) {
      await release();
      throw err;
    }
    const { replayed, commitId } = p.outcome(result);
    if (replayed && !commitId) {
      await release();
      return result;
    }
    // After the answer: the price is already held; with a commit id the billing service charges the write
    // once (a repeat, a replay, is refunded there).
    await this.afterAnswer(principal.agentId, async () => {
      try {
        await requestWithRetry(this.bus, SUBJECTS.billing.commit, { chargeId, idempotencyKey: p.idempotencyKey, commitId }, LedgerEntrySchema);
      } catch (err) {
        // The call succeeded and must not be reported as failed; the billing sweeper voids the held reservation later.
        this.logger.error({ err, requestId: req.id, chargeId, operation: p.operation }, 'Reservation could not be committed');
      }
    });
    return result;
  }

  private async paidByCredential<T>(req: GatewayRequest, payment: PaymentState, p: WithOutcome<T>): Promise<T> {
    const principal = principalOf(req);
    const verified = payment.verified!;
    const settled = await this.settleCredential(req, payment, { purpose: 'call', agentId: principal.agentId, operation: p.operation, recordId: p.recordId });
    let result: T;
    try {
      result = await p.call();
    } catch (err) {
      await this.completePayment(verified.challengeId, 'settled', settled.reference);
      await this.refund(req, verified.challengeId, principal.agentId, verified.amountMicroUsd, settled.reference);
      throw err;
    }
    const { replayed, commitId } = p.outcome(result);
    const chargeId = newChargeId();
    try {
      // One billing transaction completes the payment, writes the ledger entry (none with BILLING_MODE=off:
      // then nothing shows a replayed write was uncharged, so replays are refunded) and credits the refund
      // when the call must not keep the payment (the rule is the billing service's, beside its ledger).
      await requestWithRetry(
        this.bus,
        SUBJECTS.billing.settlePaidCall,
        {
          challengeId: verified.challengeId,
          reference: settled.reference,
          ...ledgerFieldsOf(req, chargeId, p, commitId),
          replayed,
          recordUsage: this.options.billingMode !== 'off',
        },
        SettlePaidCallReplySchema,
      );
    } catch (err) {
      // The call succeeded and must not be reported as failed. Nothing was recorded: the payment is completed
      // on its own, and the gap in the ledger is logged for reconciliation. The refund below is the billing
      // service's rule (`mustRefund` in services/billing/src/use-cases/settle-paid-call.use-case.ts) applied
      // with no ledger entry: the ledger outcome is unknown here, so nothing shows that a replay paid for its
      // commit, and every replay is refunded; a first write keeps its payment. Change both together.
      this.logger.error({ err, requestId: req.id, challengeId: verified.challengeId, operation: p.operation }, 'Usage could not be recorded');
      await this.completePayment(verified.challengeId, 'settled', settled.reference);
      if (replayed) await this.refund(req, verified.challengeId, principal.agentId, verified.amountMicroUsd, settled.reference);
    }
    return result;
  }

  /**
   * The settle flow of every Payment credential, paid call or top-up: claims the challenge id in the
   * billing service (a replayed credential: 402 with a fresh challenge), stores the settlement reference on
   * the claimed payment before the money moves, settles, and attaches `Payment-Receipt` to the reply. A
   * settlement that did not move the money marks the payment `failed`; one whose outcome is unknown leaves it
   * `claimed` with its reference. The caller then completes the payment as settled.
   */
  private async settleCredential(
    req: GatewayRequest,
    payment: PaymentState,
    claim: { purpose: 'call' | 'top_up'; agentId: string; operation?: PaidOperation; recordId?: string },
  ): Promise<SettledPayment> {
    const verified = payment.verified!;
    const { challengeId } = verified;
    try {
      await this.bus.request(
        SUBJECTS.billing.claimPayment,
        { challengeId, ...claim, amountMicroUsd: verified.amountMicroUsd, payer: verified.payer, requestId: String(req.id) },
        PaymentRecordSchema,
      );
    } catch (err) {
      if (err instanceof DomainError && err.code === 'PAYMENT_REQUIRED') throw new PaymentRequiredError(err.message, await this.payments.challenge(payment.target));
      throw err;
    }
    let settled;
    try {
      settled = await this.payments.settle(verified, payment.target, (reference) => this.recordSubmitted(challengeId, reference));
    } catch (err) {
      // Unknown outcome: the payment stays claimed with its reference, for reconciliation.
      if (!(err instanceof PaymentReconciliationError)) await this.completePayment(challengeId, 'failed');
      else this.logger.error({ requestId: req.id, challengeId, purpose: claim.purpose, reference: err.reference }, 'Payment settlement not confirmed: left claimed for reconciliation');
      throw err;
    }
    void payment.reply.header('Payment-Receipt', settled.receipt);
    return settled;
  }

  /** Voids the reservation (with the call's details, for the marker left when the reserve has not arrived yet). */
  private async release(m: { chargeId: string; requestId: string; agentId: string; environment: string; operation: PaidOperation; recordId: string }): Promise<void> {
    try {
      await requestWithRetry(this.bus, SUBJECTS.billing.release, m, ReleaseReplySchema);
    } catch (err) {
      this.logger.error({ err, chargeId: m.chargeId }, 'Reservation could not be released (the billing sweeper voids it later)');
    }
  }

  /** Stores the settlement reference on the claimed payment before the money moves; rejects (nothing is sent) when it cannot. */
  private async recordSubmitted(challengeId: string, reference: string): Promise<void> {
    await requestWithRetry(this.bus, SUBJECTS.billing.completePayment, { challengeId, outcome: 'submitted', reference }, CompletePaymentReplySchema);
  }

  private async completePayment(challengeId: string, outcome: 'settled' | 'failed', reference?: string): Promise<void> {
    try {
      await requestWithRetry(this.bus, SUBJECTS.billing.completePayment, { challengeId, outcome, reference }, CompletePaymentReplySchema);
    } catch (err) {
      this.logger.error({ err, challengeId, outcome, reference }, 'Payment outcome could not be recorded: the payment stays claimed for reconciliation');
    }
  }

  /** A paid call that failed or was replayed: its settled amount goes to the agent's live balance (once per challenge). */
  private async refund(req: GatewayRequest, challengeId: string, agentId: string, amountMicroUsd: number, reference: string): Promise<void> {
    try {
      await requestWithRetry(this.bus, SUBJECTS.billing.credit, { creditId: `refund:${challengeId}`, agentId, environment: 'live', amountMicroUsd, reason: 'refund', reference }, BalanceSchema);
    } catch (err) {
      this.logger.error({ err, requestId: req.id, challengeId, reference, amountMicroUsd }, `Refund credit refund:${challengeId} could not be recorded`);
    }
  }
}

import { Injectable } from '@nestjs/common';
import { type BillingSettlePaidCallMessage, DomainError, type LedgerEntry, PRICE_LIST_MICRO_USD, type SettlePaidCallReply } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.settle-paid-call`: after a successful call paid with a settled Payment credential, completes
 * the payment, records the call's usage at the price list's amount and decides its refund, in one
 * transaction (docs/billing.md). The refund rule ({@link mustRefund}) lives here, beside the ledger that
 * decides it. A repeated message changes nothing and answers the same.
 * @throws DomainError INTERNAL_ERROR for an unknown challenge id (a gateway bug: it claims first).
 */
@Injectable()
export class SettlePaidCallUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingSettlePaidCallMessage): Promise<SettlePaidCallReply> {
    const settled = await this.repository.settlePaidCall(m, PRICE_LIST_MICRO_USD[m.operation], (entry) => mustRefund(m, entry));
    if (!settled) throw new DomainError('INTERNAL_ERROR', `No claimed payment ${m.challengeId}`);
    return settled;
  }
}

/**
 * Whether a call paid with a Payment credential gives its payment back, given the ledger entry that charges
 * its write (`entry`: this message's, another request's for the same commit id, or none). A replay keeps
 * its payment only when this very charge id charged the commit (the write no earlier request paid for);
 * without a commit id, or without a ledger entry (billing mode `off`), nothing shows that, so it is
 * refunded. A first write keeps its payment unless another request already charged its commit.
 */
export function mustRefund(m: Pick<BillingSettlePaidCallMessage, 'chargeId' | 'replayed' | 'commitId'>, entry: LedgerEntry | undefined): boolean {
  if (m.replayed) return !m.commitId || !entry || entry.chargeId !== m.chargeId;
  return entry !== undefined && entry.chargeId !== m.chargeId;
}

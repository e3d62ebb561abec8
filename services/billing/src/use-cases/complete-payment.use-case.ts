import { Injectable } from '@nestjs/common';
import { type Balance, type BillingCompletePaymentMessage, DomainError, type PaymentRecord } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.complete-payment`: records a claimed payment's settlement outcome. `settled` or `failed`
 * moves it once; a settled top-up credits the live balance in the same transaction (and answers the
 * balance); `submitted` stores the settlement reference and leaves it `claimed` (docs/billing.md "When a
 * settlement is not confirmed").
 * @throws DomainError INTERNAL_ERROR for an unknown challenge id.
 */
@Injectable()
export class CompletePaymentUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingCompletePaymentMessage): Promise<{ payment: PaymentRecord; balance?: Balance }> {
    const r = await this.repository.completePayment(m.challengeId, m.outcome, m.reference);
    if (!r.payment) throw new DomainError('INTERNAL_ERROR', `No claimed payment ${m.challengeId}`);
    return { payment: r.payment, balance: r.balanceMicroUsd === undefined ? undefined : { agentId: r.payment.agentId, environment: 'live', balanceMicroUsd: r.balanceMicroUsd } };
  }
}

import { Injectable } from '@nestjs/common';
import type { PaymentRecord } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/** One payment by challenge id, or undefined: operators reconcile `claimed` payments by their reference (docs/billing.md). */
@Injectable()
export class GetPaymentUseCase {
  constructor(private readonly repository: BillingRepository) {}

  execute(m: { challengeId: string }): Promise<PaymentRecord | undefined> {
    return this.repository.payment(m.challengeId);
  }
}

import { Injectable } from '@nestjs/common';
import { type BillingClaimPaymentMessage, PaymentRequiredError, type PaymentRecord } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.claim-payment`: claims a Payment credential's challenge id, once, before its settlement (the
 * replay guard: the payment protocol does not stop replays). The payment is `claimed`.
 * @throws PaymentRequiredError when the challenge id was claimed before (a replayed credential).
 */
@Injectable()
export class ClaimPaymentUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingClaimPaymentMessage): Promise<PaymentRecord> {
    const payment = await this.repository.claimPayment(m);
    if (!payment) throw new PaymentRequiredError('This payment credential was already used: pay the new challenge');
    return payment;
  }
}

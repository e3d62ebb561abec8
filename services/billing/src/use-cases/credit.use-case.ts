import { Injectable } from '@nestjs/common';
import type { Balance, BillingCreditMessage } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.credit`: applies a credit once by its `creditId` (the refund of a paid call that failed or was
 * a replay, to the live balance; a sandbox top-up, to the test balance); answers the balance afterwards.
 */
@Injectable()
export class CreditUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingCreditMessage): Promise<Balance> {
    return { agentId: m.agentId, environment: m.environment, balanceMicroUsd: await this.repository.credit(m) };
  }
}

import { Injectable } from '@nestjs/common';
import type { Balance, BillingBalanceMessage } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/** `billing.v1.balance`: the balance of an agent in one environment, micro-USD (a sandbox balance opens with its credit on first use). */
@Injectable()
export class GetBalanceUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingBalanceMessage): Promise<Balance> {
    return { agentId: m.agentId, environment: m.environment, balanceMicroUsd: await this.repository.balance(m.agentId, m.environment) };
  }
}

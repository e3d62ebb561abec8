import { Injectable } from '@nestjs/common';
import type { BillingUsageMessage, UsageSummary } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.usage`: an agent's ledger entries, newest first (`limit`, `offset`), with the count, the sum
 * (micro-USD) and totals per operation and per UTC day over every entry the filter selects (`from`
 * inclusive, `to` exclusive, ISO timestamps; without `environment`, both environments).
 */
@Injectable()
export class GetUsageUseCase {
  constructor(private readonly repository: BillingRepository) {}

  execute(m: BillingUsageMessage): Promise<UsageSummary> {
    const filter = { agentId: m.agentId, environment: m.environment, operation: m.operation, from: m.from ? new Date(m.from) : undefined, to: m.to ? new Date(m.to) : undefined };
    return this.repository.usage(filter, m.limit, m.offset);
  }
}

import { Injectable } from '@nestjs/common';
import { type BillingRecordUsageMessage, type LedgerEntry, PRICE_LIST_MICRO_USD } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.record-usage`: records the charge of one call at the price list's amount without a balance
 * movement (ledger mode; calls paid by a settled Payment credential). Returns the entry: the existing one
 * for a repeated charge id, or, with a commit id already charged, the entry that charged it.
 */
@Injectable()
export class RecordUsageUseCase {
  constructor(private readonly repository: BillingRepository) {}

  execute(m: BillingRecordUsageMessage): Promise<LedgerEntry> {
    return this.repository.recordUsage(m, PRICE_LIST_MICRO_USD[m.operation]);
  }
}

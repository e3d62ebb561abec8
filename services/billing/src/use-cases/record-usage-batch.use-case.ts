import { Injectable } from '@nestjs/common';
import { type BillingRecordUsageBatchMessage, PRICE_LIST_MICRO_USD, type RecordUsageBatchReply } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.record-usage-batch`: records the ledger entries of several answered calls (any agents) at
 * the price list's amounts, without a balance movement, in one insert: the gateway's batched writes after
 * the answer (docs/billing.md, "When the ledger entry is written"). Each entry follows the rules of
 * `billing.v1.record-usage` (a repeated charge id, or a commit id already charged, writes nothing), so a
 * repeated batch changes nothing. Replies how many entries were written now.
 */
@Injectable()
export class RecordUsageBatchUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingRecordUsageBatchMessage): Promise<RecordUsageBatchReply> {
    const recorded = await this.repository.recordUsageBatch(m.entries.map((entry) => ({ entry, amountMicroUsd: PRICE_LIST_MICRO_USD[entry.operation] })));
    return { recorded };
  }
}

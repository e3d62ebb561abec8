import { Injectable } from '@nestjs/common';
import { type BillingCommitMessage, DomainError, type LedgerEntry } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.commit`: turns the reservation of `chargeId` into its one ledger entry (the call succeeded);
 * a repeat returns the same entry. With `commitId` (an idempotent write) only if that write was not
 * charged yet; else the reservation is refunded and the entry that charged the write is returned
 * (docs/api.md "After a 500 or a timeout").
 * @throws DomainError INTERNAL_ERROR when there is no live reservation for the charge id (a gateway bug).
 */
@Injectable()
export class CommitReservationUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingCommitMessage): Promise<LedgerEntry> {
    const entry = await this.repository.commit(m.chargeId, m.idempotencyKey, m.commitId);
    if (!entry) throw new DomainError('INTERNAL_ERROR', `No reservation to commit for ${m.chargeId}`);
    return entry;
  }
}

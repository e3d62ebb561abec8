import { Injectable } from '@nestjs/common';
import { RecordsRepository } from '../persistence/records.repository';

/** Published outbox events are deleted once older than this, ms (1 h: consumers took them long before). */
export const OUTBOX_RETENTION_MS = 60 * 60 * 1000;

/**
 * Deletes outbox events published more than `retentionMs` ago (default {@link OUTBOX_RETENTION_MS});
 * unpublished ones are kept whatever their age. One DELETE statement, so replicas running it at once are
 * safe. Returns the number of events deleted.
 */
@Injectable()
export class CleanUpOutboxUseCase {
  constructor(private readonly records: RecordsRepository) {}

  execute(retentionMs = OUTBOX_RETENTION_MS): Promise<number> {
    return this.records.deletePublishedOutboxEvents(new Date(Date.now() - retentionMs));
  }
}

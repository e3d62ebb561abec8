import { Injectable } from '@nestjs/common';
import type { RecordDeletedMessage } from '../files.messages';
import { FilesRepository } from '../persistence/files.repository';
import { PurgeStoresUseCase } from './purge-stores.use-case';

/**
 * Consumer of `records.v1.record-deleted` (docs/architecture.md, "Record deletion"): for each deleted
 * record, writes its tombstone (later file writes and raw puts get NOT_FOUND) and deletes its rows, write
 * log and idempotency keys with a durable purge task in one transaction, then purges the blob store (or
 * queues the purge when the store fails). Idempotent.
 */
@Injectable()
export class PurgeRecordUseCase {
  constructor(
    private readonly repository: FilesRepository,
    private readonly purge: PurgeStoresUseCase,
  ) {}

  execute(event: RecordDeletedMessage): Promise<void> {
    return this.purge.purgeDeletedRecords(event, (recordId, taskId) => this.repository.deleteRecord(recordId, taskId));
  }
}

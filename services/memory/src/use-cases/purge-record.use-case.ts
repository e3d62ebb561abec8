import { Injectable } from '@nestjs/common';
import type { RecordDeletedMessage } from '../memory.messages';
import { MemoryRepository } from '../persistence/memory.repository';
import { PurgeStoresUseCase } from './purge-stores.use-case';

/**
 * Consumer of `records.v1.record-deleted` (docs/architecture.md, "Record deletion"): removes every memory of the deleted records
 * from the metadata, write log and idempotency keys at once, then from the vector index and blob store.
 * Idempotent: a redelivered event finds nothing left and completes.
 */
@Injectable()
export class PurgeRecordUseCase {
  constructor(
    private readonly repository: MemoryRepository,
    private readonly purge: PurgeStoresUseCase,
  ) {}

  execute(event: RecordDeletedMessage): Promise<void> {
    return this.purge.purgeDeletedRecords(event, (recordId, taskId) => this.repository.purgeRecordMetadata(recordId, taskId));
  }
}

import { Injectable } from '@nestjs/common';
import type { RecordDto } from '@agent-memory/shared';
import { RecordsRepository } from '../persistence/records.repository';
import type { UpdateRecordMessage } from '../records.messages';
import { refuseCycle, requireOwnedRecord, requireParent } from './record-rules';

/**
 * Updates name, tags, category or parent of the agent's record (NOT_FOUND when not the agent's). A new
 * parent must be the agent's record and must not make the record its own ancestor (VALIDATION_ERROR);
 * the cycle check and the move run under the agent's hierarchy lock, as one step.
 */
@Injectable()
export class UpdateRecordUseCase {
  constructor(private readonly records: RecordsRepository) {}

  async execute({ agentId, recordId, body }: UpdateRecordMessage): Promise<RecordDto> {
    const changes = { name: body.name, tags: body.tags, category: body.category, parentRecordId: body.parentRecordId, updatedAt: new Date() };
    const parentId = body.parentRecordId;
    if (!parentId) {
      await requireOwnedRecord(this.records, agentId, recordId);
      return this.records.update(recordId, changes);
    }
    return this.records.transaction(async (tx) => {
      await tx.lockHierarchy(agentId);
      await requireOwnedRecord(tx, agentId, recordId);
      await requireParent(tx, agentId, parentId);
      await refuseCycle(tx, recordId, parentId);
      return tx.update(recordId, changes);
    });
  }
}

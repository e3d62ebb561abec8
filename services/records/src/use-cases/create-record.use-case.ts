import { Injectable } from '@nestjs/common';
import { newId, type RecordDto } from '@agent-memory/shared';
import { RecordsRepository } from '../persistence/records.repository';
import type { CreateRecordMessage } from '../records.messages';
import { requireParent } from './record-rules';

/**
 * Creates a record (docs/api.md, "Records"). `recordId` lets the agents service choose the id of an
 * agent's default record. A parent must be the same agent's record (VALIDATION_ERROR otherwise); with a
 * parent, the check and the insert run under the agent's hierarchy lock, so the parent cannot be deleted
 * between them.
 */
@Injectable()
export class CreateRecordUseCase {
  constructor(private readonly records: RecordsRepository) {}

  execute({ agentId, body, recordId }: CreateRecordMessage): Promise<RecordDto> {
    const record = { id: recordId ?? newId('record'), agentId, name: body.name, tags: body.tags, category: body.category, parentRecordId: body.parentRecordId ?? null };
    const parentId = body.parentRecordId;
    if (!parentId) return this.records.create(record);
    return this.records.transaction(async (tx) => {
      await tx.lockHierarchy(agentId);
      await requireParent(tx, agentId, parentId);
      return tx.create(record);
    });
  }
}

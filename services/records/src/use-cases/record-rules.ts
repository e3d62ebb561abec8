import { NotFoundError, type RecordDto, ValidationError } from '@agent-memory/shared';
import type { RecordsRepository } from '../persistence/records.repository';

/** The agent's record; NOT_FOUND when absent or another agent's (no existence leak). */
export async function requireOwnedRecord(records: RecordsRepository, agentId: string, recordId: string): Promise<RecordDto> {
  const found = await records.find(recordId);
  if (!found || found.agentId !== agentId) throw new NotFoundError('Record not found');
  return found.record;
}

/** A parent must be one of the agent's records: VALIDATION_ERROR otherwise. */
export async function requireParent(records: RecordsRepository, agentId: string, parentId: string): Promise<void> {
  const parent = await records.find(parentId);
  if (!parent || parent.agentId !== agentId) throw new ValidationError('parentRecordId: no such record of this agent');
}

/**
 * Refuses a move of `recordId` under `parentId` that would make the record its own ancestor (walks up
 * from the parent; VALIDATION_ERROR also past 10,000 levels). Run under the hierarchy lock.
 */
export async function refuseCycle(records: RecordsRepository, recordId: string, parentId: string): Promise<void> {
  let cursor: string | null = parentId;
  for (let depth = 0; cursor; depth++) {
    if (cursor === recordId) throw new ValidationError('parentRecordId: would make the record its own ancestor');
    if (depth > 10_000) throw new ValidationError('parentRecordId: hierarchy too deep');
    cursor = (await records.parentOf(cursor)) ?? null;
  }
}

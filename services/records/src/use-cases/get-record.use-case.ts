import { Injectable } from '@nestjs/common';
import type { RecordDto } from '@agent-memory/shared';
import { RecordsRepository } from '../persistence/records.repository';
import type { GetRecordMessage } from '../records.messages';
import { requireOwnedRecord } from './record-rules';

/**
 * The agent's record; NOT_FOUND when absent or another agent's. Also answers `records.v1.resolve-access`,
 * the gateway's ownership check before any record-scoped call.
 */
@Injectable()
export class GetRecordUseCase {
  constructor(private readonly records: RecordsRepository) {}

  execute({ agentId, recordId }: GetRecordMessage): Promise<RecordDto> {
    return requireOwnedRecord(this.records, agentId, recordId);
  }
}

import { Injectable } from '@nestjs/common';
import type { RecordList } from '@agent-memory/shared';
import { RecordsRepository } from '../persistence/records.repository';
import type { ListRecordsMessage } from '../records.messages';

/** The agent's records, newest first, one page (`query.limit`, `query.offset`); `total` counts all of them. */
@Injectable()
export class ListRecordsUseCase {
  constructor(private readonly records: RecordsRepository) {}

  async execute({ agentId, query: { limit, offset } }: ListRecordsMessage): Promise<RecordList> {
    const { records, total } = await this.records.list(agentId, limit, offset);
    return { records, total, limit, offset };
  }
}

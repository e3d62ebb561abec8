import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@agent-memory/shared';
import { RecordsRepository } from '../persistence/records.repository';
import type { ResolveRecordOwnerMessage } from '../records.messages';

/** Owner of a record, for signature-authenticated access (the gateway then checks the wallet); NOT_FOUND when absent. */
@Injectable()
export class ResolveRecordOwnerUseCase {
  constructor(private readonly records: RecordsRepository) {}

  async execute({ recordId }: ResolveRecordOwnerMessage): Promise<{ recordId: string; agentId: string }> {
    const found = await this.records.find(recordId);
    if (!found) throw new NotFoundError('Record not found');
    return { recordId: found.record.id, agentId: found.agentId };
  }
}

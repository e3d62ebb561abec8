import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  RecordsCreateMessageSchema,
  RecordsDeleteMessageSchema,
  RecordsGetMessageSchema,
  RecordsListMessageSchema,
  RecordsResolveAccessMessageSchema,
  RecordsResolveOwnerMessageSchema,
  RecordsUpdateMessageSchema,
  SUBJECTS,
} from '@agent-memory/shared';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import type { CreateRecordMessage, DeleteRecordMessage, GetRecordMessage, ListRecordsMessage, ResolveRecordOwnerMessage, UpdateRecordMessage } from './records.messages';
import { CreateRecordUseCase } from './use-cases/create-record.use-case';
import { DeleteRecordUseCase } from './use-cases/delete-record.use-case';
import { GetRecordUseCase } from './use-cases/get-record.use-case';
import { ListRecordsUseCase } from './use-cases/list-records.use-case';
import { ResolveRecordOwnerUseCase } from './use-cases/resolve-record-owner.use-case';
import { UpdateRecordUseCase } from './use-cases/update-record.use-case';

/** Bus edge of the records service (`records.v1.*`): receive a validated message, call one use case, return. */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class RecordsMessageHandler {
  constructor(
    private readonly createRecord: CreateRecordUseCase,
    private readonly listRecords: ListRecordsUseCase,
    private readonly getRecord: GetRecordUseCase,
    private readonly resolveRecordOwner: ResolveRecordOwnerUseCase,
    private readonly updateRecord: UpdateRecordUseCase,
    private readonly deleteRecord: DeleteRecordUseCase,
  ) {}

  @MessagePattern(SUBJECTS.records.create)
  create(@Payload(new MessagePipe(RecordsCreateMessageSchema)) m: CreateRecordMessage) {
    return this.createRecord.execute(m);
  }

  @MessagePattern(SUBJECTS.records.list)
  list(@Payload(new MessagePipe(RecordsListMessageSchema)) m: ListRecordsMessage) {
    return this.listRecords.execute(m);
  }

  @MessagePattern(SUBJECTS.records.get)
  get(@Payload(new MessagePipe(RecordsGetMessageSchema)) m: GetRecordMessage) {
    return this.getRecord.execute(m);
  }

  @MessagePattern(SUBJECTS.records.resolveAccess)
  resolveAccess(@Payload(new MessagePipe(RecordsResolveAccessMessageSchema)) m: GetRecordMessage) {
    return this.getRecord.execute(m);
  }

  @MessagePattern(SUBJECTS.records.resolveOwner)
  resolveOwner(@Payload(new MessagePipe(RecordsResolveOwnerMessageSchema)) m: ResolveRecordOwnerMessage) {
    return this.resolveRecordOwner.execute(m);
  }

  @MessagePattern(SUBJECTS.records.update)
  update(@Payload(new MessagePipe(RecordsUpdateMessageSchema)) m: UpdateRecordMessage) {
    return this.updateRecord.execute(m);
  }

  @MessagePattern(SUBJECTS.records.delete)
  delete(@Payload(new MessagePipe(RecordsDeleteMessageSchema)) m: DeleteRecordMessage) {
    return this.deleteRecord.execute(m);
  }
}

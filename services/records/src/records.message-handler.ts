import { MessagePattern, Payload } from '@nestjs/microservices';
import { SUBJECTS } from '@agent-memory/shared';
import { BusEdge } from '@agent-memory/platform';
import {
  CreateRecordMessage,
  DeleteRecordMessage,
  GetRecordMessage,
  ListRecordsMessage,
  ResolveRecordAccessMessage,
  ResolveRecordOwnerMessage,
  UpdateRecordMessage,
} from './records.messages';
import { CreateRecordUseCase } from './use-cases/create-record.use-case';
import { DeleteRecordUseCase } from './use-cases/delete-record.use-case';
import { GetRecordUseCase } from './use-cases/get-record.use-case';
import { ListRecordsUseCase } from './use-cases/list-records.use-case';
import { ResolveRecordOwnerUseCase } from './use-cases/resolve-record-owner.use-case';
import { UpdateRecordUseCase } from './use-cases/update-record.use-case';

/** Bus edge of the records service (`records.v1.*`): receive a validated message, call one use case, return. */
@BusEdge()
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
  create(@Payload() m: CreateRecordMessage) {
    return this.createRecord.execute(m);
  }

  @MessagePattern(SUBJECTS.records.list)
  list(@Payload() m: ListRecordsMessage) {
    return this.listRecords.execute(m);
  }

  @MessagePattern(SUBJECTS.records.get)
  get(@Payload() m: GetRecordMessage) {
    return this.getRecord.execute(m);
  }

  @MessagePattern(SUBJECTS.records.resolveAccess)
  resolveAccess(@Payload() m: ResolveRecordAccessMessage) {
    return this.getRecord.execute(m);
  }

  @MessagePattern(SUBJECTS.records.resolveOwner)
  resolveOwner(@Payload() m: ResolveRecordOwnerMessage) {
    return this.resolveRecordOwner.execute(m);
  }

  @MessagePattern(SUBJECTS.records.update)
  update(@Payload() m: UpdateRecordMessage) {
    return this.updateRecord.execute(m);
  }

  @MessagePattern(SUBJECTS.records.delete)
  delete(@Payload() m: DeleteRecordMessage) {
    return this.deleteRecord.execute(m);
  }
}

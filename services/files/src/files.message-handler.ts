import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { EVENTS, SUBJECTS } from '@agent-memory/shared';
import { BusEdge } from '@agent-memory/platform';
import { FilesListMessage, FilesRawGetMessage, FilesRawPutMessage, FilesReadMessage, FilesWriteMessage, RecordDeletedMessage } from './files.messages';
import { GetRawBlobUseCase } from './use-cases/get-raw-blob.use-case';
import { ListFilesUseCase } from './use-cases/list-files.use-case';
import { PurgeRecordUseCase } from './use-cases/purge-record.use-case';
import { PutRawBlobUseCase } from './use-cases/put-raw-blob.use-case';
import { ReadFileUseCase } from './use-cases/read-file.use-case';
import { WriteFileUseCase } from './use-cases/write-file.use-case';

/**
 * Bus edge of the files service: each handler receives a message validated by its message class, calls
 * one use case with it and returns (docs/architecture.md, "Service shape").
 */
@BusEdge()
export class FilesMessageHandler {
  constructor(
    private readonly writeFile: WriteFileUseCase,
    private readonly readFile: ReadFileUseCase,
    private readonly putRawBlob: PutRawBlobUseCase,
    private readonly getRawBlob: GetRawBlobUseCase,
    private readonly listFiles: ListFilesUseCase,
    private readonly purgeRecord: PurgeRecordUseCase,
  ) {}

  @MessagePattern(SUBJECTS.files.write)
  write(@Payload() m: FilesWriteMessage) {
    return this.writeFile.execute(m);
  }

  @MessagePattern(SUBJECTS.files.read)
  read(@Payload() m: FilesReadMessage) {
    return this.readFile.execute(m);
  }

  @MessagePattern(SUBJECTS.files.rawPut)
  rawPut(@Payload() m: FilesRawPutMessage) {
    return this.putRawBlob.execute(m);
  }

  @MessagePattern(SUBJECTS.files.rawGet)
  rawGet(@Payload() m: FilesRawGetMessage) {
    return this.getRawBlob.execute(m);
  }

  @MessagePattern(SUBJECTS.files.list)
  list(@Payload() m: FilesListMessage) {
    return this.listFiles.execute(m);
  }

  @EventPattern(EVENTS.recordDeleted)
  onRecordDeleted(@Payload() event: RecordDeletedMessage) {
    return this.purgeRecord.execute(event);
  }
}

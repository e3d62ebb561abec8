import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import {
  EVENTS,
  FilesRawGetMessageSchema,
  FilesRawPutMessageSchema,
  FilesReadMessageSchema,
  FilesWriteMessageSchema,
  RecordDeletedEventSchema,
  SUBJECTS,
} from '@agent-memory/shared';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import { FilesService } from './files.service';

/** Bus edge of the files service. */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class FilesMessageHandler {
  constructor(private readonly files: FilesService) {}

  @MessagePattern(SUBJECTS.files.write)
  write(@Payload(new MessagePipe(FilesWriteMessageSchema)) m: z.output<typeof FilesWriteMessageSchema>) {
    return this.files.write(m.agentId, m.recordId, m.body);
  }

  @MessagePattern(SUBJECTS.files.read)
  read(@Payload(new MessagePipe(FilesReadMessageSchema)) m: z.output<typeof FilesReadMessageSchema>) {
    return this.files.read(m.recordId, m.path);
  }

  @MessagePattern(SUBJECTS.files.rawPut)
  rawPut(@Payload(new MessagePipe(FilesRawPutMessageSchema)) m: z.output<typeof FilesRawPutMessageSchema>) {
    return this.files.rawPut(m.agentId, m.recordId, m.body);
  }

  @MessagePattern(SUBJECTS.files.rawGet)
  rawGet(@Payload(new MessagePipe(FilesRawGetMessageSchema)) m: z.output<typeof FilesRawGetMessageSchema>) {
    return this.files.rawGet(m.recordId, m.path);
  }

  @EventPattern(EVENTS.recordDeleted)
  onRecordDeleted(@Payload(new MessagePipe(RecordDeletedEventSchema)) event: z.output<typeof RecordDeletedEventSchema>) {
    return this.files.onRecordDeleted(event);
  }
}

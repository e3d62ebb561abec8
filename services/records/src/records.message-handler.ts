import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { z } from 'zod';
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
import { RecordsService } from './records.service';

/** Bus edge of the records service: parse the message, call one method, return (STYLE.md habit 2). */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class RecordsMessageHandler {
  constructor(private readonly records: RecordsService) {}

  @MessagePattern(SUBJECTS.records.create)
  create(@Payload(new MessagePipe(RecordsCreateMessageSchema)) m: z.output<typeof RecordsCreateMessageSchema>) {
    return this.records.create(m.agentId, m.body, m.recordId);
  }

  @MessagePattern(SUBJECTS.records.list)
  list(@Payload(new MessagePipe(RecordsListMessageSchema)) m: z.output<typeof RecordsListMessageSchema>) {
    return this.records.list(m.agentId, m.query.limit, m.query.offset);
  }

  @MessagePattern(SUBJECTS.records.get)
  get(@Payload(new MessagePipe(RecordsGetMessageSchema)) m: z.output<typeof RecordsGetMessageSchema>) {
    return this.records.get(m.agentId, m.recordId);
  }

  @MessagePattern(SUBJECTS.records.resolveAccess)
  resolveAccess(@Payload(new MessagePipe(RecordsResolveAccessMessageSchema)) m: z.output<typeof RecordsResolveAccessMessageSchema>) {
    return this.records.get(m.agentId, m.recordId);
  }

  @MessagePattern(SUBJECTS.records.resolveOwner)
  resolveOwner(@Payload(new MessagePipe(RecordsResolveOwnerMessageSchema)) m: z.output<typeof RecordsResolveOwnerMessageSchema>) {
    return this.records.owner(m.recordId);
  }

  @MessagePattern(SUBJECTS.records.update)
  update(@Payload(new MessagePipe(RecordsUpdateMessageSchema)) m: z.output<typeof RecordsUpdateMessageSchema>) {
    return this.records.update(m.agentId, m.recordId, m.body);
  }

  @MessagePattern(SUBJECTS.records.delete)
  delete(@Payload(new MessagePipe(RecordsDeleteMessageSchema)) m: z.output<typeof RecordsDeleteMessageSchema>) {
    return this.records.delete(m.agentId, m.recordId, m.cascade);
  }
}

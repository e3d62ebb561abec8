import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import {
  EVENTS,
  MemoryContextMessageSchema,
  MemoryForgetMessageSchema,
  MemoryRecallMessageSchema,
  MemoryRememberMessageSchema,
  RecordDeletedEventSchema,
  SUBJECTS,
} from '@agent-memory/shared';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import { ContextUseCase } from './use-cases/context.use-case';
import { ForgetUseCase } from './use-cases/forget.use-case';
import { PurgeRecordUseCase } from './use-cases/purge-record.use-case';
import { RecallUseCase } from './use-cases/recall.use-case';
import { RememberUseCase } from './use-cases/remember.use-case';

/** Bus edge of the memory service: parse, call one use case, return (STYLE.md habit 2). */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class MemoryMessageHandler {
  constructor(
    private readonly rememberUseCase: RememberUseCase,
    private readonly recallUseCase: RecallUseCase,
    private readonly forgetUseCase: ForgetUseCase,
    private readonly contextUseCase: ContextUseCase,
    private readonly purgeRecordUseCase: PurgeRecordUseCase,
  ) {}

  @MessagePattern(SUBJECTS.memory.remember)
  remember(@Payload(new MessagePipe(MemoryRememberMessageSchema)) m: z.output<typeof MemoryRememberMessageSchema>) {
    return this.rememberUseCase.execute(m.agentId, m.recordId, m.body);
  }

  @MessagePattern(SUBJECTS.memory.recall)
  recall(@Payload(new MessagePipe(MemoryRecallMessageSchema)) m: z.output<typeof MemoryRecallMessageSchema>) {
    return this.recallUseCase.execute(m.agentId, m.recordId, m.body);
  }

  @MessagePattern(SUBJECTS.memory.forget)
  forget(@Payload(new MessagePipe(MemoryForgetMessageSchema)) m: z.output<typeof MemoryForgetMessageSchema>) {
    return this.forgetUseCase.execute(m.recordId, m.target);
  }

  @MessagePattern(SUBJECTS.memory.context)
  context(@Payload(new MessagePipe(MemoryContextMessageSchema)) m: z.output<typeof MemoryContextMessageSchema>) {
    return this.contextUseCase.execute(m.recordId, m.limit);
  }

  @EventPattern(EVENTS.recordDeleted)
  onRecordDeleted(@Payload(new MessagePipe(RecordDeletedEventSchema)) event: z.output<typeof RecordDeletedEventSchema>) {
    return this.purgeRecordUseCase.execute(event);
  }
}

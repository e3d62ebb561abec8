import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { EVENTS, SUBJECTS } from '@agent-memory/shared';
import { BusEdge } from '@agent-memory/platform';
import { MemoryContextMessage, MemoryForgetMessage, MemoryListMessage, MemoryRecallMessage, MemoryRememberMessage, RecordDeletedMessage } from './memory.messages';
import { ContextUseCase } from './use-cases/context.use-case';
import { ForgetUseCase } from './use-cases/forget.use-case';
import { ListMemoriesUseCase } from './use-cases/list-memories.use-case';
import { PurgeRecordUseCase } from './use-cases/purge-record.use-case';
import { RecallUseCase } from './use-cases/recall.use-case';
import { RememberUseCase } from './use-cases/remember.use-case';

/**
 * Bus edge of the memory service: each handler receives a message validated by its message class, calls
 * one use case with it and returns (docs/architecture.md, "Service shape").
 */
@BusEdge()
export class MemoryMessageHandler {
  constructor(
    private readonly rememberUseCase: RememberUseCase,
    private readonly recallUseCase: RecallUseCase,
    private readonly forgetUseCase: ForgetUseCase,
    private readonly contextUseCase: ContextUseCase,
    private readonly listMemoriesUseCase: ListMemoriesUseCase,
    private readonly purgeRecordUseCase: PurgeRecordUseCase,
  ) {}

  @MessagePattern(SUBJECTS.memory.remember)
  remember(@Payload() m: MemoryRememberMessage) {
    return this.rememberUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.memory.recall)
  recall(@Payload() m: MemoryRecallMessage) {
    return this.recallUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.memory.forget)
  forget(@Payload() m: MemoryForgetMessage) {
    return this.forgetUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.memory.context)
  context(@Payload() m: MemoryContextMessage) {
    return this.contextUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.memory.list)
  list(@Payload() m: MemoryListMessage) {
    return this.listMemoriesUseCase.execute(m);
  }

  @EventPattern(EVENTS.recordDeleted)
  onRecordDeleted(@Payload() event: RecordDeletedMessage) {
    return this.purgeRecordUseCase.execute(event);
  }
}

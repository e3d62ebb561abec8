import { Injectable } from '@nestjs/common';
import { type ForgetResponse, NotFoundError } from '@agent-memory/shared';
import type { MemoryForgetMessage } from '../memory.messages';
import { MemoryRepository } from '../persistence/memory.repository';
import { PurgeStoresUseCase } from './purge-stores.use-case';

/**
 * Forget (docs/api.md, "Memories"): the metadata row, write log entries and idempotency results go
 * in one transaction together with a durable purge task; then the vector and every blob version are
 * deleted. The answer comes once every store is clean, or once the purge is durably queued if a store
 * is down. Nothing that does not exist: NOT_FOUND. Contextual indexing (`ContextualIndexer`): the memories
 * that borrowed context from it are marked stale in the same transaction (recall leaves them out at once)
 * and the purge task re-indexes them without it, so no store being down makes the forget fail.
 */
@Injectable()
export class ForgetUseCase {
  constructor(
    private readonly repository: MemoryRepository,
    private readonly purge: PurgeStoresUseCase,
  ) {}

  async execute({ recordId, target }: MemoryForgetMessage): Promise<ForgetResponse> {
    const memory = 'path' in target ? await this.repository.findByPath(recordId, target.path) : await this.repository.findById(recordId, target.id);
    if (!memory) throw new NotFoundError('path' in target ? `No memory at path ${JSON.stringify(target.path)}` : `No memory with id ${target.id}`);
    const task = await this.repository.forget(memory);
    if (!task) throw new NotFoundError(`No memory with id ${memory.id}`);
    await this.purge.runOrQueue(task);
    return { deleted: true, path: memory.path };
  }
}

import { Injectable, Optional } from '@nestjs/common';
import { type ForgetResponse, NotFoundError } from '@agent-memory/shared';
import type { MemoryForgetMessage } from '../memory.messages';
import { MemoryRepository, type MemoryNeighbours } from '../persistence/memory.repository';
import { ContextualIndexer } from './contextual-indexer';
import { PurgeStoresUseCase } from './purge-stores.use-case';

/**
 * Forget (docs/api.md, "Memories"): the metadata row, write log entries and idempotency results go
 * in one transaction together with a durable purge task; then the vector and every blob version are
 * deleted. The answer comes once every store is clean, or once the purge is durably queued if a store
 * is down. Nothing that does not exist: NOT_FOUND. With contextual indexing ({@link ContextualIndexer}),
 * the memories written just after it are re-indexed without it inside the same transaction, so the
 * context it lent them goes too; if that fails (a store down) nothing is forgotten and the error propagates.
 */
@Injectable()
export class ForgetUseCase {
  constructor(
    private readonly repository: MemoryRepository,
    private readonly purge: PurgeStoresUseCase,
    @Optional() private readonly contextual?: ContextualIndexer,
  ) {}

  async execute({ recordId, target }: MemoryForgetMessage): Promise<ForgetResponse> {
    const memory = 'path' in target ? await this.repository.findByPath(recordId, target.path) : await this.repository.findById(recordId, target.id);
    if (!memory) throw new NotFoundError('path' in target ? `No memory at path ${JSON.stringify(target.path)}` : `No memory with id ${target.id}`);
    const contextual = this.contextual;
    const reindex = contextual && contextual.depth > 0 ? { depth: contextual.depth, write: (neighbours: MemoryNeighbours) => contextual.write(null, neighbours) } : undefined;
    const task = await this.repository.forget(memory, reindex);
    if (!task) throw new NotFoundError(`No memory with id ${memory.id}`);
    await this.purge.runOrQueue(task);
    return { deleted: true, path: memory.path };
  }
}

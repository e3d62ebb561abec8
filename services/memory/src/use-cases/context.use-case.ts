import { Inject, Injectable, Logger } from '@nestjs/common';
import { type ContextResponse, MEMORY_TYPES } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore } from '@agent-memory/platform';
import type { MemoryContextMessage } from '../memory.messages';
import { MemoryRepository } from '../persistence/memory.repository';
import { readMemoryItem } from './memory-items';

/**
 * Full context (docs/api.md, "Memories"): the record's memories grouped under the five
 * type keys, newest first, at most `limit` per type, each with its content. Every content is checked
 * against its row's `contentHash`; a lost or altered blob fails the call with INTERNAL_ERROR (logged with
 * the memory id) instead of answering wrong or partial content (docs/api.md, "Errors"; {@link readMemoryItem}).
 */
@Injectable()
export class ContextUseCase {
  private readonly logger = new Logger(ContextUseCase.name);
  constructor(
    private readonly repository: MemoryRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async execute({ recordId, limit }: MemoryContextMessage): Promise<ContextResponse> {
    const rows = await this.repository.listForContext(recordId, MEMORY_TYPES, limit);
    const items = await Promise.all(rows.map((row) => readMemoryItem({ repository: this.repository, blobs: this.blobs, logger: this.logger }, recordId, row)));
    const context: ContextResponse = { identity: [], fact: [], relationship: [], episode: [], skill: [] };
    for (const item of items) if (item) context[item.type].push(item);
    return context;
  }
}

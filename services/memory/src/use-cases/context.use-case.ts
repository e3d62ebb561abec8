import { Inject, Injectable } from '@nestjs/common';
import { type ContextItem, type ContextResponse, MEMORY_TYPES } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore } from '@agent-memory/platform';
import { MemoryRepository } from '../persistence/memory.repository';

/**
 * Full context (spec, "Get full context"; DESIGN.md §4): the record's memories grouped under the five
 * type keys, newest first, at most `limit` per type, each with its content.
 */
@Injectable()
export class ContextUseCase {
  constructor(
    private readonly repository: MemoryRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async execute(recordId: string, limit: number): Promise<ContextResponse> {
    const rows = await this.repository.listForContext(recordId, MEMORY_TYPES, limit);
    const items = await Promise.all(
      rows.map(async (row): Promise<ContextItem | null> => {
        const bytes = await this.blobs.get(row.blobKey);
        // A row whose blob vanished is being forgotten right now: leave it out rather than fail.
        if (!bytes) return null;
        return {
          id: row.id,
          path: row.path,
          type: row.type as ContextItem['type'],
          summary: row.summary,
          content: bytes.toString('utf8'),
          createdAt: row.createdAt.toISOString(),
          updatedAt: row.updatedAt.toISOString(),
        };
      }),
    );
    const context: ContextResponse = { identity: [], fact: [], relationship: [], episode: [], skill: [] };
    for (const item of items) if (item) context[item.type].push(item);
    return context;
  }
}

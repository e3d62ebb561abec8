import { Inject, Injectable, Logger } from '@nestjs/common';
import { type ContextItem, type ContextResponse, MEMORY_TYPES } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore, getVerifiedBlob, verifyBlob } from '@agent-memory/platform';
import type { MemoryContextMessage } from '../memory.messages';
import { MemoryRepository } from '../persistence/memory.repository';

/**
 * Full context (docs/api.md, "Memories"): the record's memories grouped under the five
 * type keys, newest first, at most `limit` per type, each with its content. Every content is checked
 * against its row's `contentHash`; a lost or altered blob fails the call with INTERNAL_ERROR (logged with
 * the memory id) instead of answering wrong or partial content (docs/api.md, "Errors").
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
    const items = await Promise.all(
      rows.map(async (row): Promise<ContextItem | null> => {
        const bytes = await this.blobs.get(row.blobKey);
        if (!bytes) {
          // A blob vanishes legitimately only once its row is gone (forget deletes the row first): leave it out.
          // A row still naming it means the blob was lost: logged and a 500, never a silent gap.
          const still = await this.repository.findById(recordId, row.id);
          if (!still || still.blobKey !== row.blobKey) return null;
          await getVerifiedBlob(this.blobs, row.blobKey, row.contentHash, { recordId, memoryId: row.id });
        }
        const damage = verifyBlob(row.blobKey, bytes!, row.contentHash);
        if (damage) {
          // The key carries the hash: bytes that differ were altered, and are never served.
          this.logger.error({ recordId, memoryId: row.id, blobKey: row.blobKey, expectedHash: row.contentHash, actualHash: damage.actualHash }, 'Memory content failed its integrity check; not served');
          throw damage;
        }
        return {
          id: row.id,
          path: row.path,
          type: row.type as ContextItem['type'],
          summary: row.summary,
          content: bytes!.toString('utf8'),
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

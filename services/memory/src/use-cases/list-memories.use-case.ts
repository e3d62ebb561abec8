import { Inject, Injectable, Logger } from '@nestjs/common';
import { type ContextItem, encodeListCursor, LIMITS, type ListMemoriesResponse } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore } from '@agent-memory/platform';
import type { MemoryListMessage } from '../memory.messages';
import { MemoryRepository } from '../persistence/memory.repository';
import { readMemoryItem } from './memory-items';

/**
 * List memories (docs/api.md, "List memories"): one keyset page of the record's memories in path order,
 * starting strictly after the path `after` (the decoded cursor), at most `limit`, only `type` if given, each
 * with its content checked against its `contentHash` ({@link readMemoryItem}: a lost or altered blob is
 * INTERNAL_ERROR; a memory forgotten meanwhile is left out).
 *
 * A page also stops before its memories' JSON would pass `LIMITS.listMemories.pageJsonBytes` (4 MB; at
 * least one memory per page), so a reply stays well under the bus's 8 MB message limit whatever the
 * content. `nextCursor` names the last path the page covered, or is null when no memory follows: the
 * query reads one row more than it answers to know, so a client never pays for an empty last page.
 * Cost: one index range scan of at most `limit + 1` rows and the blobs of the page.
 */
@Injectable()
export class ListMemoriesUseCase {
  private readonly logger = new Logger(ListMemoriesUseCase.name);
  constructor(
    private readonly repository: MemoryRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async execute({ recordId, limit, after, type }: MemoryListMessage): Promise<ListMemoriesResponse> {
    const budget = LIMITS.listMemories.pageJsonBytes;
    const rows = await this.repository.listPage(recordId, { after, limit: limit + 1, type });
    // UTF-8 bytes never exceed their JSON, so the rows' sizes cut the page before any blob is read.
    let candidates = 0;
    for (let bytes = 0; candidates < Math.min(rows.length, limit); candidates++) {
      bytes += rows[candidates].sizeBytes;
      if (candidates > 0 && bytes > budget) break;
    }
    const page = rows.slice(0, candidates);
    const items = await Promise.all(page.map((row) => readMemoryItem({ repository: this.repository, blobs: this.blobs, logger: this.logger }, recordId, row)));
    const memories: ContextItem[] = [];
    let covered = 0;
    for (let jsonBytes = 0; covered < page.length; covered++) {
      const item = items[covered];
      if (!item) continue; // forgotten meanwhile: skipped, and the cursor moves past it
      jsonBytes += Buffer.byteLength(JSON.stringify(item), 'utf8') + 1;
      if (memories.length > 0 && jsonBytes > budget) break;
      memories.push(item);
    }
    // Rows beyond the covered ones (the extra row read, or those a budget cut off) follow: continue after the last covered.
    const nextCursor = covered < rows.length ? encodeListCursor(page[covered - 1].path) : null;
    return { memories, nextCursor };
  }
}

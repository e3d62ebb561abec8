import type { Logger } from '@nestjs/common';
import type { ContextItem } from '@agent-memory/shared';
import { type BlobStore, getVerifiedBlob, verifyBlob } from '@agent-memory/platform';
import type { MemoryRepository, MemoryRow } from '../persistence/memory.repository';

/**
 * A memory row with its content, as context and list memories answer it (docs/api.md, "Get full context",
 * "List memories"): `{ id, path, type, summary, content, createdAt, updatedAt }`. The content is checked
 * against the row's `contentHash`; a lost or altered blob throws INTERNAL_ERROR (logged with the memory id),
 * never wrong or partial content. Returns null when the memory was forgotten meanwhile (its row is gone
 * or names another blob): such a memory is left out, not an error.
 */
export async function readMemoryItem(
  deps: { repository: MemoryRepository; blobs: BlobStore; logger: Logger },
  recordId: string,
  row: MemoryRow,
): Promise<ContextItem | null> {
  const bytes = await deps.blobs.get(row.blobKey);
  if (!bytes) {
    // A blob vanishes legitimately only once its row is gone (forget deletes the row first): leave it out.
    // A row still naming it means the blob was lost: logged and a 500, never a silent gap.
    const still = await deps.repository.findById(recordId, row.id);
    if (!still || still.blobKey !== row.blobKey) return null;
    await getVerifiedBlob(deps.blobs, row.blobKey, row.contentHash, { recordId, memoryId: row.id });
  }
  const damage = verifyBlob(row.blobKey, bytes!, row.contentHash);
  if (damage) {
    // The key carries the hash: bytes that differ were altered, and are never served.
    deps.logger.error({ recordId, memoryId: row.id, blobKey: row.blobKey, expectedHash: row.contentHash, actualHash: damage.actualHash }, 'Memory content failed its integrity check; not served');
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
}

import { randomBytes } from 'node:crypto';
import { ForbiddenError, NotFoundError } from '@agent-memory/shared';
import { type BlobStore, sha256Hex } from '@agent-memory/platform';

/** Blob key prefix of a record's files; keys never contain user paths (only their hashes). */
export const filesPrefix = (recordId: string): string => `records/${recordId}/files/`;
/** Blob key prefix of a record's raw blobs. */
export const rawPrefix = (recordId: string): string => `records/${recordId}/raw/`;

/**
 * A write's own blob key: `<prefix><sha256(path)>/<random write id>/<content hash>`. Unique per write (as
 * memory's remember), so a write that rolls back deletes its blob without touching that of another
 * replica's write of the same content to the same path, put but not yet committed.
 */
export const writeBlobKey = (prefix: string, path: string, hash: string): string => `${prefix}${sha256Hex(path)}/${randomBytes(12).toString('hex')}/${hash.slice('sha256:'.length)}`;

/**
 * Runs `commit` (the write's transaction, after its blob `blobKey` was put). When it refuses the write
 * because the record was deleted (NotFoundError) or the quota is exceeded (ForbiddenError), nothing was
 * committed and the key is this write's own, so no row names it: the blob is deleted (best effort; the
 * record's blob purge may have run before the put, and an orphan is purged with its record). Rethrows.
 */
export async function commitOrDropBlob(blobs: BlobStore, blobKey: string, commit: () => Promise<void>): Promise<void> {
  try {
    await commit();
  } catch (err) {
    if (err instanceof NotFoundError || err instanceof ForbiddenError) await blobs.delete([blobKey]).catch(() => undefined);
    throw err;
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, contentHash, KeyedMutex } from '@agent-memory/platform';
import type { FilesRawPutMessage } from '../files.messages';
import { FilesRepository } from '../persistence/files.repository';
import { commitOrDropBlob, rawPrefix, writeBlobKey } from './file-blobs';

/** Raw put (docs/api.md, "Raw blob access"): stores an opaque blob of a `local`-mode agent at `path`. */
@Injectable()
export class PutRawBlobUseCase {
  private readonly pathLocks = new KeyedMutex();

  constructor(
    private readonly repository: FilesRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  /**
   * Returns the path, size (bytes) and content hash. Errors: NOT_FOUND when the record was deleted
   * (tombstone; the blob just put is deleted and no row is written); FORBIDDEN over the agent's storage
   * quota (docs/api.md, "Storage quotas").
   */
  async execute({ agentId, recordId, body }: FilesRawPutMessage): Promise<{ path: string; size: number; contentHash: string }> {
    const bytes = Buffer.from(body.content, 'base64');
    const hash = contentHash(bytes);
    const blobKey = writeBlobKey(rawPrefix(recordId), body.path, hash);
    const contentType = body.contentType ?? 'application/octet-stream';
    await this.pathLocks.run(`raw\n${recordId}\n${body.path}`, async () => {
      await this.blobs.put(blobKey, bytes, contentType);
      await commitOrDropBlob(this.blobs, blobKey, () => this.repository.saveRawBlob({ agentId, recordId, path: body.path, contentType, contentHash: hash, blobKey, sizeBytes: bytes.length }));
    });
    return { path: body.path, size: bytes.length, contentHash: hash };
  }
}

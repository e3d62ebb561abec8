import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, type RawGetResponse } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore, getVerifiedBlob } from '@agent-memory/platform';
import type { FilesRawGetMessage } from '../files.messages';
import { FilesRepository } from '../persistence/files.repository';

/** Raw get (docs/api.md, "Raw blob access"): the raw blob at `path`, base64, with its content type. */
@Injectable()
export class GetRawBlobUseCase {
  constructor(
    private readonly repository: FilesRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  /** NOT_FOUND when there is no raw blob at `path`; a lost or altered blob answers 500 (logged). */
  async execute({ recordId, path }: FilesRawGetMessage): Promise<RawGetResponse> {
    const row = await this.repository.findRawBlob(recordId, path);
    if (!row) throw new NotFoundError(`No raw blob at path ${JSON.stringify(path)}`);
    const bytes = await getVerifiedBlob(this.blobs, row.blobKey, row.contentHash, { recordId, kind: 'raw-blob' });
    return { path, content: bytes.toString('base64'), contentType: row.contentType };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, type ReadFileResponse } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore, getVerifiedBlob } from '@agent-memory/platform';
import type { FilesReadMessage } from '../files.messages';
import { FilesRepository } from '../persistence/files.repository';

/** Read file (docs/api.md, "Read file"): the content of the file at `path`. */
@Injectable()
export class ReadFileUseCase {
  constructor(
    private readonly repository: FilesRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  /** NOT_FOUND when there is no file at `path`; a blob missing or not matching the row's hash is logged and answers 500 rather than wrong content. */
  async execute({ recordId, path }: FilesReadMessage): Promise<ReadFileResponse> {
    const row = await this.repository.findFile(recordId, path);
    if (!row) throw new NotFoundError(`No file at path ${JSON.stringify(path)}`);
    const bytes = await getVerifiedBlob(this.blobs, row.blobKey, row.contentHash, { recordId, kind: 'file' });
    return { path, content: bytes.toString('utf8') };
  }
}

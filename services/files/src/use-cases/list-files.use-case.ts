import { Injectable } from '@nestjs/common';
import { encodeListCursor, type ListFilesResponse } from '@agent-memory/shared';
import type { FilesListMessage } from '../files.messages';
import { FilesRepository } from '../persistence/files.repository';

/**
 * List files (docs/api.md, "List files"): one keyset page of the record's text files in path order,
 * metadata only (`{ path, size, contentHash, createdAt, updatedAt }`, size in bytes of UTF-8), starting
 * strictly after the path `after` (the decoded cursor), at most `limit`, under `prefix` if given. Reads
 * one row more than it answers, so `nextCursor` (the page's last path) is null exactly when no file follows.
 * Raw blobs are not listed (they are served only to wallet signatures, docs/api.md "Raw blob access").
 */
@Injectable()
export class ListFilesUseCase {
  constructor(private readonly repository: FilesRepository) {}

  async execute({ recordId, limit, after, prefix }: FilesListMessage): Promise<ListFilesResponse> {
    const rows = await this.repository.listFiles(recordId, { after, prefix, limit: limit + 1 });
    const page = rows.slice(0, limit);
    return {
      files: page.map((row) => ({
        path: row.path,
        size: row.sizeBytes,
        contentHash: row.contentHash,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
      })),
      nextCursor: rows.length > limit ? encodeListCursor(page[page.length - 1].path) : null,
    };
  }
}

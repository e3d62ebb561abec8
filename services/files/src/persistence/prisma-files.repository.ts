import { Inject, Injectable, Optional } from '@nestjs/common';
import { assertBeforeDeadline, IdempotencyClaimLostError, PrismaIdempotencyStore, RECORD_DELETION_TRANSACTION, RecordTombstones } from '@agent-memory/platform';
import { chargeFileWrite, DEFAULT_FILE_QUOTA, deleteRecordFilesAndReleaseUsage, FILE_QUOTA, type FileQuota } from './file-quota';
import { checkFileUsage, type FileUsageDrift } from './file-usage-check';
import type { FileMetadata, FilePurgeTask, FilesRepository, FileWrite, ListedContent, RawBlobWrite, StoredContent, StoredRawBlob } from './files.repository';
import { Prisma } from './generated/client';
import { FILES_PRISMA, type FilesPrismaClient } from './prisma';

/**
 * Tombstones of deleted records (`files.deleted_records`) and the record advisory lock (key
 * `files-record\n<recordId>`, as memory's `memory-record`): shared by file writes and raw puts, exclusive
 * by the record's deletion.
 */
const tombstones = new RecordTombstones('"files"."deleted_records"', 'files-record');

/**
 * `text` as a literal inside a LIKE pattern: Prisma's `startsWith` becomes `LIKE '<text>%'` without escaping,
 * so `_` and `%` in a path prefix would be wildcards; backslash is PostgreSQL's default LIKE escape.
 */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** {@link FilesRepository} over the `files` schema through the service's Prisma Client: the only Prisma caller of the files service. */
@Injectable()
export class PrismaFilesRepository implements FilesRepository {
  readonly idempotency: PrismaIdempotencyStore;

  constructor(
    @Inject(FILES_PRISMA) private readonly prisma: FilesPrismaClient,
    @Optional() @Inject(FILE_QUOTA) private readonly quota: FileQuota = DEFAULT_FILE_QUOTA,
  ) {
    this.idempotency = new PrismaIdempotencyStore(prisma.fileIdempotencyKey, Prisma.DbNull);
  }

  findFile(recordId: string, path: string): Promise<StoredContent | null> {
    return this.prisma.file.findUnique({ where: { recordId_path: { recordId, path } } });
  }

  findRawBlob(recordId: string, path: string): Promise<StoredRawBlob | null> {
    return this.prisma.rawBlob.findUnique({ where: { recordId_path: { recordId, path } } });
  }

  listFiles(recordId: string, { after, prefix, limit }: { after?: string; prefix?: string; limit: number }): Promise<FileMetadata[]> {
    return this.prisma.file.findMany({
      where: { recordId, path: { ...(after !== undefined ? { gt: after } : {}), ...(prefix !== undefined ? { startsWith: likeLiteral(prefix) } : {}) } },
      select: { path: true, sizeBytes: true, contentHash: true, createdAt: true, updatedAt: true },
      orderBy: { path: 'asc' },
      take: limit,
    });
  }

  listContent(kind: 'file' | 'raw', after: { recordId: string; path: string } | undefined, limit: number): Promise<ListedContent[]> {
    const page = { orderBy: [{ recordId: 'asc' as const }, { path: 'asc' as const }], take: limit, ...(after ? { cursor: { recordId_path: after }, skip: 1 } : {}) };
    return kind === 'file' ? this.prisma.file.findMany(page) : this.prisma.rawBlob.findMany(page);
  }

  checkUsage(options: { repair: boolean }): Promise<FileUsageDrift[]> {
    return checkFileUsage(this.prisma, options);
  }

  async saveFile(w: FileWrite): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tombstones.refuseDeleted(tx, w.recordId);
      await chargeFileWrite(tx, { agentId: w.agentId, recordId: w.recordId, path: w.path, kind: 'file', sizeBytes: w.sizeBytes }, this.quota);
      const version = { contentHash: w.contentHash, blobKey: w.blobKey, sizeBytes: w.sizeBytes };
      await tx.file.upsert({
        where: { recordId_path: { recordId: w.recordId, path: w.path } },
        create: { recordId: w.recordId, path: w.path, agentId: w.agentId, ...version },
        update: { ...version, updatedAt: new Date() },
      });
      await tx.fileWriteLog.create({ data: { recordId: w.recordId, op: 'write', path: w.path, contentHash: w.contentHash, blobKey: w.blobKey, idempotencyKey: w.idempotency?.key ?? null } });
      if (w.idempotency) {
        // Guarded completion: a claim taken over after its deadline must not write twice.
        const { key, claimedAt, response } = w.idempotency;
        const { count } = await tx.fileIdempotencyKey.updateMany({ where: { recordId: w.recordId, key, status: 'pending', createdAt: claimedAt }, data: { status: 'completed', response: response as object } });
        if (count === 0) throw new IdempotencyClaimLostError(w.recordId, key);
      }
      // Past the bus request's deadline the gateway has given up (a 500): roll back, nothing is applied.
      assertBeforeDeadline();
    });
  }

  async saveRawBlob(w: RawBlobWrite): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tombstones.refuseDeleted(tx, w.recordId);
      await chargeFileWrite(tx, { agentId: w.agentId, recordId: w.recordId, path: w.path, kind: 'raw', sizeBytes: w.sizeBytes }, this.quota);
      const version = { contentType: w.contentType, contentHash: w.contentHash, blobKey: w.blobKey, sizeBytes: w.sizeBytes };
      await tx.rawBlob.upsert({
        where: { recordId_path: { recordId: w.recordId, path: w.path } },
        create: { recordId: w.recordId, path: w.path, agentId: w.agentId, ...version },
        update: { ...version, updatedAt: new Date() },
      });
      await tx.fileWriteLog.create({ data: { recordId: w.recordId, op: 'raw-put', path: w.path, contentHash: w.contentHash, blobKey: w.blobKey } });
    });
  }

  async deleteRecord(recordId: string, taskId: string): Promise<FilePurgeTask> {
    await this.prisma.$transaction(async (tx) => {
      await tombstones.markDeleted(tx, recordId);
      await deleteRecordFilesAndReleaseUsage(tx, recordId);
      await tx.fileWriteLog.deleteMany({ where: { recordId } });
      await tx.fileIdempotencyKey.deleteMany({ where: { recordId } });
      await tx.filePurgeTask.createMany({ data: [{ id: taskId, recordId }], skipDuplicates: true });
    }, RECORD_DELETION_TRANSACTION);
    return { id: taskId, recordId };
  }

  async completePurges(recordId: string): Promise<void> {
    await this.prisma.filePurgeTask.deleteMany({ where: { recordId } });
  }

  pendingPurges(): Promise<FilePurgeTask[]> {
    return this.prisma.filePurgeTask.findMany({ orderBy: { createdAt: 'asc' } });
  }

  purgesCreatedBefore(before: Date, limit: number): Promise<FilePurgeTask[]> {
    return this.prisma.filePurgeTask.findMany({ where: { createdAt: { lt: before } }, orderBy: { createdAt: 'asc' }, take: limit });
  }
}

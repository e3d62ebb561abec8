import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  NotFoundError,
  type RawGetResponse,
  type RawPutBody,
  type RecordDeletedEvent,
  type ReadFileResponse,
  type WriteFileBody,
  type WriteFileResponse,
} from '@agent-memory/shared';
import {
  BLOB_STORE,
  type BlobStore,
  canonicalJson,
  claimIdempotencyKey,
  contentHash,
  JOB_QUEUE,
  type JobQueue,
  KeyedMutex,
  sha256Hex,
} from '@agent-memory/platform';
import { FileIdempotencyStore } from './persistence/file-idempotency.store';
import type { FilesPrismaClient } from './persistence/prisma';

export const FILES_PRISMA = Symbol('FilesPrisma');

/** Blob key prefixes of a record's files and raw blobs; keys never contain user paths (DESIGN.md §3). */
const filesPrefix = (recordId: string) => `records/${recordId}/files/`;
const rawPrefix = (recordId: string) => `records/${recordId}/raw/`;

/**
 * Files and raw blobs of records (spec, "Read file", "Write file", "Raw blob access"). Content lives in
 * the blob store under content-addressed keys; the row in `files.files` is the source of truth.
 */
@Injectable()
export class FilesService implements OnApplicationBootstrap {
  private readonly logger = new Logger(FilesService.name);
  private readonly idempotency: FileIdempotencyStore;
  private readonly pathLocks = new KeyedMutex();

  constructor(
    @Inject(FILES_PRISMA) private readonly prisma: FilesPrismaClient,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
  ) {
    this.idempotency = new FileIdempotencyStore(prisma);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.jobs.process('files.purge-record', (job) => this.purgeRecordStores(job.recordId));
    // Resume purges that a crash interrupted.
    for (const task of await this.prisma.filePurgeTask.findMany()) {
      await this.jobs.enqueue('files.purge-record', { recordId: task.recordId, eventId: task.id }, { jobId: task.id });
    }
  }

  /**
   * Writes a text file (≤ 1 MB) at `path`, replacing any earlier content. With `idempotency_key`, a
   * repeat of the same body returns the first response (`replayed: true`) and writes nothing.
   */
  async write(agentId: string, recordId: string, body: WriteFileBody): Promise<{ result: WriteFileResponse; replayed: boolean }> {
    const key = body.idempotency_key;
    if (key) {
      const claim = await claimIdempotencyKey(this.idempotency, recordId, key, sha256Hex(canonicalJson({ op: 'write', path: body.path, content: body.content })));
      if (!claim.claimed) return { result: claim.replay as WriteFileResponse, replayed: true };
    }
    try {
      const result = await this.pathLocks.run(`${recordId}\n${body.path}`, async () => {
        const bytes = Buffer.from(body.content, 'utf8');
        const hash = contentHash(bytes);
        const blobKey = `${filesPrefix(recordId)}${sha256Hex(body.path)}/${hash.slice('sha256:'.length)}`;
        await this.blobs.put(blobKey, bytes, 'text/plain; charset=utf-8');
        const response: WriteFileResponse = { path: body.path, contentHash: hash };
        await this.prisma.$transaction(async (tx) => {
          await tx.file.upsert({
            where: { recordId_path: { recordId, path: body.path } },
            create: { recordId, path: body.path, agentId, contentHash: hash, blobKey, sizeBytes: bytes.length },
            update: { contentHash: hash, blobKey, sizeBytes: bytes.length, updatedAt: new Date() },
          });
          await tx.fileWriteLog.create({ data: { recordId, op: 'write', path: body.path, contentHash: hash, blobKey, idempotencyKey: key ?? null } });
          if (key) await tx.fileIdempotencyKey.update({ where: { recordId_key: { recordId, key } }, data: { status: 'completed', response } });
        });
        return response;
      });
      return { result, replayed: false };
    } catch (err) {
      if (key) await this.idempotency.release(recordId, key);
      throw err;
    }
  }

  /** The content of the file at `path`; NOT_FOUND when there is none. */
  async read(recordId: string, path: string): Promise<ReadFileResponse> {
    const row = await this.prisma.file.findUnique({ where: { recordId_path: { recordId, path } } });
    if (!row) throw new NotFoundError(`No file at path ${JSON.stringify(path)}`);
    const bytes = await this.blobs.get(row.blobKey);
    if (!bytes) throw new Error(`Blob ${row.blobKey} of file ${recordId}/${path} is missing`);
    return { path, content: bytes.toString('utf8') };
  }

  /** Stores an opaque blob of a `local`-mode agent at `path` (DESIGN.md §4). */
  async rawPut(agentId: string, recordId: string, body: RawPutBody): Promise<{ path: string; size: number; contentHash: string }> {
    const bytes = Buffer.from(body.content, 'base64');
    const hash = contentHash(bytes);
    const blobKey = `${rawPrefix(recordId)}${sha256Hex(body.path)}/${hash.slice('sha256:'.length)}`;
    const contentType = body.contentType ?? 'application/octet-stream';
    await this.pathLocks.run(`raw\n${recordId}\n${body.path}`, async () => {
      await this.blobs.put(blobKey, bytes, contentType);
      await this.prisma.$transaction(async (tx) => {
        await tx.rawBlob.upsert({
          where: { recordId_path: { recordId, path: body.path } },
          create: { recordId, path: body.path, agentId, contentType, contentHash: hash, blobKey, sizeBytes: bytes.length },
          update: { contentType, contentHash: hash, blobKey, sizeBytes: bytes.length, updatedAt: new Date() },
        });
        await tx.fileWriteLog.create({ data: { recordId, op: 'raw-put', path: body.path, contentHash: hash, blobKey } });
      });
    });
    return { path: body.path, size: bytes.length, contentHash: hash };
  }

  /** The raw blob at `path`, base64; NOT_FOUND when there is none. */
  async rawGet(recordId: string, path: string): Promise<RawGetResponse> {
    const row = await this.prisma.rawBlob.findUnique({ where: { recordId_path: { recordId, path } } });
    if (!row) throw new NotFoundError(`No raw blob at path ${JSON.stringify(path)}`);
    const bytes = await this.blobs.get(row.blobKey);
    if (!bytes) throw new Error(`Blob ${row.blobKey} is missing`);
    return { path, content: bytes.toString('base64'), contentType: row.contentType };
  }

  /**
   * Consumer of `records.v1.record-deleted`: deletes the records' rows, write log and idempotency keys in
   * one transaction with a durable purge task, then purges the blob store. Idempotent.
   */
  async onRecordDeleted(event: RecordDeletedEvent): Promise<void> {
    for (const recordId of event.recordIds) {
      const taskId = `${event.eventId}:${recordId}`;
      await this.prisma.$transaction(async (tx) => {
        await tx.file.deleteMany({ where: { recordId } });
        await tx.rawBlob.deleteMany({ where: { recordId } });
        await tx.fileWriteLog.deleteMany({ where: { recordId } });
        await tx.fileIdempotencyKey.deleteMany({ where: { recordId } });
        await tx.filePurgeTask.createMany({ data: [{ id: taskId, recordId }], skipDuplicates: true });
      });
      try {
        await this.purgeRecordStores(recordId);
      } catch (err) {
        this.logger.warn({ recordId, err }, 'Blob purge failed; queued for retry');
        await this.jobs.enqueue('files.purge-record', { recordId, eventId: taskId }, { jobId: taskId });
      }
    }
  }

  private async purgeRecordStores(recordId: string): Promise<void> {
    await this.blobs.deletePrefix(filesPrefix(recordId));
    await this.blobs.deletePrefix(rawPrefix(recordId));
    await this.prisma.filePurgeTask.deleteMany({ where: { recordId } });
  }
}


import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import {
  ForbiddenError,
  NotFoundError,
  type RawGetResponse,
  type RawPutBody,
  type RecordDeletedEvent,
  type ReadFileResponse,
  type WriteFileBody,
  type WriteFileResponse,
} from '@agent-memory/shared';
import {
  answerAfterLostClaim,
  assertBeforeDeadline,
  BLOB_STORE,
  type BlobStore,
  canonicalJson,
  claimIdempotencyKey,
  contentHash,
  getVerifiedBlob,
  IdempotencyClaimLostError,
  idempotentCommitId,
  JOB_QUEUE,
  type JobQueue,
  KeyedMutex,
  PURGE_RETRY,
  type ReclaimScheduler,
  sha256Hex,
} from '@agent-memory/platform';
import { FileIdempotencyStore } from './persistence/file-idempotency.store';
import { chargeFileWrite, DEFAULT_FILE_QUOTA, deleteRecordFilesAndReleaseUsage, FILE_QUOTA, type FileQuota } from './persistence/file-quota';
import type { Prisma } from './persistence/generated/client';
import type { FilesPrismaClient } from './persistence/prisma';

export const FILES_PRISMA = Symbol('FilesPrisma');
/** Injection token of the files service's {@link ReclaimScheduler} (see {@link FILES_RECLAIM_TABLES}). */
export const FILES_RECLAIM = Symbol('FilesReclaim');
/**
 * The files tables that hold a deleted record's paths (files, raw blobs, write log, idempotency results):
 * rewritten after a record's purge (`Database.reclaim`; docs/deployment.md, "Forgotten content and the
 * database files"). File content itself lives only in the blob store.
 */
export const FILES_RECLAIM_TABLES = ['files.files', 'files.raw_blobs', 'files.write_log', 'files.idempotency_keys', 'files.purge_tasks'] as const;

/** Blob key prefixes of a record's files and raw blobs; keys never contain user paths. */
const filesPrefix = (recordId: string) => `records/${recordId}/files/`;
const rawPrefix = (recordId: string) => `records/${recordId}/raw/`;
/**
 * A write's own blob key: `<prefix><sha256(path)>/<random write id>/<content hash>`. Unique per write (as
 * memory's remember), so a write that rolls back deletes its blob without touching that of another
 * replica's write of the same content to the same path, put but not yet committed.
 */
const writeBlobKey = (prefix: string, path: string, hash: string) => `${prefix}${sha256Hex(path)}/${randomBytes(12).toString('hex')}/${hash.slice('sha256:'.length)}`;

/**
 * Files and raw blobs of records (docs/api.md, "Files", "Raw blobs (local mode) and wallet signatures"). Content lives in
 * the blob store under a key of its own per write (path, write id, content hash); the row in `files.files` is the source of truth.
 */
@Injectable()
export class FilesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(FilesService.name);
  private readonly idempotency: FileIdempotencyStore;
  private readonly pathLocks = new KeyedMutex();

  constructor(
    @Inject(FILES_PRISMA) private readonly prisma: FilesPrismaClient,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    @Optional() @Inject(FILE_QUOTA) private readonly quota: FileQuota = DEFAULT_FILE_QUOTA,
    /** Rewrites the files tables after a record's purge, so no dead row keeps its paths (docs/deployment.md). */
    @Optional() @Inject(FILES_RECLAIM) private readonly reclaim?: ReclaimScheduler,
  ) {
    this.idempotency = new FileIdempotencyStore(prisma);
  }

  async onApplicationBootstrap(): Promise<void> {
    // PURGE_RETRY: about a week of retries; FilesUpkeep's sweep re-queues older tasks every minute too.
    this.jobs.process('files.purge-record', (job) => this.purgeRecordStores(job.recordId), PURGE_RETRY);
    // Resume purges that a crash interrupted. A queue that is down (Redis) must not stop the start: the
    // tasks stay in the table and FilesUpkeep's sweep queues them once it is back.
    try {
      for (const task of await this.prisma.filePurgeTask.findMany()) {
        await this.jobs.enqueue('files.purge-record', { recordId: task.recordId, eventId: task.id }, { jobId: task.id });
      }
    } catch (err) {
      new Logger('FilesService').warn(`Could not queue the pending purges at start-up (the sweep retries): ${(err as Error).message}`);
    }
  }

  /** Runs a pending rewrite of the files tables before the database closes. */
  async onApplicationShutdown(): Promise<void> {
    await this.reclaim?.flush();
  }

  /**
   * Writes a text file (≤ 1 MB) at `path`, replacing any earlier content. With `idempotency_key`, a
   * repeat of the same body returns the first response (`replayed: true`) and writes nothing; a request
   * whose claim was taken over (its deadline passed, see claimIdempotencyKey) commits nothing and answers
   * like a replay (RATE_LIMITED with `retryAfterSeconds` while the new owner is still in progress, as for
   * a concurrent request with the key). `commitId` (with a key) names the committed write for billing, the
   * same for every replay. Nothing is committed once the bus request's deadline has passed (checked last
   * inside the transaction: INTERNAL_ERROR, docs/api.md "After a 500 or a timeout"). The transaction
   * holds the record's advisory lock in shared mode ({@link lockRecord}); NOT_FOUND when the record was
   * deleted (tombstone), with this write's blob deleted and nothing committed; FORBIDDEN when the
   * agent's storage quota (files and raw blobs, count and bytes; a replace counts its size change) would
   * be exceeded, with nothing stored (docs/api.md, "Storage quotas").
   */
  async write(agentId: string, recordId: string, body: WriteFileBody): Promise<{ result: WriteFileResponse; replayed: boolean; commitId?: string }> {
    const key = body.idempotency_key;
    const fingerprint = sha256Hex(canonicalJson({ op: 'write', path: body.path, content: body.content }));
    let claimedAt: Date | undefined;
    if (key) {
      const claim = await claimIdempotencyKey(this.idempotency, recordId, key, fingerprint);
      if (!claim.claimed) return { result: claim.replay as WriteFileResponse, replayed: true, commitId: idempotentCommitId('files', recordId, key, claim.claimedAt) };
      claimedAt = claim.claimedAt;
    }
    try {
      const result = await this.pathLocks.run(`${recordId}\n${body.path}`, async () => {
        const bytes = Buffer.from(body.content, 'utf8');
        const hash = contentHash(bytes);
        const blobKey = writeBlobKey(filesPrefix(recordId), body.path, hash);
        await this.blobs.put(blobKey, bytes, 'text/plain; charset=utf-8');
        const response: WriteFileResponse = { path: body.path, contentHash: hash };
        await this.writeUnlessDeleted(recordId, blobKey, async (tx) => {
          await chargeFileWrite(tx, { agentId, recordId, path: body.path, kind: 'file', sizeBytes: bytes.length }, this.quota);
          await tx.file.upsert({
            where: { recordId_path: { recordId, path: body.path } },
            create: { recordId, path: body.path, agentId, contentHash: hash, blobKey, sizeBytes: bytes.length },
            update: { contentHash: hash, blobKey, sizeBytes: bytes.length, updatedAt: new Date() },
          });
          await tx.fileWriteLog.create({ data: { recordId, op: 'write', path: body.path, contentHash: hash, blobKey, idempotencyKey: key ?? null } });
          if (key) {
            // Guarded completion: a claim taken over after IDEMPOTENCY_ABANDONED_AFTER_MS must not write twice.
            const { count } = await tx.fileIdempotencyKey.updateMany({ where: { recordId, key, status: 'pending', createdAt: claimedAt }, data: { status: 'completed', response } });
            if (count === 0) throw new IdempotencyClaimLostError(recordId, key);
          }
          // Past the bus request's deadline the gateway has given up (a 500): roll back, nothing is applied.
          assertBeforeDeadline();
        });
        return response;
      });
      return { result, replayed: false, commitId: key && claimedAt ? idempotentCommitId('files', recordId, key, claimedAt) : undefined };
    } catch (err) {
      if (err instanceof IdempotencyClaimLostError) {
        const answer = answerAfterLostClaim(await this.idempotency.find(recordId, err.key), fingerprint);
        return { result: answer.replay as WriteFileResponse, replayed: true, commitId: idempotentCommitId('files', recordId, err.key, answer.claimedAt) };
      }
      if (key && claimedAt) await this.idempotency.release(recordId, key, claimedAt);
      throw err;
    }
  }

  /** The content of the file at `path`; NOT_FOUND when there is none. */
  async read(recordId: string, path: string): Promise<ReadFileResponse> {
    const row = await this.prisma.file.findUnique({ where: { recordId_path: { recordId, path } } });
    if (!row) throw new NotFoundError(`No file at path ${JSON.stringify(path)}`);
    // Missing or not matching the row's hash: logged, and a 500 rather than wrong content (docs/api.md).
    const bytes = await getVerifiedBlob(this.blobs, row.blobKey, row.contentHash, { recordId, kind: 'file' });
    return { path, content: bytes.toString('utf8') };
  }

  /**
   * Stores an opaque blob of a `local`-mode agent at `path` (docs/api.md, "Raw blobs (local mode) and wallet signatures"). Errors: NOT_FOUND when the
   * record was deleted (tombstone; the blob just put is deleted and no row is written); FORBIDDEN over
   * the agent's storage quota, as {@link write}.
   */
  async rawPut(agentId: string, recordId: string, body: RawPutBody): Promise<{ path: string; size: number; contentHash: string }> {
    const bytes = Buffer.from(body.content, 'base64');
    const hash = contentHash(bytes);
    const blobKey = writeBlobKey(rawPrefix(recordId), body.path, hash);
    const contentType = body.contentType ?? 'application/octet-stream';
    await this.pathLocks.run(`raw\n${recordId}\n${body.path}`, async () => {
      await this.blobs.put(blobKey, bytes, contentType);
      await this.writeUnlessDeleted(recordId, blobKey, async (tx) => {
        await chargeFileWrite(tx, { agentId, recordId, path: body.path, kind: 'raw', sizeBytes: bytes.length }, this.quota);
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
    const bytes = await getVerifiedBlob(this.blobs, row.blobKey, row.contentHash, { recordId, kind: 'raw-blob' });
    return { path, content: bytes.toString('base64'), contentType: row.contentType };
  }

  /**
   * Runs `write` in one transaction that first takes the record's advisory lock in shared mode and refuses
   * a deleted record (tombstone in `files.deleted_records`) with NotFoundError. On that refusal, nothing
   * is committed and `blobKey` (the blob this request already put) is deleted: the record's blob purge may
   * have run before the put (docs/architecture.md, "Record deletion"; same scheme as memory's remember).
   */
  private async writeUnlessDeleted(recordId: string, blobKey: string, write: (tx: Prisma.TransactionClient) => Promise<void>): Promise<void> {
    try {
      await this.prisma.$transaction(async (tx) => {
        await lockRecord(tx, recordId, 'shared');
        if (await tx.fileDeletedRecord.findUnique({ where: { recordId } })) throw new NotFoundError(`Record ${recordId} was deleted`);
        await write(tx);
      });
    } catch (err) {
      // Deleted record or over quota: the transaction rolled back, and the key is this write's own
      // (writeBlobKey), so no row names it. Best effort: an orphan is purged with its record.
      if (err instanceof NotFoundError || err instanceof ForbiddenError) await this.blobs.delete([blobKey]).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Consumer of `records.v1.record-deleted`: under the record's advisory lock in exclusive mode (it waits
   * for the writes in flight, which hold it shared), writes the record's tombstone (later file writes and
   * raw puts get NOT_FOUND), then deletes the record's rows, write log and idempotency keys in the same
   * transaction with a durable purge task, then purges the blob store. Idempotent.
   */
  async onRecordDeleted(event: RecordDeletedEvent): Promise<void> {
    for (const recordId of event.recordIds) {
      const taskId = `${event.eventId}:${recordId}`;
      await this.prisma.$transaction(async (tx) => {
        await lockRecord(tx, recordId, 'exclusive');
        await tx.fileDeletedRecord.createMany({ data: [{ recordId }], skipDuplicates: true });
        await deleteRecordFilesAndReleaseUsage(tx, recordId);
        await tx.fileWriteLog.deleteMany({ where: { recordId } });
        await tx.fileIdempotencyKey.deleteMany({ where: { recordId } });
        await tx.filePurgeTask.createMany({ data: [{ id: taskId, recordId }], skipDuplicates: true });
      }, { maxWait: 10_000, timeout: 35_000 }); // may wait behind file writes holding the record lock
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
    this.reclaim?.request();
  }
}


/**
 * Takes the transaction-scoped advisory lock of a record (key `files-record\n<recordId>`, hashed with
 * `hashtextextended`, as memory's `memory-record` lock): `shared` for file writes and raw puts,
 * `exclusive` for the record's deletion, so a deletion waits for the writes in flight and later writes
 * see its tombstone.
 */
async function lockRecord(tx: Prisma.TransactionClient, recordId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  const key = `files-record\n${recordId}`;
  if (mode === 'shared') await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(hashtextextended(${key}::text, 0))`;
  else await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}::text, 0))`;
}

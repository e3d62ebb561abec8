import type { IdempotencyKeys, PurgeTaskTable } from '@agent-memory/platform';
import type { FileUsageDrift } from './file-usage-check';

/** Where a stored file's or raw blob's content lives: its own blob key and the hash it must match. */
export interface StoredContent {
  blobKey: string;
  contentHash: string;
}

/** A raw blob's row: its content's place and the content type it was stored with. */
export interface StoredRawBlob extends StoredContent {
  contentType: string;
}

/** A stored file or raw blob as the data check lists it: where it is and where its content lives. */
export interface ListedContent extends StoredContent {
  recordId: string;
  path: string;
}

/** A text file's metadata as list files answers it (docs/api.md, "List files"); content through read file. */
export interface FileMetadata {
  path: string;
  sizeBytes: number;
  contentHash: string;
  createdAt: Date;
  updatedAt: Date;
}

/** What a file write or raw put commits: the row at (record, path), pointing at the blob already put. */
export interface ContentWrite extends StoredContent {
  agentId: string;
  recordId: string;
  path: string;
  sizeBytes: number;
}

/** A text file write: also logged with its idempotency key, whose claim it completes with `response`. */
export interface FileWrite extends ContentWrite {
  /** The idempotency claim this write completes (`claimIdempotencyKey`'s `claimedAt`) and the response stored with it. */
  idempotency?: { key: string; claimedAt: Date; response: unknown };
}

/** A raw blob put. */
export interface RawBlobWrite extends ContentWrite {
  contentType: string;
}

/** A deleted record's purge still to run against the blob store (id `<eventId>:<recordId>`). */
export interface FilePurgeTask {
  id: string;
  recordId: string;
}

/**
 * Port of the files service's tables (files, raw blobs, write log, idempotency keys, tombstones of
 * deleted records, purge tasks, per-agent usage); the adapter is `prisma-files.repository.ts`. Every
 * multi-row change is one transaction.
 */
export abstract class FilesRepository implements PurgeTaskTable<FilePurgeTask> {
  /** The idempotency keys of file writes (`files.idempotency_keys`; scope: the record id). */
  abstract readonly idempotency: IdempotencyKeys;

  /** The file at (record, path), or null. */
  abstract findFile(recordId: string, path: string): Promise<StoredContent | null>;

  /** The raw blob at (record, path), or null. */
  abstract findRawBlob(recordId: string, path: string): Promise<StoredRawBlob | null>;

  /**
   * Files (`kind` 'file') or raw blobs ('raw') in (record, path) order after `after`, at most `limit`
   * (the data check's batches: keyset pagination on the primary key, never an OFFSET).
   */
  /**
   * A keyset page of the record's text files (docs/api.md, "List files"), in path order, with path strictly
   * after `after` (all when absent) and starting with `prefix` if given, at most `limit`: one range scan of
   * the primary key (record_id, path).
   */
  abstract listFiles(recordId: string, page: { after?: string; prefix?: string; limit: number }): Promise<FileMetadata[]>;
  abstract listContent(kind: 'file' | 'raw', after: { recordId: string; path: string } | undefined, limit: number): Promise<ListedContent[]>;
  /**
   * Agents whose storage quota counters (`files.agent_usage`) differ from their file and raw blob rows;
   * with `repair` the counters are recomputed from the rows (the data check, docs/deployment.md).
   */
  abstract checkUsage(options: { repair: boolean }): Promise<FileUsageDrift[]>;

  /**
   * Commits a file write in one transaction: refuses a deleted record (record lock shared, tombstone:
   * NotFoundError), charges the agent's storage quota (ForbiddenError), upserts the row, logs the write,
   * completes the idempotency claim (IdempotencyClaimLostError when it was taken over) and, last, checks
   * the bus request's deadline (DeadlineExceededError). Nothing is committed when it throws.
   */
  abstract saveFile(w: FileWrite): Promise<void>;

  /** Commits a raw put in one transaction, as {@link saveFile} without idempotency or deadline check. */
  abstract saveRawBlob(w: RawBlobWrite): Promise<void>;

  /**
   * Record deletion, metadata side, in one transaction: under the record's lock held exclusively (it waits
   * for writes in flight), writes the tombstone, deletes the record's files and raw blobs (their sizes
   * given back to their agents' usage), write log and idempotency keys, and writes the purge task
   * `taskId`. Idempotent. Returns the task.
   */
  abstract deleteRecord(recordId: string, taskId: string): Promise<FilePurgeTask>;

  /** Deletes the purge tasks of a record once its blobs are gone. */
  abstract completePurges(recordId: string): Promise<void>;

  abstract pendingPurges(): Promise<FilePurgeTask[]>;

  abstract purgesCreatedBefore(before: Date, limit: number): Promise<FilePurgeTask[]>;
}

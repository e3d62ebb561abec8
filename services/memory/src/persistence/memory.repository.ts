import type { IdempotencyKeys, PurgeTaskTable } from '@agent-memory/platform';
import type { MemoryType } from '@agent-memory/shared';
import type { MemoryQuota, MemoryUsage } from './memory-quota';
import type { MemoryUsageDrift } from './memory-usage-check';

/** A memory's metadata row (`memory.memories`): the source of truth; content in the blob store, vector in the index. */
export interface MemoryRow {
  id: string;
  recordId: string;
  agentId: string;
  path: string;
  type: string;
  summary: string;
  contentHash: string;
  blobKey: string;
  sizeBytes: number;
  /** Which embedder made the memory's vector (`Embedder.id`). */
  embedderId: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What remember writes in one transaction: the memory row, its write log entry and the idempotency result.
 * `id` is a fresh id, used only when no memory exists at (record, path) under the path lock; `blobKey` is
 * unique to this write (a purge of another write or memory never deletes it).
 */
export interface RememberWrite {
  id: string;
  recordId: string;
  agentId: string;
  path: string;
  type: MemoryType;
  summary: string;
  contentHash: string;
  blobKey: string;
  sizeBytes: number;
  embedderId: string;
  /** The idempotency claim this write completes (`claimIdempotencyKey`'s `claimedAt`). */
  idempotency?: { key: string; claimedAt: Date };
  /** Neighbours on each side that `writeVector` is given (contextual indexing); 0 or absent: none read. */
  contextDepth?: number;
  /**
   * Contextual indexing (recall/contextual-index.ts): on a replace, the memories that may have borrowed
   * context from this one are marked stale in the same transaction and, if there are any, a context-only
   * purge task with this id re-indexes them (run it after COMMIT, `findPurge`).
   */
  contextTaskId?: string;
}

/**
 * A memory's place in its record's write order (`createdAt`, then id) with its neighbours, read inside
 * the write's transaction under row locks (`FOR SHARE`), so that no neighbour is forgotten or replaced
 * until the transaction ends (contextual indexing, recall/contextual-index.ts).
 */
export interface MemoryNeighbours {
  /** When the memory was first written (a replace keeps it). */
  createdAt: Date;
  /** Up to `contextDepth` rows of the record written just before it, newest first. */
  before: MemoryRow[];
  /** Up to `contextDepth` rows of the record written just after it, oldest first. */
  after: MemoryRow[];
}

/** What a row lock found: the memory's current version and the embedder of its vector. */
export interface LockedMemory {
  id: string;
  contentHash: string;
  embedderId: string;
  /** The memory's place in its record's write order. */
  createdAt: Date;
}

/** What enrichment writes: the refined type and summary of the version `contentHash`, and the vector's embedder. */
export interface EnrichmentWrite {
  id: string;
  contentHash: string;
  type: MemoryType;
  summary: string;
  embedderId: string;
  /** Predecessors that `writeVector` is given (contextual indexing); 0 or absent: none read. */
  contextDepth?: number;
}

/** Outcome of a write guarded by a row lock: done, the memory is gone (forgotten), or its content changed. */
export type GuardedWriteOutcome = 'applied' | 'gone' | 'changed';

/** A purge still to run against the vector index and blob store. */
export interface PurgeTask {
  id: string;
  recordId: string;
  memoryId: string | null;
  blobKeys: string[];
  /** Only re-index the record's stale contextual entries (a lender was replaced); nothing is deleted. */
  contextOnly?: boolean;
  /**
   * The memories this forget or replace marked stale, known only to the process that marked them (not
   * stored): a run with them (the inline run after the request) re-indexes only these; a task read back from
   * the table (its retry job, start-up, the sweep) re-indexes every stale memory of the record.
   */
  borrowers?: string[];
}

/** A memory's contextual index state (recall/contextual-index.ts): its lenders (a superset), stale flag and epoch. */
export interface ContextState {
  id: string;
  recordId: string;
  type: string;
  contentHash: string;
  blobKey: string;
  createdAt: Date;
  /** Every memory whose context the index entry may hold (recorded before the entry is written). */
  contextLenders: string[];
  /** Recall leaves the memory out: its entry may hold context of a forgotten or replaced memory. */
  contextStale: boolean;
  /** Raised each time the memory is marked stale; a re-index read at another epoch is not confirmed. */
  contextEpoch: number;
}

/** A re-index to confirm: the memory at the version and epoch it was computed from, and the lenders it used. */
export interface ContextWrite {
  id: string;
  contentHash: string;
  epoch: number;
  lenders: readonly { id: string; contentHash: string }[];
}

/**
 * Port of the memory service's tables (memories, write log, idempotency keys, tombstones of deleted
 * records, purge tasks, per-agent usage); the adapter is `prisma-memory.repository.ts`
 * ({@link PrismaMemoryRepository}), which documents each write's transaction and errors.
 */
/** The columns of a memory a recall answers (MemoryRepository.findMany). */
export type RecallableRow = Pick<MemoryRow, 'id' | 'path' | 'type' | 'summary'>;

export abstract class MemoryRepository implements PurgeTaskTable<PurgeTask> {
  /** The idempotency keys of remember (`memory.idempotency_keys`; scope: the record id). */
  abstract readonly idempotency: IdempotencyKeys;
  /** The per-agent storage quota in force. */
  abstract readonly storageQuota: MemoryQuota;
  /** The agent's stored memories and bytes now. */
  abstract usage(agentId: string): Promise<MemoryUsage>;
  abstract findByPath(recordId: string, path: string): Promise<MemoryRow | null>;
  /**
   * What remember's early quota check needs, in one read: the agent and size of the memory at (record,
   * `path`) when `path` is given and a memory is there (else null), and the usage of that memory's agent
   * (else of `agentId`), as {@link usage} answers it.
   */
  abstract quotaView(recordId: string, path: string | undefined, agentId: string): Promise<{ existing: { agentId: string; sizeBytes: number } | null; usage: MemoryUsage }>;
  /** The memory `id` if it belongs to `recordId`, else null. */
  abstract findById(recordId: string, id: string): Promise<MemoryRow | null>;
  /** The memory with this id in any record (jobs carry only the id), or null. */
  abstract findAnyById(id: string): Promise<MemoryRow | null>;
  /**
   * Rows of the given ids within the record that recall may show: absent or foreign ids are left out, and
   * so are memories whose contextual index entry is stale (it may hold context of a forgotten or replaced
   * memory until a purge re-indexes it; docs/api.md, "Recall"). Only what a recall answers: id, path,
   * type and summary (one read of up to 2 × 500 candidates per recall, so no more columns than needed).
   */
  abstract findMany(recordId: string, ids: readonly string[]): Promise<RecallableRow[]>;
  /** Every row in id order after `cursor`, at most `limit` (the data check's batches). */
  abstract listAfter(cursor: string | undefined, limit: number): Promise<MemoryRow[]>;
  /** The number of memory rows of each record that has any. */
  abstract countByRecord(): Promise<Array<{ recordId: string; rows: number }>>;
  /**
   * Agents whose storage quota counters (`memory.agent_usage`) differ from their rows; with `repair` the
   * counters are recomputed from the rows (the data check, docs/deployment.md).
   */
  abstract checkUsage(options: { repair: boolean }): Promise<MemoryUsageDrift[]>;
  /**
   * A keyset page (docs/api.md, "List memories"): the record's rows in path order with path strictly after
   * `after` (all when absent), of `type` only if given, at most `limit`. One index range scan
   * (`memories (record_id, path)`, or `(record_id, type, path)` with a type).
   */
  abstract listPage(recordId: string, page: { after?: string; limit: number; type?: MemoryType }): Promise<MemoryRow[]>;
  /** Newest first, at most `perType` of each type. */
  abstract listForContext(recordId: string, types: readonly MemoryType[], perType: number): Promise<MemoryRow[]>;
  /**
   * Inserts or replaces the memory at (record, path) with its write log entry and idempotency result in
   * one transaction (record lock shared and tombstone check, path lock, quota charge, deadline checks,
   * `writeVector` with the memory's {@link MemoryNeighbours} up to `w.contextDepth`; a new memory's before
   * the quota charge, a replace's after it). Returns the memory's id. Errors: NotFoundError,
   * IdempotencyClaimLostError, ForbiddenError, DeadlineExceededError, and those of `writeVector`. An error
   * raised inside the transaction means it rolled back (no row written) and is marked
   * ({@link rolledBackInside}): a new memory's vector may have been written under `w.id` and is the caller's
   * to delete. Any other error (at COMMIT, or the transaction could not start) leaves the outcome unknown.
   */
  abstract saveRemember(w: RememberWrite, respond: (id: string) => unknown, writeVector?: (id: string, neighbours: MemoryNeighbours) => Promise<void>): Promise<string>;
  /**
   * Sets the refined type and summary if the memory still exists at version `w.contentHash`, after
   * `writeVector` (given the memory's predecessors up to `w.contextDepth`, locked; no successors).
   */
  abstract applyEnrichment(w: EnrichmentWrite, writeVector?: (neighbours: MemoryNeighbours) => Promise<void>): Promise<GuardedWriteOutcome>;
  /** Memories whose vectors another embedder made, in id order after `cursor`, at most `limit`. */
  abstract listOtherEmbedder(embedderId: string, limit: number, cursor?: string): Promise<MemoryRow[]>;
  /** Whether any memory has a vector of another embedder than `embedderId`. */
  abstract anyOtherEmbedder(embedderId: string): Promise<boolean>;
  /** Sets the embedder of the still-unchanged memories of `versions` after `writeVectors`; returns the ids written. */
  abstract applyReembed(versions: readonly { id: string; contentHash: string }[], embedderId: string, writeVectors: (ids: string[]) => Promise<void>): Promise<string[]>;
  /**
   * Forget, metadata side, with a durable purge task; null when the memory is already gone. The memories
   * that may have borrowed context from it (contextual indexing: it is among their `contextLenders`) are
   * marked stale in the same transaction, so recall leaves them out until the purge task re-indexes them.
   */
  abstract forget(memory: MemoryRow): Promise<PurgeTask | null>;
  /** The memory's contextual state and up to `depth` rows of its record written just before it (newest first); no locks. */
  abstract contextWindow(id: string, depth: number): Promise<{ self: ContextState; before: MemoryRow[] } | null>;
  /**
   * Ids of the record's memories marked stale, in id order after `after` (from the first when absent), at
   * most `limit`; with `lender`, only those whose `contextLenders` hold it.
   */
  abstract staleContext(recordId: string, limit: number, options?: { after?: string; lender?: string }): Promise<string[]>;
  /**
   * A stale memory whose own content cannot be read is never re-indexed: with the memory locked and still at
   * `w.contentHash` and epoch `w.epoch`, runs `deleteEntry()` (its index entry, which may hold borrowed
   * context, goes) and keeps it stale (recall leaves it out). 'changed'/'gone' as {@link applyContext}.
   */
  abstract dropContext(w: Omit<ContextWrite, 'lenders'>, deleteEntry: () => Promise<void>): Promise<GuardedWriteOutcome>;
  /**
   * The erasure of forget task `id` is done (vector and blobs deleted): it becomes context-only (no blob keys
   * left), so only the re-index of its record's stale memories remains to retry.
   */
  abstract erasurePurged(id: string): Promise<void>;
  /**
   * Confirms a re-index in two short transactions: (1) with the lenders locked `FOR SHARE` and the memory
   * `FOR UPDATE`, checks all are still at the versions used and adds the lenders to `contextLenders`
   * (before the entry exists, so a forget of one marks the memory stale); (2) with the memory locked again
   * and its version and epoch unchanged, runs `writeEntry(type)` and clears the stale flag. 'changed': a
   * version or epoch moved (compute again); 'gone': the memory was forgotten.
   */
  abstract applyContext(w: ContextWrite, writeEntry: (type: string) => Promise<void>): Promise<GuardedWriteOutcome>;
  /** Record deletion, metadata side: tombstone, every row of the record, one purge task `taskId`. */
  abstract purgeRecordMetadata(recordId: string, taskId: string): Promise<PurgeTask>;
  abstract pendingPurges(): Promise<PurgeTask[]>;
  abstract purgesCreatedBefore(before: Date, limit: number): Promise<PurgeTask[]>;
  /** The purge task `id`, or null once done. */
  abstract findPurge(id: string): Promise<PurgeTask | null>;
  /** Deletes the purge task `id` once every store is clean. */
  abstract completePurge(id: string): Promise<void>;
}

const rolledBack = new WeakSet<object>();

/**
 * Marks `error` as raised inside a write transaction that it rolled back (a throw from the transaction's
 * callback always rolls it back; only an error at COMMIT leaves the outcome unknown, and is not marked).
 * Returns `error`.
 */
export function markRolledBack<E>(error: E): E {
  if (typeof error === 'object' && error !== null) rolledBack.add(error);
  return error;
}

/** Whether `error` was raised inside a write transaction, which therefore committed nothing ({@link markRolledBack}). */
export function rolledBackInside(error: unknown): boolean {
  return typeof error === 'object' && error !== null && rolledBack.has(error);
}

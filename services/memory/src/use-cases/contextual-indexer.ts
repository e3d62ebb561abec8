import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, verifyBlob } from '@agent-memory/platform';
import type { MemoryType } from '@agent-memory/shared';
import { EMBEDDER, type Embedder } from '../embedding/embedder.port';
import { MemoryRepository, type MemoryRow } from '../persistence/memory.repository';
import { contextDepth, contextOf, contextOptionsFor, contextualEntry, DEFAULT_CONTEXT, type ContextOptions, type ContextSource, withinContextGap } from '../recall/contextual-index';
import { embedDocument } from '../recall/document-embedding';
import { encodeKeywords } from '../recall/keyword-encoder';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';

/** A memory's own index material as its writer computed it (saves reading its blob and embedding it again). */
export interface OwnMaterial {
  /** The version it was computed from; used only if the memory is still at it. */
  contentHash: string;
  dense: Float32Array;
  sparse: ContextSource['sparse'];
}

/** A memory's own content is missing from the blob store or does not match its hash (not an outage: final). */
export class UnreadableContentError extends Error {
  override readonly name = 'UnreadableContentError';
}

/** Injection token of the {@link ContextOptions} in force (`RECALL_CONTEXT`, `RECALL_CONTEXT_GAP_SECONDS`). */
export const RECALL_CONTEXT = Symbol('RecallContext');

/** Attempts of one re-index when a lender or the memory changes meanwhile (each computes again). */
const REINDEX_ATTEMPTS = 4;
/** Stale memories re-indexed per page of {@link ContextualIndexer.repairStale}. */
const STALE_PAGE = 100;
/** Pages of one {@link ContextualIndexer.repairStale} before it gives up until the task's next retry. */
const REPAIR_PAGES = 1_000;

/**
 * Writes contextual index entries (recall/contextual-index.ts; docs/api.md, "Recall") in the memory
 * service, so every adapter (embedded, the vector-index service, Qdrant) stores the same blended vectors
 * and keywords. Its guarantee, "forget stays total": once a forget or a replace of a memory L commits, no
 * word or meaning that only L held lifts another memory in recall. How:
 * - remember, replace and enrichment write the memory's own entry (no context) in their transaction; the
 *   contextual entry is written after COMMIT by {@link reindex}, with all model work (blob reads,
 *   embeddings) outside any transaction;
 * - a re-index records its lenders on the memory's row (`contextLenders`, a superset) in a committed
 *   transaction before it writes the entry, and writes the entry only while the row is locked and at the
 *   epoch it was computed at (`MemoryRepository.applyContext`);
 * - a forget or replace of L marks every row that lists L stale (epoch + 1) in its own transaction:
 *   recall leaves stale rows out (`MemoryRepository.findMany`) from that COMMIT on, and a durable purge
 *   task (the forget's, or a context-only one for a replace; `PurgeStoresUseCase`) re-indexes them
 *   ({@link repairStale}), retried by its job, at start-up and by the purge sweep until it succeeds.
 * A memory whose own content cannot be read because a store is down cannot be re-indexed: it stays stale
 * and the purge task is retried (after the task's other memories). One whose blob is missing or altered
 * never can: its entry is deleted and it stays stale for good, without failing the task. A predecessor
 * whose content cannot be read lends nothing.
 */
@Injectable()
export class ContextualIndexer {
  private readonly logger = new Logger(ContextualIndexer.name);

  constructor(
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    private readonly repository: MemoryRepository,
    @Optional() @Inject(RECALL_CONTEXT) options: ContextOptions = DEFAULT_CONTEXT,
  ) {
    this.options = contextOptionsFor(embedder.id, options);
  }

  /** The options in force for this embedder ({@link contextOptionsFor}). */
  private readonly options: ContextOptions;

  /** Predecessors an entry may borrow from (0 when contextual indexing is off). */
  get depth(): number {
    return contextDepth(this.options);
  }

  /** Whether contextual indexing is on. */
  get enabled(): boolean {
    return this.depth > 0;
  }

  /**
   * Writes the contextual entry of memory `id` (and clears its stale flag) from its current content and
   * predecessors. Returns false when the memory is gone. Throws when its own content cannot be read, on
   * errors of the embedder or index, or when it kept changing for {@link REINDEX_ATTEMPTS} attempts.
   * With contextual indexing off, writes the memory's own entry (clearing a stale flag left from when it was on).
   * `own`: the memory's material as its writer computed it. A memory that is not stale and borrows
   * nothing is left as it is (its entry borrows nothing of a forgotten or replaced memory: it would be stale).
   */
  async reindex(id: string, own?: OwnMaterial): Promise<boolean> {
    for (let attempt = 1; attempt <= REINDEX_ATTEMPTS; attempt++) {
      const window = await this.repository.contextWindow(id, this.depth);
      if (!window) return false;
      const { self, before } = window;
      const mine = own && own.contentHash === self.contentHash ? { id, contentHash: own.contentHash, recordId: self.recordId, createdAt: self.createdAt, dense: own.dense, sparse: own.sparse } : await this.source(self);
      // Only the predecessors actually taken are lenders.
      const lenders = await this.lendersOf(mine, before);
      if (lenders.length === 0 && !self.contextStale) return true;
      const { dense, sparse } = contextualEntry(mine, lenders, this.options);
      const outcome = await this.repository.applyContext(
        { id, contentHash: self.contentHash, epoch: self.contextEpoch, lenders: lenders.map((l) => ({ id: l.id, contentHash: l.contentHash })) },
        (type) => this.index.upsert([{ id, tenant: self.recordId, dense, sparse, payload: { type: type as MemoryType } }]),
      );
      if (outcome === 'gone') return false;
      if (outcome === 'applied') return true;
    }
    throw new Error(`Contextual re-index of memory ${id} did not settle after ${REINDEX_ATTEMPTS} attempts`);
  }

  /**
   * Re-indexes the stale memories of the record (the purge task of a forget or replace): `only` these ids
   * (the ones a forget or replace just marked, its inline run), else every stale memory in id order, page
   * by page (each re-index clears its memory's flag). A failing memory does not stop the others: the rest
   * are re-indexed, then it throws (the task is retried). A memory whose own content is missing or altered
   * ({@link UnreadableContentError}, as opposed to a store that is down) can never be re-indexed: its index
   * entry is deleted (nothing it borrowed can show), it stays stale (recall leaves it out), it is logged,
   * and it does not fail the task. Also throws when stale memories remain after {@link REPAIR_PAGES} pages.
   * Returns how many were re-indexed.
   */
  async repairStale(recordId: string, only?: readonly string[]): Promise<number> {
    let done = 0;
    const failures: Array<{ id: string; err: unknown }> = [];
    const repair = async (id: string) => {
      try {
        if (await this.reindex(id)) done++;
      } catch (err) {
        try {
          if (!(err instanceof UnreadableContentError)) throw err;
          await this.withdraw(id, err);
        } catch (failure) {
          failures.push({ id, err: failure });
        }
      }
    };
    if (only) {
      for (const id of only) await repair(id);
    } else {
      let after: string | undefined;
      for (let page = 0; ; page++) {
        const ids = await this.repository.staleContext(recordId, STALE_PAGE, { after });
        if (ids.length === 0) break;
        if (page >= REPAIR_PAGES) throw new Error(`Stale contextual entries of record ${recordId} remain after ${REPAIR_PAGES} pages; retried later`);
        for (const id of ids) await repair(id);
        after = ids[ids.length - 1];
      }
    }
    if (failures.length > 0) {
      throw new Error(`Contextual re-index of ${failures.length} stale memories of record ${recordId} failed (first: ${failures[0].id}); retried later`, { cause: failures[0].err });
    }
    return done;
  }

  /**
   * A stale memory whose own content cannot be read: deletes its index entry (if it is still at the version
   * and epoch read) and leaves it stale. Throws when the delete fails or the memory changed meanwhile (retried).
   */
  private async withdraw(id: string, cause: UnreadableContentError): Promise<void> {
    const window = await this.repository.contextWindow(id, 0);
    if (!window) return;
    const { self } = window;
    const outcome = await this.repository.dropContext({ id, contentHash: self.contentHash, epoch: self.contextEpoch }, () => this.index.delete(self.recordId, [id]));
    if (outcome === 'changed') throw new Error(`Memory ${id} changed while its unreadable entry was withdrawn; retried later`, { cause });
    if (outcome === 'applied') this.logger.error({ memoryId: id, recordId: self.recordId, err: cause }, 'Own content of a stale memory cannot be read: its index entry is deleted and recall leaves it out');
  }

  /**
   * After the COMMIT of a remember, replace or enrichment of memory `id`: writes its contextual entry.
   * Never throws: a failed re-index leaves the memory's own entry, which borrows nothing (safe).
   */
  async afterWrite(id: string, own?: OwnMaterial): Promise<void> {
    if (!this.enabled) return;
    try {
      await this.reindex(id, own);
    } catch (err) {
      this.logger.warn({ memoryId: id, err }, 'Contextual re-index failed; the memory keeps its own index entry');
    }
  }

  /**
   * The predecessors of `mine` (`before`, newest first) that lend it context: {@link contextOf}'s rule,
   * applied one predecessor at a time, so that a predecessor is read and embedded only when the chain
   * reaches it and its record and time gap allow it, and its keywords are encoded only when it is taken (on
   * data whose neighbours are unrelated the first one usually fails the similarity gate: one blob read and
   * one cached embedding per remember instead of `depth` of each, plus their keyword encodings). The chain
   * stops at a predecessor whose content cannot be read: it lends nothing, nor do those before it.
   */
  private async lendersOf(mine: ContextSource & { id: string }, before: readonly MemoryRow[]): Promise<Array<ContextSource & { id: string; contentHash: string }>> {
    const taken: Array<Omit<ContextSource, 'sparse'> & { id: string; contentHash: string; content: string }> = [];
    for (const row of before.slice(0, this.depth)) {
      if (!withinContextGap(mine, taken.at(-1) ?? mine, row, this.options)) break;
      const candidate = await this.denseSource(row);
      if (!candidate) break;
      if (contextOf<Pick<ContextSource, 'recordId' | 'createdAt' | 'dense'>>(mine, [...taken, candidate], this.options).length <= taken.length) break;
      taken.push(candidate);
    }
    return taken.map(({ content, ...lender }) => ({ ...lender, sparse: encodeKeywords(content) }));
  }

  /** A predecessor's content and own dense vector, or null when its content cannot be read (missing, altered, or its store down). */
  private async denseSource(row: MemoryRow): Promise<(Omit<ContextSource, 'sparse'> & { id: string; contentHash: string; content: string }) | null> {
    let bytes: Buffer | null;
    try {
      bytes = await this.blobs.get(row.blobKey);
    } catch {
      return null;
    }
    if (!bytes || verifyBlob(row.blobKey, bytes, row.contentHash)) return null;
    const content = bytes.toString('utf8');
    const dense = await embedDocument(this.embedder, content, { scope: row.recordId });
    return { id: row.id, contentHash: row.contentHash, recordId: row.recordId, createdAt: row.createdAt, dense, content };
  }

  /**
   * A memory's own index material. Throws the store's error when its content cannot be read, and
   * {@link UnreadableContentError} when it is missing or does not match its hash.
   */
  private async source(row: Pick<MemoryRow, 'id' | 'recordId' | 'createdAt' | 'blobKey' | 'contentHash'>): Promise<ContextSource & { id: string; contentHash: string }> {
    const bytes = await this.blobs.get(row.blobKey);
    if (!bytes) throw new UnreadableContentError(`Content of memory ${row.id} is missing (${row.blobKey})`);
    const damage = verifyBlob(row.blobKey, bytes, row.contentHash);
    if (damage) throw new UnreadableContentError(damage.message, { cause: damage });
    const content = bytes.toString('utf8');
    const dense = await embedDocument(this.embedder, content, { scope: row.recordId });
    return { id: row.id, contentHash: row.contentHash, recordId: row.recordId, createdAt: row.createdAt, dense, sparse: encodeKeywords(content) };
  }
}

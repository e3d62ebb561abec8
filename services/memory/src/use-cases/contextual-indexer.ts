import { Inject, Injectable, Optional } from '@nestjs/common';
import type { MemoryType } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore, verifyBlob } from '@agent-memory/platform';
import { EMBEDDER, type Embedder } from '../embedding/embedder.port';
import type { MemoryNeighbours, MemoryRow } from '../persistence/memory.repository';
import { contextDepth, contextualEntry, DEFAULT_CONTEXT, type ContextOptions, type ContextSource } from '../recall/contextual-index';
import { embedDocument } from '../recall/document-embedding';
import { encodeKeywords } from '../recall/keyword-encoder';
import { VECTOR_INDEX, type VectorIndex, type VectorPoint } from '../vector-index/vector-index.port';

/** Injection token of the {@link ContextOptions} in force (`RECALL_CONTEXT`, `RECALL_CONTEXT_GAP_SECONDS`). */
export const RECALL_CONTEXT = Symbol('RecallContext');

/** A memory being written, with its own index material. */
export interface IndexedMemory {
  id: string;
  recordId: string;
  type: MemoryType;
  /** Unit vector of its own content. */
  dense: Float32Array;
  /** Keywords of its own content. */
  sparse: ContextSource['sparse'];
}

interface WindowEntry {
  id: string;
  type: MemoryType;
  source: ContextSource;
}

/**
 * Writes contextual index entries (recall/contextual-index.ts) in the memory service, before the index
 * write, so every adapter (embedded, the vector-index service, Qdrant) stores the same blended vectors
 * and keywords. Runs inside the remember or forget transaction with the neighbours it read under row
 * locks (`MemoryRepository.saveRemember`, `forget`): a crash before COMMIT leaves the memory in place,
 * so no forgotten memory's words ever stay findable through a neighbour. A neighbour's own material is
 * re-made from its content (blob, checked against its hash; keywords; embedding, scoped to the record and
 * usually answered by the embedder's cache). A predecessor whose blob is missing or altered lends
 * nothing; a memory after it whose content cannot be read fails the write (its entry might still hold the
 * words of a forgotten memory: fail closed, the transaction rolls back and nothing is forgotten half).
 */
@Injectable()
export class ContextualIndexer {
  constructor(
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Optional() @Inject(RECALL_CONTEXT) private readonly options: ContextOptions = DEFAULT_CONTEXT,
  ) {}

  /** Neighbours to read on each side of a write (0 when contextual indexing is off). */
  get depth(): number {
    return contextDepth(this.options);
  }

  /**
   * Upserts the entry of `memory` (written at `neighbours.createdAt`; null for a forget, whose memory
   * is no longer in the window) and re-computes the entries of the memories after it, whose context
   * it changes. One `upsert` call. Errors of the blob store, embedder and index propagate.
   */
  async write(memory: IndexedMemory | null, neighbours: MemoryNeighbours): Promise<void> {
    const before = (await this.sources(neighbours.before, false)).reverse();
    const self: WindowEntry[] = memory
      ? [{ id: memory.id, type: memory.type, source: { recordId: memory.recordId, createdAt: neighbours.createdAt, dense: memory.dense, sparse: memory.sparse } }]
      : [];
    const after = await this.sources(neighbours.after, true);
    // Oldest first: the memory's predecessors, the memory, the memories written after it.
    const window = [...before, ...self, ...after];
    const points: VectorPoint[] = [];
    for (let i = before.length; i < window.length; i++) {
      const entry = window[i];
      const predecessors = window.slice(0, i).reverse().map((w) => w.source);
      const { dense, sparse } = contextualEntry(entry.source, predecessors, this.options);
      points.push({ id: entry.id, tenant: entry.source.recordId, dense, sparse, payload: { type: entry.type } });
    }
    if (points.length > 0) await this.index.upsert(points);
  }

  /**
   * Own material of stored rows, in the given order. A row whose content cannot be read is left out, or,
   * when `required`, throws the BlobIntegrityError (or an Error for a missing blob).
   */
  private async sources(rows: readonly MemoryRow[], required: boolean): Promise<WindowEntry[]> {
    const entries = await Promise.all(
      rows.map(async (row): Promise<WindowEntry | null> => {
        const bytes = await this.blobs.get(row.blobKey);
        const damage = bytes ? verifyBlob(row.blobKey, bytes, row.contentHash) : new Error(`Content of memory ${row.id} is missing (${row.blobKey})`);
        if (damage && required) throw damage;
        if (!bytes || damage) return null;
        const content = bytes.toString('utf8');
        const dense = await embedDocument(this.embedder, content, { scope: row.recordId });
        return { id: row.id, type: row.type as MemoryType, source: { recordId: row.recordId, createdAt: row.createdAt, dense, sparse: encodeKeywords(content) } };
      }),
    );
    return entries.filter((e): e is WindowEntry => e !== null);
  }
}

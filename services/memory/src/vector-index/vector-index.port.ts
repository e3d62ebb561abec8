import type { MemoryType } from '@agent-memory/shared';

/** Sparse term vector: `indices` are 32-bit term ids (sorted ascending, unique), `values` their term frequencies. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/** One memory in the index. `tenant` is the record id: every query is confined to one tenant. */
export interface VectorPoint {
  id: string;
  tenant: string;
  /** Unit-length dense embedding of `IndexDescriptor.dimension` floats. */
  dense: Float32Array;
  /** Keyword (BM25) terms of the content, from `recall/keyword-encoder.ts`. */
  sparse: SparseVector;
  payload: { type: MemoryType };
}

export interface VectorSearch {
  tenant: string;
  limit: number;
  /** When given, only points whose payload type is one of these. */
  types?: readonly MemoryType[];
}

/** A search hit; `score` is cosine similarity (dense search) or BM25 (sparse search). */
export interface VectorHit {
  id: string;
  score: number;
}

/** What the vectors of an index were made by; an index refuses vectors of another embedder. */
export interface IndexDescriptor {
  embedderId: string;
  dimension: number;
}

/**
 * Port: the vector index of memories, dense (cosine) and sparse (BM25) search confined to one tenant.
 * Adapters: `embedded.vector-index.ts` (standalone, persisted under the data directory) and
 * `qdrant.vector-index.ts` (cluster). Both pass `vector-index.contract.ts`.
 */
export interface VectorIndex {
  /** Opens or creates the index for `descriptor`; throws if it already holds vectors of another embedder or dimension. */
  open(descriptor: IndexDescriptor): Promise<void>;
  /** Inserts or replaces points by id. Throws if a vector's length is not the descriptor's dimension. */
  upsert(points: readonly VectorPoint[]): Promise<void>;
  /** Top `limit` points of the tenant by cosine similarity to `vector`, best first. */
  searchDense(vector: Float32Array, search: VectorSearch): Promise<VectorHit[]>;
  /** Top `limit` points of the tenant by BM25 score of the query terms, best first; points with score 0 are left out. */
  searchSparse(query: SparseVector, search: VectorSearch): Promise<VectorHit[]>;
  /** Cosine similarity of `vector` to each of the given points of the tenant (missing ids are left out). */
  scoreDense(vector: Float32Array, tenant: string, ids: readonly string[]): Promise<Map<string, number>>;
  /** Deletes points by id within a tenant; ids that do not exist are ignored. */
  delete(tenant: string, ids: readonly string[]): Promise<void>;
  /** Deletes every point of a tenant. */
  deleteTenant(tenant: string): Promise<void>;
  /**
   * Makes deletions final on disk: rewrites storage so that deleted vectors no longer exist anywhere
   * (embedded: log compaction). Adapters whose deletes are already final may do nothing.
   */
  compact(): Promise<void>;
  /** Number of points of the tenant. */
  count(tenant: string): Promise<number>;
  /** Flushes and releases resources. */
  close(): Promise<void>;
}
export const VECTOR_INDEX = Symbol('VectorIndex');

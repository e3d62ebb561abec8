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

/** What {@link VectorIndex.searchCandidates} searches: the dense query, the sparse query (may have no terms), and where. */
export interface CandidateSearch {
  vector: Float32Array;
  sparse: SparseVector;
  search: VectorSearch;
}

/** The candidates of one hybrid recall: the dense and sparse top `limit`, and the cosine of each sparse hit not among the dense ones. */
export interface CandidateHits {
  dense: VectorHit[];
  sparse: VectorHit[];
  cosines: Map<string, number>;
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
  /**
   * The candidates of a hybrid recall in one call ({@link searchCandidatesViaPort} defines them: dense and
   * sparse search, then the cosines of the sparse-only hits), so that an adapter behind a network hop
   * makes one round trip instead of two sequential ones.
   */
  searchCandidates(request: CandidateSearch): Promise<CandidateHits>;
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

/**
 * {@link VectorIndex.searchCandidates} through the port's other methods: `searchDense` and `searchSparse`
 * (skipped when the sparse query has no terms) in parallel, then `scoreDense` of the sparse hits the dense
 * search did not return (skipped when there are none). What every adapter answers; the embedded and Qdrant
 * adapters run exactly this.
 */
export async function searchCandidatesViaPort(index: VectorIndex, { vector, sparse, search }: CandidateSearch): Promise<CandidateHits> {
  const [dense, sparseHits] = await Promise.all([index.searchDense(vector, search), sparse.indices.length > 0 ? index.searchSparse(sparse, search) : Promise.resolve([])]);
  const inDense = new Set(dense.map((hit) => hit.id));
  const missing = sparseHits.filter((hit) => !inDense.has(hit.id)).map((hit) => hit.id);
  const cosines = missing.length > 0 ? await index.scoreDense(vector, search.tenant, missing) : new Map<string, number>();
  return { dense, sparse: sparseHits, cosines };
}

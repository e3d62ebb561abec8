import type { MemoryType } from '@agent-memory/shared';
import type { VectorIndex } from '../vector-index/vector-index.port';
import { HYBRID_FUSION, convexScoreFusion, hybridCandidateDepth, type HybridHit } from './hybrid-ranking';
import { encodeQuery } from './keyword-encoder';

/** One hybrid recall over a {@link VectorIndex}. */
export interface HybridSearchRequest {
  tenant: string;
  /** Embedding of `denseQueryText(query)` (recall/query-rewrite.ts), by the index's embedder. */
  vector: Float32Array;
  /** The query text as the user gave it; keywords are taken from it with `encodeQuery`. */
  query: string;
  /** Results wanted (≥ 0). */
  limit: number;
  types?: readonly MemoryType[];
  /**
   * Which of the candidate ids recall may show (rows that exist and are not stale); the others are dropped
   * before fusion, so an entry being forgotten or re-indexed never sets the scale of the scores. Absent: all.
   */
  visible?: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
}

/**
 * Hybrid recall through the port only, so it works the same on every adapter:
 * 1. `searchDense` and `searchSparse` (query terms counted once), {@link hybridCandidateDepth}(limit)
 *    candidates each, in parallel; with `request.visible`, the candidates recall may not show are dropped;
 * 2. `scoreDense` for keyword hits that the dense search did not return, so that every candidate has its
 *    exact cosine (without it keyword-only hits rank as if unrelated: LoCoMo R@10 68.8 → 58.7);
 * 3. {@link convexScoreFusion} with {@link HYBRID_FUSION}, best first, cut to `limit`.
 * Each hit carries the fusion `score` (the order), its `relevance` (the API's `similarity`: the same order
 * in 0..1) and `similarity` (the cosine).
 * Variants the service does not use (RRF, RM3 feedback, other fusion weights and candidate depths) are
 * measured in bench/locomo-offline/tune.ts. Errors of the index propagate.
 */
export async function hybridSearch(index: VectorIndex, request: HybridSearchRequest): Promise<HybridHit[]> {
  const limit = Math.max(0, Math.floor(request.limit));
  if (limit === 0) return [];
  const search = { tenant: request.tenant, limit: hybridCandidateDepth(limit), types: request.types };
  const keywords = encodeQuery(request.query);
  let [dense, sparse] = await Promise.all([
    index.searchDense(request.vector, search),
    keywords.indices.length > 0 ? index.searchSparse(keywords, search) : Promise.resolve([]),
  ]);
  if (request.visible) {
    const shown = await request.visible([...new Set([...dense, ...sparse].map((hit) => hit.id))]);
    dense = dense.filter((hit) => shown.has(hit.id));
    sparse = sparse.filter((hit) => shown.has(hit.id));
  }
  const inDense = new Set(dense.map((hit) => hit.id));
  const missing = sparse.filter((hit) => !inDense.has(hit.id)).map((hit) => hit.id);
  const cosines = missing.length > 0 ? await index.scoreDense(request.vector, request.tenant, missing) : new Map<string, number>();
  return convexScoreFusion({ dense, sparse, cosines }, HYBRID_FUSION).slice(0, limit);
}

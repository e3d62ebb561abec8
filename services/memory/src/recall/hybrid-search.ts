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
   * Which of the given candidate ids recall may show (rows that exist and are not stale); the others are
   * dropped before fusion, so an entry being forgotten or re-indexed never shows nor sets the scale of the
   * scores. Called with the ids that decide the answer (see {@link hybridSearch}), possibly more than once,
   * never twice with one id. Absent: all.
   */
  visible?: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
}

/**
 * Hybrid recall through the port only, so it works the same on every adapter:
 * 1. `searchDense` and `searchSparse` (query terms counted once), {@link hybridCandidateDepth}(limit)
 *    candidates each, in parallel;
 * 2. `scoreDense` for keyword hits that the dense search did not return, so that every candidate has its
 *    exact cosine (without it keyword-only hits rank as if unrelated: LoCoMo R@10 68.8 → 58.7);
 *    steps 1 and 2 are one `searchCandidates` call (one bus round trip to the `vector-index` process);
 * 3. {@link convexScoreFusion} with {@link HYBRID_FUSION}, best first, cut to `limit`.
 * With `request.visible`, the candidates recall may not show (forgotten, half-written, stale while
 * re-indexed) are left out before fusion, so they neither show nor set the scale of the scores. Only the
 * candidates that can matter are asked about: the first `limit` of the fusion and the ones holding the
 * highest cosine and the highest BM25 (the fusion's normalisers); a hidden one among them is dropped and
 * the fusion redone, until all of them are visible. The answer is the same as filtering every candidate
 * first (the others change neither the normalisers nor the first `limit`), for a row read of about
 * `limit` + 2 ids instead of up to 2 × the candidate depth.
 * Each hit carries the fusion `score` (the order), its `relevance` (the API's `similarity`: the same order
 * in 0..1) and `similarity` (the cosine).
 * Variants the service does not use (RRF, RM3 feedback, other fusion weights and candidate depths) are
 * measured in bench/locomo-offline/tune.ts. Errors of the index and of `visible` propagate.
 */
export async function hybridSearch(index: VectorIndex, request: HybridSearchRequest): Promise<HybridHit[]> {
  const limit = Math.max(0, Math.floor(request.limit));
  if (limit === 0) return [];
  const search = { tenant: request.tenant, limit: hybridCandidateDepth(limit), types: request.types };
  const keywords = encodeQuery(request.query);
  const candidates = await index.searchCandidates({ vector: request.vector, sparse: keywords, search });
  let { dense, sparse } = candidates;
  const { cosines } = candidates;
  const shown = new Set<string>();
  for (;;) {
    const fused = convexScoreFusion({ dense, sparse, cosines }, HYBRID_FUSION);
    if (!request.visible) return fused.slice(0, limit);
    const top = fused.slice(0, limit);
    const anchors = [...top, argmax(fused, (h) => h.similarity ?? -Infinity), argmax(fused, (h) => h.bm25)];
    const unknown = [...new Set(anchors.filter((h): h is HybridHit => h !== undefined).map((h) => h.id))].filter((id) => !shown.has(id));
    if (unknown.length === 0) return top;
    const visible = await request.visible(unknown);
    const hidden = new Set(unknown.filter((id) => !visible.has(id)));
    for (const id of unknown) if (!hidden.has(id)) shown.add(id);
    if (hidden.size > 0) {
      dense = dense.filter((hit) => !hidden.has(hit.id));
      sparse = sparse.filter((hit) => !hidden.has(hit.id));
    }
  }
}

/** The hit with the largest `key` (the first of equals), or undefined for none. */
function argmax(hits: readonly HybridHit[], key: (hit: HybridHit) => number): HybridHit | undefined {
  let best: HybridHit | undefined;
  for (const hit of hits) if (best === undefined || key(hit) > key(best)) best = hit;
  return best;
}

import type { VectorHit } from '../vector-index/vector-index.port';

/** The two candidate lists of one recall, each best first, plus exact cosines of keyword-only candidates. */
export interface HybridCandidates {
  /** `searchDense` hits: score = cosine similarity. */
  dense: readonly VectorHit[];
  /** `searchSparse` hits: score = BM25 (> 0). */
  sparse: readonly VectorHit[];
  /**
   * Cosine similarity of sparse hits that are not among the dense hits (from `scoreDense`), so that every
   * candidate has its true similarity. Optional: without it those candidates count as least similar.
   */
  cosines?: ReadonlyMap<string, number>;
}

/** One fused result. */
export interface HybridHit {
  id: string;
  /** Fusion score; the order of the results. Only comparable within one recall. */
  score: number;
  /** Cosine similarity of query and memory, when known (DESIGN.md §4 `similarity`). */
  similarity: number | null;
  /** BM25 score, 0 when the memory was not a keyword hit. */
  bm25: number;
}

/** Parameters of {@link reciprocalRankFusion}. */
export interface RrfOptions {
  /** Rank offset k of 1/(k + rank); larger flattens the head. */
  k: number;
  /** Weight of the dense list. */
  denseWeight: number;
  /** Weight of the sparse list. */
  sparseWeight: number;
}

/** Cormack, Clarke & Büttcher 2009 ("Reciprocal Rank Fusion outperforms Condorcet and individual rank learning methods"): k = 60, equal weights. */
export const RRF_DEFAULTS: RrfOptions = { k: 60, denseWeight: 1, sparseWeight: 1 };

/**
 * Reciprocal rank fusion (Cormack et al. 2009): score(d) = Σ_lists w_l / (k + rank_l(d)), ranks from 1;
 * a list that does not contain d adds nothing. Uses ranks only, so no score calibration is needed, but
 * it also throws away how much better the first hit is than the second. Ties: higher cosine, then id.
 */
export function reciprocalRankFusion(candidates: HybridCandidates, options: RrfOptions = RRF_DEFAULTS): HybridHit[] {
  const hits = collect(candidates);
  const denseRank = rankOf(candidates.dense);
  const sparseRank = rankOf(candidates.sparse);
  for (const hit of hits.values()) {
    const dr = denseRank.get(hit.id);
    const sr = sparseRank.get(hit.id);
    hit.score =
      (dr === undefined ? 0 : options.denseWeight / (options.k + dr)) + (sr === undefined ? 0 : options.sparseWeight / (options.k + sr));
  }
  return sorted(hits);
}

/** Parameters of {@link convexScoreFusion}. */
export interface ConvexFusionOptions {
  /** α of α·dense + (1 − α)·sparse, in 0..1. */
  denseWeight: number;
}

/**
 * Convex combination of normalised scores (Bruch, Gai & Ingber 2023, "An Analysis of Fusion Functions
 * for Hybrid Retrieval", ACM TOIS 42(1)): score = α·dense' + (1 − α)·sparse', where
 * - sparse' = BM25 / max BM25 of the candidates (BM25's theoretical minimum is 0), 0 for non-keyword hits;
 * - dense' = (cos − min) / (max − min) over the candidates (min-max), 0 when all are equal or unknown.
 * Unlike RRF it keeps score gaps: a keyword hit far ahead of the rest stays ahead.
 */
export function convexScoreFusion(candidates: HybridCandidates, options: ConvexFusionOptions): HybridHit[] {
  const hits = collect(candidates);
  let maxBm25 = 0;
  let minCos = Infinity;
  let maxCos = -Infinity;
  for (const hit of hits.values()) {
    maxBm25 = Math.max(maxBm25, hit.bm25);
    if (hit.similarity !== null) {
      minCos = Math.min(minCos, hit.similarity);
      maxCos = Math.max(maxCos, hit.similarity);
    }
  }
  const cosRange = maxCos - minCos;
  const alpha = options.denseWeight;
  for (const hit of hits.values()) {
    const dense = hit.similarity === null || !(cosRange > 0) ? 0 : (hit.similarity - minCos) / cosRange;
    const sparse = maxBm25 > 0 ? hit.bm25 / maxBm25 : 0;
    hit.score = alpha * dense + (1 - alpha) * sparse;
  }
  return sorted(hits);
}

function collect(candidates: HybridCandidates): Map<string, HybridHit> {
  const hits = new Map<string, HybridHit>();
  for (const hit of candidates.dense) hits.set(hit.id, { id: hit.id, score: 0, similarity: hit.score, bm25: 0 });
  for (const hit of candidates.sparse) {
    const existing = hits.get(hit.id);
    if (existing) existing.bm25 = hit.score;
    else hits.set(hit.id, { id: hit.id, score: 0, similarity: candidates.cosines?.get(hit.id) ?? null, bm25: hit.score });
  }
  return hits;
}

function rankOf(list: readonly VectorHit[]): Map<string, number> {
  const ranks = new Map<string, number>();
  list.forEach((hit, i) => ranks.set(hit.id, i + 1));
  return ranks;
}

function sorted(hits: Map<string, HybridHit>): HybridHit[] {
  return [...hits.values()].sort(
    (a, b) =>
      b.score - a.score || (b.similarity ?? -Infinity) - (a.similarity ?? -Infinity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

import type { VectorHit } from '../vector-index/vector-index.port';

/** The two candidate lists of one recall, each best first, plus exact cosines of keyword-only candidates. */
export interface HybridCandidates {
  /** `searchDense` hits: score = cosine similarity. */
  dense: readonly VectorHit[];
  /** `searchSparse` hits: score = BM25 (> 0). */
  sparse: readonly VectorHit[];
  /**
   * Cosine similarity of the sparse hits that are not among the dense hits (from `scoreDense`), so that
   * every candidate is ranked by its true similarity. Without it such a candidate counts as having the
   * lowest possible similarity: LoCoMo R@10 68.8 → 58.7.
   */
  cosines?: ReadonlyMap<string, number>;
}

/** One fused result. */
export interface HybridHit {
  id: string;
  /** Fusion score, 0..1 for {@link convexScoreFusion}; the order of the results. Comparable within one recall only. */
  score: number;
  /**
   * `score` scaled by one factor per recall into 0..1 so that it also says how close the best match is
   * (the API's `similarity`, docs/api.md "Recall"): never increasing down the list, as `score`.
   */
  relevance: number;
  /** Cosine similarity of query and memory, when known (the dense side; also the first tie-break). */
  similarity: number | null;
  /** BM25 score, 0 when the memory was not a keyword hit. */
  bm25: number;
}

/** Parameters of {@link convexScoreFusion}. */
export interface ConvexFusionOptions {
  /** α of α·dense' + (1 − α)·sparse', in 0..1. */
  denseWeight: number;
  /**
   * Lower bound of the dense score used for normalisation: the theoretical minimum of cosine (−1) as in
   * Bruch et al.'s TM2C2. Similarities below it are clamped.
   */
  denseFloor: number;
}

/**
 * The service's fusion: TM2C2 of Bruch, Gai & Ingber 2023 ("An Analysis of Fusion Functions for Hybrid
 * Retrieval", ACM TOIS 42(1)) with α = 0.84 on the dense side.
 *
 * Why TM2C2: the paper finds a convex combination of scores beats RRF once a few labelled queries exist,
 * and that normalising with the theoretical minimum (−1 for cosine, 0 for BM25) and the observed maximum
 * is robust: the result does not depend on how many candidates were fetched or on the tenant's size, as
 * min-max over the candidates does. Why α ≈ 0.8: cosines in −1..max take a narrow band after
 * normalisation (a close memory ≈ 0.9, an unrelated one ≈ 0.7), so the dense side needs the larger
 * weight to move the order as much as BM25/max does. Without contextual indexing, LoCoMo R@10
 * (bench/locomo-offline/tune.ts) by α: 0.5 → 67.0, 0.6 → 67.6, 0.7 → 68.5, 0.8 → 68.8, 0.9 → 65.7; RRF
 * (k = 60) 60.3, best RRF tried 67.1. Why 0.84 rather than 0.8: with contextual entries (which already
 * carry their neighbours' keywords) it costs LoCoMo R@10 0.5 and gives the paraphrase set (unrelated
 * memories, paraphrased questions) recall@3 66.7 instead of 60.0 (bench/locomo-offline/context-tune.ts,
 * group `stateless`; the figures in recall/contextual-index.ts, DEFAULT_CONTEXT).
 * Revisit α with another embedder: its cosines have another spread.
 */
export const HYBRID_FUSION: ConvexFusionOptions = { denseWeight: 0.84, denseFloor: -1 };

/**
 * Convex combination of normalised scores (Bruch et al. 2023): score = α·dense' + (1 − α)·sparse', where
 * - dense' = (max(cos, floor) − floor) / (max cos − floor) over the candidates (1 for the most similar);
 *   0 for a candidate whose cosine is unknown;
 * - sparse' = BM25 / max BM25 of the candidates (BM25's theoretical minimum is 0), 0 for non-keyword hits.
 * Unlike rank fusion it keeps score gaps: a memory far ahead on one side stays ahead. Ties: higher
 * cosine, then id. Pure; returns every candidate once, best first.
 *
 * `relevance` = score · (max cos − floor) / (1 − floor): the same order, in 0..1, and absolute on the
 * dense side (α·(cos − floor)/(1 − floor), the cosine mapped onto 0..1), so a recall whose best match is
 * only loosely related scores low everywhere instead of starting at 1.
 */
export function convexScoreFusion(candidates: HybridCandidates, options: ConvexFusionOptions = HYBRID_FUSION): HybridHit[] {
  const hits = collect(candidates);
  const floor = options.denseFloor;
  let maxBm25 = 0;
  let maxCos = -Infinity;
  for (const hit of hits.values()) {
    maxBm25 = Math.max(maxBm25, hit.bm25);
    if (hit.similarity !== null) maxCos = Math.max(maxCos, hit.similarity);
  }
  const cosRange = maxCos - floor;
  const alpha = options.denseWeight;
  for (const hit of hits.values()) {
    const dense = hit.similarity === null || !(cosRange > 0) ? 0 : (Math.max(hit.similarity, floor) - floor) / cosRange;
    const sparse = maxBm25 > 0 ? hit.bm25 / maxBm25 : 0;
    hit.score = alpha * dense + (1 - alpha) * sparse;
  }
  const scale = cosRange > 0 ? Math.min(1, cosRange / (1 - floor)) : 1;
  for (const hit of hits.values()) hit.relevance = clampUnit(hit.score * scale);
  return sorted(hits);
}

/**
 * How many candidates to fetch from each of `searchDense` and `searchSparse` for a recall of `limit`
 * results: max(50, 2·limit), at most 500. With exact cosines for keyword-only candidates the fused order
 * hardly changes with depth (LoCoMo R@10 with 25 / 50 / 100 / 200 candidates: 68.3 / 68.8 / 68.7 / 68.6),
 * and a deeper fetch costs only in `scoreDense`, the fusion and the transfer.
 */
export function hybridCandidateDepth(limit: number): number {
  return Math.min(500, Math.max(50, 2 * Math.ceil(limit)));
}

function collect(candidates: HybridCandidates): Map<string, HybridHit> {
  const hits = new Map<string, HybridHit>();
  for (const hit of candidates.dense) hits.set(hit.id, { id: hit.id, score: 0, relevance: 0, similarity: hit.score, bm25: 0 });
  for (const hit of candidates.sparse) {
    const existing = hits.get(hit.id);
    if (existing) existing.bm25 = hit.score;
    else hits.set(hit.id, { id: hit.id, score: 0, relevance: 0, similarity: candidates.cosines?.get(hit.id) ?? null, bm25: hit.score });
  }
  return hits;
}

function clampUnit(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

function sorted(hits: Map<string, HybridHit>): HybridHit[] {
  return [...hits.values()].sort(
    (a, b) =>
      b.score - a.score || (b.similarity ?? -Infinity) - (a.similarity ?? -Infinity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * Retrieval variants that the service does not use, kept for the comparisons of bench/locomo-offline/tune.ts
 * (moved out of services/memory/src/recall, which holds only what production runs): reciprocal rank fusion
 * and RM3 pseudo-relevance feedback. Both work on the same candidates as the service's fusion
 * (`HybridCandidates` of services/memory/src/recall/hybrid-ranking.ts).
 */
import type { HybridCandidates, HybridHit, SparseVector } from '@agent-memory/memory';

/** Parameters of {@link reciprocalRankFusion}. */
export interface RrfOptions {
  /** Rank offset k of 1/(k + rank); larger flattens the head. */
  k: number;
  /** Weight of the dense list. */
  denseWeight: number;
  /** Weight of the sparse list. */
  sparseWeight: number;
}

/** Cormack, Clarke & Büttcher 2009: k = 60, equal weights. */
export const RRF_DEFAULTS: RrfOptions = { k: 60, denseWeight: 1, sparseWeight: 1 };

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009, "Reciprocal Rank Fusion outperforms Condorcet
 * and individual rank learning methods", SIGIR): score(d) = Σ_lists w / (k + rank(d)), ranks from 1; a
 * list that does not contain d adds nothing. Needs no score calibration, but ignores how far apart the
 * scores are, so a weak list (dense with a small model) pulls good keyword hits down (LoCoMo R@10 60.3 at
 * k = 60 against 68.8 for the service's TM2C2). Ties: higher cosine, then id. `relevance`: the best possible
 * score (first in both lists) maps to 1.
 */
export function reciprocalRankFusion(candidates: HybridCandidates, options: RrfOptions = RRF_DEFAULTS): HybridHit[] {
  const hits = new Map<string, HybridHit>();
  for (const hit of candidates.dense) hits.set(hit.id, { id: hit.id, score: 0, relevance: 0, similarity: hit.score, bm25: 0 });
  for (const hit of candidates.sparse) {
    const existing = hits.get(hit.id);
    if (existing) existing.bm25 = hit.score;
    else hits.set(hit.id, { id: hit.id, score: 0, relevance: 0, similarity: candidates.cosines?.get(hit.id) ?? null, bm25: hit.score });
  }
  const denseRank = new Map(candidates.dense.map((hit, i) => [hit.id, i + 1]));
  const sparseRank = new Map(candidates.sparse.map((hit, i) => [hit.id, i + 1]));
  for (const hit of hits.values()) {
    const dr = denseRank.get(hit.id);
    const sr = sparseRank.get(hit.id);
    hit.score = (dr === undefined ? 0 : options.denseWeight / (options.k + dr)) + (sr === undefined ? 0 : options.sparseWeight / (options.k + sr));
    const relevance = (hit.score * (options.k + 1)) / (options.denseWeight + options.sparseWeight || 1);
    hit.relevance = Number.isFinite(relevance) ? Math.min(1, Math.max(0, relevance)) : 0;
  }
  return [...hits.values()].sort(
    (a, b) => b.score - a.score || (b.similarity ?? -Infinity) - (a.similarity ?? -Infinity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** Parameters of {@link expandQuery}. */
export interface FeedbackOptions {
  /** Top keyword hits used as feedback documents. */
  documents: number;
  /** Expansion terms added. */
  terms: number;
  /** Share of the query weight given to the expansion terms (RM3's 1 − λ), 0..1. */
  weight: number;
}

/** RM3-style feedback: 5 documents, 10 terms, 0.3 of the weight (Anserini's defaults are 10/10/0.5). */
export const FEEDBACK_DEFAULTS: FeedbackOptions = { documents: 5, terms: 10, weight: 0.3 };

/**
 * Pseudo-relevance feedback in the style of RM3 (Abdul-Jaleel et al. 2004; Lavrenko & Croft 2001): the
 * query's terms keep weight (1 − w) shared equally; the `terms` heaviest other terms of the feedback
 * documents get weight w, each in proportion to Σ_docs P(d)·tf(t,d)/|d| with P(d) ∝ its BM25 score.
 * `feedback` are the top keyword hits (best first) with their documents' sparse vectors (re-encode their
 * content with `encodeKeywords`). Returns a weighted query for `searchSparse` (indices sorted, unique),
 * or `query` itself when there is no feedback. On LoCoMo (hybrid, second keyword search with the expanded
 * query): R@10 68.8 → 69.6 and R@25 77.1 → 77.9, but R@5 61.0 → 60.7, for one more sparse query and a read
 * of 5 memories; so the service does not use it.
 */
export function expandQuery(
  query: SparseVector,
  feedback: readonly { score: number; sparse: SparseVector }[],
  options: FeedbackOptions = FEEDBACK_DEFAULTS,
): SparseVector {
  const docs = feedback.slice(0, options.documents).filter((d) => d.score > 0);
  const total = docs.reduce((sum, d) => sum + d.score, 0);
  if (docs.length === 0 || total <= 0 || options.weight <= 0 || query.indices.length === 0) return query;
  const own = new Set(query.indices);
  const relevance = new Map<number, number>();
  for (const doc of docs) {
    const length = doc.sparse.values.reduce((sum, v) => sum + v, 0) || 1;
    doc.sparse.indices.forEach((term, j) => {
      if (!own.has(term)) relevance.set(term, (relevance.get(term) ?? 0) + ((doc.score / total) * doc.sparse.values[j]) / length);
    });
  }
  const expansion = [...relevance].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, options.terms);
  const expansionTotal = expansion.reduce((sum, [, r]) => sum + r, 0);
  const weights = new Map<number, number>();
  for (const term of query.indices) weights.set(term, (1 - options.weight) / query.indices.length);
  if (expansionTotal > 0) for (const [term, r] of expansion) weights.set(term, (options.weight * r) / expansionTotal);
  const indices = [...weights.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((term) => weights.get(term)!) };
}

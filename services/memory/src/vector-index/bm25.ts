import type { TenantIndex } from './tenant-index';
import type { TopK } from './top-k';
import { checkSparse } from './port-input';
import type { SparseVector } from './vector-index.port';

/** Okapi BM25 free parameters (Robertson & Zaragoza 2009, §3.4): k1 saturates term frequency, b normalises length. */
export interface Bm25Parameters {
  k1: number;
  b: number;
}

/**
 * BM25 parameters of the memory index: k1 = 1.2 as usual, b = 0.3 instead of 0.75. Why: memories are short
 * (a sentence or a paragraph) and a longer one is mostly wordier, not about more topics, so full length
 * normalisation (b = 0.75) penalises detailed memories; lower b is the usual advice for short texts.
 * Measured on LoCoMo (bench/locomo-offline/tune.ts): BM25 alone R@10 63.3 → 64.3, hybrid R@10 67.9 → 68.8
 * and R@5 59.4 → 61.0. Every adapter must use the same values (the Qdrant adapter computes the same
 * document weights client-side), or their rankings differ.
 */
export const DEFAULT_BM25: Bm25Parameters = { k1: 1.2, b: 0.3 };

/**
 * Scores every point of `tenant` that has a query term with Okapi BM25 (Robertson & Zaragoza 2009) and
 * offers the positive scores of allowed types to `top` (reset here to at most `limit` entries):
 * IDF = ln(1 + (N − df + 0.5)/(df + 0.5)) (the non-negative form Lucene uses), N = points of the tenant,
 * score = Σ_query terms w_q · IDF · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)), where w_q is the query
 * vector's value (1 from `encodeQuery`) and dl the sum of the point's term frequencies.
 *
 * `scratch` is a zeroed accumulator of at least `tenant.size` entries; it is left zeroed.
 * Cost: O(Σ df of the query terms + touched · log limit).
 */
export function scoreBm25(
  tenant: TenantIndex,
  query: SparseVector,
  { k1, b }: Bm25Parameters,
  allowed: Uint8Array | null,
  limit: number,
  scratch: Float64Array,
  top: TopK,
): void {
  const n = tenant.size;
  const avgLen = tenant.totalLen / n || 1;
  const { postStart, postLen, postSlot, postTf, docLen } = tenant;
  const touched: number[] = [];
  for (let q = 0; q < query.indices.length; q++) {
    const weight = query.values[q];
    if (!(weight > 0)) continue;
    const t = tenant.termNumber(query.indices[q]);
    if (t < 0) continue;
    const df = postLen[t];
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const w = weight * idf * (k1 + 1);
    const from = postStart[t];
    for (let j = from; j < from + df; j++) {
      const slot = postSlot[j];
      const tf = postTf[j];
      if (scratch[slot] === 0) touched.push(slot);
      scratch[slot] += (w * tf) / (tf + k1 * (1 - b + (b * docLen[slot]) / avgLen));
    }
  }
  top.reset(Math.min(limit, touched.length));
  for (const slot of touched) {
    const score = scratch[slot];
    scratch[slot] = 0;
    if (score > 0 && (allowed === null || allowed[tenant.types[slot]] === 1)) top.push(score, slot);
  }
}

/** BM25 parameters of stored document weights: k1 and b plus the average document length they assume. */
export interface Bm25DocumentParameters extends Bm25Parameters {
  /** Assumed average document length (sum of term frequencies). */
  avgDocLength: number;
}

/**
 * BM25 document weights of a point's terms, so that Qdrant's `idf` modifier completes the BM25 score:
 * weight = tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)), dl = Σ tf. Duplicate term ids are merged, terms with
 * tf ≤ 0 dropped, ids sorted. The same formula as {@link scoreBm25} with a fixed `avgDocLength`; used by
 * the Qdrant adapter, which stores these weights (qdrant.vector-index.ts).
 */
export function bm25DocumentWeights(sparse: SparseVector, params: Bm25DocumentParameters): SparseVector {
  const merged = mergeTerms(sparse);
  let length = 0;
  for (const tf of merged.values) length += tf;
  const norm = params.k1 * (1 - params.b + (params.b * length) / params.avgDocLength);
  return { indices: merged.indices, values: merged.values.map((tf) => (tf * (params.k1 + 1)) / (tf + norm)) };
}

/** Merges duplicate term ids (summing values), drops values ≤ 0, sorts by id. */
export function mergeTerms(sparse: SparseVector): SparseVector {
  checkSparse(sparse, 'sparse vector');
  const merged = new Map<number, number>();
  sparse.indices.forEach((index, j) => {
    const value = sparse.values[j];
    if (value > 0) merged.set(index, (merged.get(index) ?? 0) + value);
  });
  const indices = [...merged.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => merged.get(index)!) };
}

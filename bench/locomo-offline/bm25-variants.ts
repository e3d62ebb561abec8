/**
 * Okapi BM25 with parameters of the bench's choice, over keyword vectors held in memory, for the
 * comparisons of bench/locomo-offline/tune.ts (the service's index scores with DEFAULT_BM25 only). Same
 * formula as services/memory/src/vector-index/bm25.ts `scoreBm25`: IDF = ln(1 + (N − df + 0.5)/(df + 0.5)),
 * score = Σ_query terms w_q · IDF · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)), dl = Σ tf of the document.
 */
import type { Bm25Parameters, SparseVector } from '@agent-memory/memory';

interface Tenant {
  ids: string[];
  lengths: number[];
  totalLength: number;
  /** term → postings (document slot, term frequency) */
  postings: Map<number, { slot: number; tf: number }[]>;
}

/** An in-memory BM25 index of many tenants; documents are added once, then searched. */
export class Bm25Variant {
  private readonly tenants = new Map<string, Tenant>();

  constructor(private readonly params: Bm25Parameters) {}

  /** Adds a document (its keyword vector: term ids and frequencies) to `tenant`. */
  add(tenant: string, id: string, sparse: SparseVector): void {
    let t = this.tenants.get(tenant);
    if (!t) this.tenants.set(tenant, (t = { ids: [], lengths: [], totalLength: 0, postings: new Map() }));
    const slot = t.ids.length;
    t.ids.push(id);
    const length = sparse.values.reduce((sum, v) => sum + v, 0);
    t.lengths.push(length);
    t.totalLength += length;
    sparse.indices.forEach((term, j) => {
      let list = t.postings.get(term);
      if (!list) t.postings.set(term, (list = []));
      list.push({ slot, tf: sparse.values[j] });
    });
  }

  /** The `limit` best documents of `tenant` for `query` (positive scores only), best first, ties by insertion order. */
  search(tenant: string, query: SparseVector, limit: number): { id: string; score: number }[] {
    const t = this.tenants.get(tenant);
    if (!t) return [];
    const { k1, b } = this.params;
    const n = t.ids.length;
    const avg = t.totalLength / n || 1;
    const scores = new Map<number, number>();
    query.indices.forEach((term, q) => {
      const weight = query.values[q];
      const list = t.postings.get(term);
      if (!(weight > 0) || !list) return;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { slot, tf } of list) {
        scores.set(slot, (scores.get(slot) ?? 0) + (weight * idf * (k1 + 1) * tf) / (tf + k1 * (1 - b + (b * t.lengths[slot]) / avg)));
      }
    });
    return [...scores]
      .filter(([, score]) => score > 0)
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, limit)
      .map(([slot, score]) => ({ id: t.ids[slot], score }));
  }
}

import { DEFAULT_BM25, scoreBm25 } from './bm25';
import { TenantIndex } from './tenant-index';
import { TopK } from './top-k';
import { seededRandom } from '@agent-memory/testing';


interface Doc {
  dense: Float32Array;
  terms: Map<number, number>;
}

/** Okapi BM25 over plain maps: the reference the pooled index must match exactly. */
function referenceBm25(docs: Map<string, Doc>, query: number[]): Map<string, number> {
  const { k1, b } = DEFAULT_BM25;
  const n = docs.size;
  let total = 0;
  const lengths = new Map<string, number>();
  for (const [id, doc] of docs) {
    let len = 0;
    for (const tf of doc.terms.values()) len += tf;
    lengths.set(id, Math.fround(len));
    total += Math.fround(len);
  }
  const avg = total / n || 1;
  const scores = new Map<string, number>();
  for (const term of query) {
    const df = [...docs.values()].filter((doc) => doc.terms.has(term)).length;
    if (df === 0) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const [id, doc] of docs) {
      const tf = doc.terms.get(term);
      if (tf === undefined) continue;
      const part = (idf * (k1 + 1) * tf) / (tf + k1 * (1 - b + (b * lengths.get(id)!) / avg));
      scores.set(id, (scores.get(id) ?? 0) + part);
    }
  }
  return scores;
}

describe('TenantIndex', () => {
  it('matches a plain-map BM25 and dense scan through upserts, replacements, deletes and repacks', () => {
    const next = seededRandom(21);
    const dim = 4;
    const index = new TenantIndex(dim);
    const docs = new Map<string, Doc>();
    const vocabulary = 3000;
    const top = new TopK(16);
    let scratch = new Float64Array(0);
    for (let step = 0; step < 3000; step++) {
      const action = next();
      const id = `p${Math.floor(next() * 400)}`;
      if (action < 0.7) {
        const terms = new Map<number, number>();
        const count = 1 + Math.floor(next() * 30);
        for (let j = 0; j < count; j++) terms.set(Math.floor(next() * vocabulary) * 7919 + 1, 1 + Math.floor(next() * 3));
        const sorted = [...terms.keys()].sort((x, y) => x - y);
        const dense = Float32Array.from({ length: dim }, () => next() - 0.5);
        index.upsert({ tenant: 't', id, type: 0, dense, terms: Uint32Array.from(sorted), tfs: Float32Array.from(sorted, (t) => terms.get(t)!) });
        docs.set(id, { dense, terms });
      } else {
        expect(index.delete(id)).toBe(docs.delete(id));
      }
      if (step % 250 === 0) index.repack();
      if (step % 100 !== 99) continue;
      expect(index.size).toBe(docs.size);
      const query = Array.from({ length: 3 }, () => Math.floor(next() * vocabulary) * 7919 + 1);
      const expected = referenceBm25(docs, query);
      if (scratch.length < index.size) scratch = new Float64Array(index.size);
      scoreBm25(index, { indices: query, values: [1, 1, 1] }, DEFAULT_BM25, null, 1000, scratch, top);
      const { slots, scores } = top.drain();
      const got = new Map<string, number>();
      slots.forEach((slot, i) => got.set(index.ids[slot], scores[i]));
      expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [docId, score] of expected) expect(got.get(docId)).toBeCloseTo(score, 9);
      for (const [docId, doc] of docs) {
        const slot = index.slotOf.get(docId)!;
        expect(index.ids[slot]).toBe(docId);
        expect(Array.from(index.matrix.subarray(slot * dim, (slot + 1) * dim))).toEqual(Array.from(doc.dense));
        expect(index.termsOf(slot).terms).toEqual([...doc.terms.keys()].sort((x, y) => x - y));
      }
    }
    expect(scratch.every((x) => x === 0)).toBe(true);
  });

  it('holds one row for one point (no preallocated matrix)', () => {
    const index = new TenantIndex(512);
    index.upsert({ tenant: 't', id: 'a', type: 0, dense: new Float32Array(512).fill(0.1), terms: Uint32Array.of(5), tfs: Float32Array.of(1) });
    expect(index.matrix.length).toBe(512);
    expect(index.bytes()).toBeLessThan(4096);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { MemoryType } from '@agent-memory/shared';
import { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import { convexScoreFusion, HYBRID_FUSION, hybridCandidateDepth } from './hybrid-ranking';
import { hybridSearch } from './hybrid-search';
import { encodeQuery } from './keyword-encoder';
import { encodeKeywords } from './keyword-encoder';

const DIM = 4;
const vec = (...xs: number[]) => {
  const v = Float32Array.from({ length: DIM }, (_, i) => xs[i] ?? 0);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

describe('hybridSearch', () => {
  let directory: string;
  let index: EmbeddedVectorIndex;

  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'hybrid-search-'));
    index = new EmbeddedVectorIndex({ directory });
    await index.open({ embedderId: 'test@4', dimension: DIM });
    const point = (id: string, dense: Float32Array, text: string, type: MemoryType = 'fact') => ({
      tenant: 'rec_1',
      id,
      dense,
      sparse: encodeKeywords(text),
      payload: { type },
    });
    await index.upsert([
      point('near', vec(1, 0.1), 'likes hiking in the mountains'),
      point('allergy', vec(0, 1), 'allergic to peanuts since childhood'),
      point('other', vec(0.2, 1, 0.3), 'works as a nurse in Lyon', 'identity'),
      ...Array.from({ length: 30 }, (_, i) => point(`filler${i}`, vec(0.1, 0.2, 1, i / 30), `note number ${i} about weather`)),
    ]);
  });

  afterEach(async () => {
    await index.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('puts a strong keyword match first and reports its exact cosine', async () => {
    // Only one dense candidate ('other'): the keyword hit's cosine must come from scoreDense.
    const searchDense = index.searchDense.bind(index);
    jest.spyOn(index, 'searchDense').mockImplementation((vector, search) => searchDense(vector, { ...search, limit: 1 }));
    const scoreDense = jest.spyOn(index, 'scoreDense');
    const hits = await hybridSearch(index, { tenant: 'rec_1', vector: vec(1, 1), query: 'peanuts?', limit: 3 });
    expect(scoreDense).toHaveBeenCalledWith(vec(1, 1), 'rec_1', ['allergy']);
    expect(hits[0].id).toBe('allergy');
    expect(hits[0].similarity).toBeCloseTo(Math.SQRT1_2, 5);
    expect(hits[0].bm25).toBeGreaterThan(0);
    expect(hits.map((h) => h.id)).toEqual(['allergy', 'other']);
  });

  it('falls back to dense order when the query has no keywords', async () => {
    const hits = await hybridSearch(index, { tenant: 'rec_1', vector: vec(1, 0), query: 'what is it?', limit: 2 });
    expect(hits.map((h) => h.id)).toEqual(['near', 'other']);
    expect(hits.every((h) => h.bm25 === 0)).toBe(true);
  });

  it('applies the types filter to both searches', async () => {
    const hits = await hybridSearch(index, { tenant: 'rec_1', vector: vec(0, 1), query: 'peanuts nurse', limit: 10, types: ['identity'] });
    expect(hits.map((h) => h.id)).toEqual(['other']);
  });

  it('returns nothing for limit 0 or another tenant', async () => {
    expect(await hybridSearch(index, { tenant: 'rec_1', vector: vec(1), query: 'hiking', limit: 0 })).toEqual([]);
    expect(await hybridSearch(index, { tenant: 'rec_2', vector: vec(1), query: 'hiking', limit: 5 })).toEqual([]);
  });

  it('leaves hidden candidates out exactly as filtering every candidate first would, asking only about the ones that decide the answer', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const ids = ['near', 'allergy', 'other', ...Array.from({ length: 30 }, (_, i) => `filler${i}`)];
    const queries: Array<[Float32Array, string]> = [[vec(1, 0.2, 0.1), 'hiking weather'], [vec(0.1, 0.2, 1, 0.5), 'note number 7 weather'], [vec(0, 1, 0.2), 'peanuts nurse']];
    for (let round = 0; round < 60; round++) {
      const hidden = new Set(ids.filter(() => random() < (round < 10 ? 0 : 0.3)));
      const [vector, query] = queries[round % queries.length];
      const limit = 1 + (round % 6);
      const asked: string[][] = [];
      const got = await hybridSearch(index, { tenant: 'rec_1', vector, query, limit, visible: async (candidates) => {
        asked.push([...candidates]);
        return new Set(candidates.filter((id) => !hidden.has(id)));
      } });
      // the reference: every candidate filtered before fusion
      const search = { tenant: 'rec_1', limit: hybridCandidateDepth(limit) };
      const dense = (await index.searchDense(vector, search)).filter((h) => !hidden.has(h.id));
      const sparse = (await index.searchSparse(encodeQuery(query), search)).filter((h) => !hidden.has(h.id));
      const cosines = await index.scoreDense(vector, 'rec_1', sparse.map((h) => h.id));
      const expected = convexScoreFusion({ dense, sparse, cosines }, HYBRID_FUSION).slice(0, limit);
      expect(got).toEqual(expected);
      expect(got.some((h) => hidden.has(h.id))).toBe(false);
      const all = asked.flat();
      expect(new Set(all).size).toBe(all.length); // never asked twice about one id
      if (hidden.size === 0) expect(all.length).toBeLessThanOrEqual(limit + 2);
    }
  });
});

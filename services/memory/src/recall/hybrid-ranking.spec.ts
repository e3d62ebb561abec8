import { HYBRID_FUSION, convexScoreFusion, hybridCandidateDepth } from './hybrid-ranking';

describe('convexScoreFusion (TM2C2)', () => {
  it('combines α·(cos+1)/(max+1) and (1−α)·BM25/max, best first', () => {
    const fused = convexScoreFusion(
      {
        dense: [
          { id: 'a', score: 0.6 },
          { id: 'b', score: 0.2 },
        ],
        sparse: [
          { id: 'b', score: 8 },
          { id: 'c', score: 2 },
        ],
        cosines: new Map([['c', -0.2]]),
      },
      { denseWeight: 0.8, denseFloor: -1 },
    );
    const expected = {
      a: 0.8 * 1 + 0.2 * 0,
      b: 0.8 * (1.2 / 1.6) + 0.2 * 1,
      c: 0.8 * (0.8 / 1.6) + 0.2 * 0.25,
    };
    expect(fused.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    for (const hit of fused) expect(hit.score).toBeCloseTo(expected[hit.id as 'a' | 'b' | 'c'], 12);
    expect(fused.find((h) => h.id === 'c')).toMatchObject({ similarity: -0.2, bm25: 2 });
    expect(fused.find((h) => h.id === 'a')).toMatchObject({ similarity: 0.6, bm25: 0 });
  });

  it('lets a strong keyword match overtake a slightly closer vector', () => {
    const fused = convexScoreFusion({
      dense: [
        { id: 'close', score: 0.5 },
        { id: 'keyword', score: 0.45 },
      ],
      sparse: [{ id: 'keyword', score: 12 }],
    });
    expect(fused.map((h) => h.id)).toEqual(['keyword', 'close']);
  });

  it('ranks keyword-only hits without a known cosine as least similar', () => {
    const fused = convexScoreFusion({ dense: [{ id: 'd', score: 0.1 }], sparse: [{ id: 's', score: 1 }] }, HYBRID_FUSION);
    const keywordOnly = fused.find((h) => h.id === 's')!;
    expect(keywordOnly.similarity).toBeNull();
    expect(keywordOnly.score).toBeCloseTo(1 - HYBRID_FUSION.denseWeight, 12);
  });

  it('handles empty lists and a single side', () => {
    expect(convexScoreFusion({ dense: [], sparse: [] })).toEqual([]);
    expect(convexScoreFusion({ dense: [], sparse: [{ id: 'x', score: 3 }, { id: 'y', score: 1 }] }).map((h) => h.id)).toEqual(['x', 'y']);
    expect(convexScoreFusion({ dense: [{ id: 'x', score: 0.2 }, { id: 'y', score: 0.9 }], sparse: [] }).map((h) => h.id)).toEqual(['y', 'x']);
  });

  it('relevance orders the list like score, in [0, 1], never increasing, where the cosine alone would not', () => {
    // 'keyword' has the lower cosine but ranks first on its BM25 lead: cosine order has a hole, relevance none.
    const fused = convexScoreFusion({
      dense: [{ id: 'close', score: 0.5 }, { id: 'keyword', score: 0.45 }, { id: 'far', score: -0.3 }],
      sparse: [{ id: 'keyword', score: 12 }, { id: 'far', score: 1 }],
    });
    expect(fused.map((h) => h.id)).toEqual(['keyword', 'close', 'far']);
    expect(fused[0].similarity!).toBeLessThan(fused[1].similarity!);
    for (const [i, hit] of fused.entries()) {
      expect(hit.relevance).toBeGreaterThanOrEqual(0);
      expect(hit.relevance).toBeLessThanOrEqual(1);
      if (i > 0) expect(hit.relevance).toBeLessThanOrEqual(fused[i - 1].relevance);
    }
    // Scaled by (max cos + 1) / 2: the dense part is absolute, α · (0.5 + 1) / 2 for 'close'.
    expect(fused[1].relevance).toBeCloseTo(HYBRID_FUSION.denseWeight * 0.75, 12);
  });

  it('a recall whose best cosine is low has low relevance everywhere', () => {
    const weak = convexScoreFusion({ dense: [{ id: 'a', score: -0.5 }], sparse: [] });
    expect(weak[0].score).toBeCloseTo(HYBRID_FUSION.denseWeight, 12);
    expect(weak[0].relevance).toBeCloseTo(HYBRID_FUSION.denseWeight * 0.25, 12);
  });

  it('breaks ties by cosine, then by id', () => {
    const fused = convexScoreFusion({ dense: [], sparse: [{ id: 'b', score: 1 }, { id: 'a', score: 1 }] });
    expect(fused.map((h) => h.id)).toEqual(['a', 'b']);
  });
});

describe('hybridCandidateDepth', () => {
  it('fetches at least 50, twice the limit, at most 500', () => {
    expect(hybridCandidateDepth(1)).toBe(50);
    expect(hybridCandidateDepth(10)).toBe(50);
    expect(hybridCandidateDepth(40)).toBe(80);
    expect(hybridCandidateDepth(1000)).toBe(500);
  });
});

import { dot } from '../embedding/vector-math';
import { contextDepth, contextOf, contextOptionsFor, contextualEntry, DEFAULT_CONTEXT, gateCosine, NO_CONTEXT, type ContextSource } from './contextual-index';
import { USE_LITE_MEAN } from './use-lite-mean';

const T0 = Date.parse('2026-11-25T10:00:00Z');
/** The default weights and gap without the similarity gate (the sources below are orthogonal). */
const UNGATED = { ...DEFAULT_CONTEXT, minSimilarity: -1 };

function source(seconds: number, axis: number, terms: Record<number, number>, recordId = 'rec_a'): ContextSource {
  const dense = new Float32Array(4);
  dense[axis] = 1;
  const indices = Object.keys(terms).map(Number).sort((a, b) => a - b);
  return { recordId, createdAt: new Date(T0 + seconds * 1_000), dense, sparse: { indices, values: indices.map((t) => terms[t]) } };
}

describe('contextualEntry (contextual indexing)', () => {
  const self = source(100, 0, { 1: 1, 2: 2 });
  const previous = source(90, 1, { 2: 1, 3: 2 });
  const beforeThat = source(80, 2, { 4: 4 });
  const third = source(70, 3, { 5: 1 });

  it('adds the previous memory\'s terms at 0.5 and the one before at 0.25, and no deeper', () => {
    const entry = contextualEntry(self, [previous, beforeThat, third], UNGATED);
    expect(entry.sparse.indices).toEqual([1, 2, 3, 4]);
    expect(entry.sparse.values).toEqual([1, 2 + 0.5 * 1, 0.5 * 2, 0.25 * 4]);
  });

  it('blends the dense vector as normalise(own + 0.25 · previous + 0.125 · the one before)', () => {
    const { dense } = contextualEntry(self, [previous, beforeThat], UNGATED);
    const norm = Math.hypot(1, 0.25, 0.125);
    expect(Array.from(dense).map((x) => Number(x.toFixed(6)))).toEqual([1 / norm, 0.25 / norm, 0.125 / norm, 0].map((x) => Number(x.toFixed(6))));
    expect(dot(dense, dense)).toBeCloseTo(1, 6);
  });

  it('cuts the context at a time gap longer than gapSeconds between consecutive memories', () => {
    const options = { ...UNGATED, gapSeconds: 15 };
    // 10 s to the previous one (kept), 10 s more to the one before (kept).
    expect(contextOf(self, [previous, beforeThat], options)).toEqual([previous, beforeThat]);
    // 20 s between the previous memory and the one before it: only the previous one counts.
    const old = source(70, 2, { 4: 4 });
    expect(contextOf(self, [previous, old], options)).toEqual([previous]);
    // 20 s before the memory itself: no context at all, the own entry is returned as is.
    const distant = source(80, 1, { 9: 1 });
    const alone = contextualEntry(self, [distant, beforeThat], options);
    expect(alone.sparse).toBe(self.sparse);
    expect(alone.dense).toBe(self.dense);
  });

  it('never borrows across a record boundary', () => {
    const foreign = source(95, 1, { 7: 1 }, 'rec_b');
    expect(contextOf(self, [foreign, previous], UNGATED)).toEqual([]);
    expect(contextOf(self, [previous, foreign], UNGATED)).toEqual([previous]);
  });

  it('borrows only from a neighbour similar enough to the memory after it (cosine ≥ minSimilarity), stopping at the first that is not', () => {
    const unit = (x: number, y: number) => Float32Array.from([x, y, 0, 0]);
    const near = { ...previous, dense: unit(0.8, 0.6) }; // cosine 0.8 with self
    const far = { ...previous, dense: unit(0, 1) }; // cosine 0 with self
    const nearNear = { ...beforeThat, dense: unit(0.6, 0.8) }; // cosine 0.96 with `near`, 0.6 with self
    expect(DEFAULT_CONTEXT.minSimilarity).toBeGreaterThan(0);
    expect(contextOf(self, [near, nearNear], DEFAULT_CONTEXT)).toEqual([near, nearNear]);
    expect(contextOf(self, [far, nearNear], DEFAULT_CONTEXT)).toEqual([]);
    expect(contextOf(self, [near, { ...beforeThat, dense: unit(-0.6, 0.8) }], DEFAULT_CONTEXT)).toEqual([near]);
    expect(contextualEntry(self, [far], DEFAULT_CONTEXT).sparse).toBe(self.sparse);
  });

  it('with context off, the entry is the memory\'s own and the depth is 0', () => {
    expect(contextDepth(NO_CONTEXT)).toBe(0);
    expect(contextDepth(DEFAULT_CONTEXT)).toBe(2);
    const own = contextualEntry(self, [previous, beforeThat], NO_CONTEXT);
    expect(own).toEqual({ dense: self.dense, sparse: self.sparse });
  });

  it('gates on the cosine of the two vectors minus the centre, when the centre has their dimension', () => {
    const centre = Float32Array.from([0.6, 0, 0, 0]);
    const a = Float32Array.from([0.8, 0.6, 0, 0]);
    const b = Float32Array.from([0.8, -0.6, 0, 0]);
    // raw: 0.64 - 0.36 = 0.28; centred: (0.2, 0.6) · (0.2, -0.6) / 0.4 = -0.8: unrelated once the common part is gone
    expect(gateCosine(a, b)).toBeCloseTo(0.28, 6);
    expect(gateCosine(a, b, centre)).toBeCloseTo(-0.8, 6);
    expect(gateCosine(a, b, Float32Array.from([0.6, 0]))).toBeCloseTo(0.28, 6); // another dimension: raw
    const options = { ...DEFAULT_CONTEXT, centre, minSimilarity: 0.25 };
    const mine = { ...self, dense: a };
    expect(contextOf(mine, [{ ...previous, dense: b }], { ...options, centre: undefined })).toHaveLength(1);
    expect(contextOf(mine, [{ ...previous, dense: b }], options)).toEqual([]);
  });

  it('centres on USE-lite\'s mean for use-lite@512 only; any other embedder gates on the raw cosine at 0.5', () => {
    expect(USE_LITE_MEAN).toHaveLength(512);
    expect(Math.hypot(...USE_LITE_MEAN)).toBeGreaterThan(0.3);
    expect(contextOptionsFor('use-lite@512', DEFAULT_CONTEXT)).toBe(DEFAULT_CONTEXT);
    expect(DEFAULT_CONTEXT.centre).toBe(USE_LITE_MEAN);
    expect(contextOptionsFor('openai-compatible:text-embedding-3-small@1536', DEFAULT_CONTEXT)).toMatchObject({ minSimilarity: 0.5, centre: undefined, denseWeights: DEFAULT_CONTEXT.denseWeights });
  });
});

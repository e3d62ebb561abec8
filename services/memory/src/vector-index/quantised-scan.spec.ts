import { seededRandom } from '@agent-memory/testing';
import { loadNativeDenseScorer, type NativeDenseScorer } from './native-dense-scorer';
import { FAST_SCAN_MIN_POINTS } from './fast-scan';
import { DenseScan, NATIVE_EXACT_MAX_POINTS, NATIVE_MIN_ROWS, QUANTISED_MIN_POINTS, QUANTISED_OVERSAMPLING, QUANTISED_OVERSAMPLING_SMALL, QUANTISED_SMALL_TENANT_POINTS, STAGED_MIN_POINTS } from './quantised-scan';
import { TenantIndex } from './tenant-index';
import { TopK } from './top-k';

const DIM = 512;

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return v.map((x) => x / norm);
}

/**
 * Seeded set shaped like sentence embeddings: a shared mean direction (USE-lite vectors are not centred),
 * 200 topics, and each point a topic plus noise; queries are noisy copies of stored points.
 */
function embeddingLike(count: number, seed: number): { points: Float32Array[]; queries: Float32Array[] } {
  const random = seededRandom(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const mean = Float32Array.from({ length: DIM }, () => gauss());
  const topics = Array.from({ length: 200 }, () => Float32Array.from({ length: DIM }, () => gauss()));
  const points = Array.from({ length: count }, () => {
    const topic = topics[Math.floor(random() * topics.length)];
    return unit(Float32Array.from({ length: DIM }, (_, d) => 0.8 * mean[d] + topic[d] + 0.9 * gauss()));
  });
  const queries = Array.from({ length: 40 }, () => {
    const near = points[Math.floor(random() * count)];
    return unit(near.map((x) => x + 0.06 * gauss()));
  });
  return { points, queries };
}

/** `fastScan` false: large tenants keep no fast-scan layout, so the JavaScript pre-filter serves them. */
function indexOf(points: readonly Float32Array[], types?: (i: number) => number, fastScan = true): TenantIndex {
  const index = new TenantIndex(DIM, fastScan);
  points.forEach((dense, i) => index.upsert({ tenant: 't', id: `p${i}`, type: types ? types(i) : 0, dense, terms: new Uint32Array(0), tfs: new Float32Array(0) }));
  return index;
}

/** Exact reference: every allowed slot's cosine, best first (ties by slot), cut to k; as ids. */
function exactTop(index: TenantIndex, query: Float32Array, k: number, allowed: Uint8Array | null = null): string[] {
  const scored: { slot: number; score: number }[] = [];
  for (let slot = 0; slot < index.size; slot++) {
    if (allowed === null || allowed[index.types[slot]] === 1) scored.push({ slot, score: index.dot(query, slot) });
  }
  scored.sort((a, b) => b.score - a.score || a.slot - b.slot);
  return scored.slice(0, k).map(({ slot }) => index.ids[slot]);
}

function scanTop(scan: DenseScan, index: TenantIndex, query: Float32Array, k: number, allowed: Uint8Array | null = null): string[] {
  const top = new TopK(k);
  scan.search(index, query, allowed, k, top);
  return Array.from(top.drain().slots, (slot) => index.ids[slot]);
}

/** Mean share of each exact list found in the scanned one. */
function meanOverlap(pairs: readonly (readonly [string[], string[]])[]): number {
  const shares = pairs.map(([found, exact]) => exact.filter((id) => found.includes(id)).length / exact.length);
  return shares.reduce((a, b) => a + b, 0) / shares.length;
}

describe('DenseScan (1-bit pre-filter in JavaScript, exact re-scoring)', () => {
  const { points, queries } = embeddingLike(6000, 7);
  const index = indexOf(points, undefined, false);
  const scan = new DenseScan();

  // This set is harder for the pre-filter than real embeddings (30 near-equal points per topic): on 20,000
  // embedded synthetic memories the exact top-50 was among the candidates for 100 of 100 questions.
  it('returns the exact top-10 (same ids, same order) for every query, and >= 0.98 of the exact top-50, on a seeded set above the threshold', () => {
    expect(index.size).toBeGreaterThanOrEqual(QUANTISED_MIN_POINTS);
    for (const query of queries) expect(scanTop(scan, index, query, 10)).toEqual(exactTop(index, query, 10));
    expect(meanOverlap(queries.map((query) => [scanTop(scan, index, query, 50), exactTop(index, query, 50)]))).toBeGreaterThanOrEqual(0.98);
  });

  it('scores with exact cosines', () => {
    const top = new TopK(10);
    scan.search(index, queries[0], null, 10, top);
    const { slots, scores } = top.drain();
    slots.forEach((slot, i) => expect(scores[i]).toBe(index.dot(queries[0], slot)));
  });

  it('is exact below the threshold even where the sign codes say nothing', () => {
    // Every point has the same signs and differs only in magnitudes: the pre-filter cannot tell them apart.
    const random = seededRandom(3);
    const same = Array.from({ length: QUANTISED_MIN_POINTS - 1 }, () => unit(Float32Array.from({ length: DIM }, () => 0.01 + random())));
    const small = indexOf(same);
    for (const query of same.slice(0, 5).map((p) => unit(p.map((x, d) => x + (d % 7 === 0 ? 0.5 : 0))))) {
      expect(scanTop(scan, small, query, 10)).toEqual(exactTop(small, query, 10));
    }
  });

  it('never returns a deleted point, and stays exact after deletes moved other points into the holes', () => {
    const local = indexOf(points.slice(0, 5000), undefined, false);
    const query = queries[1];
    const first = scanTop(scan, local, query, 10);
    for (const id of first.slice(0, 5)) local.delete(id);
    // Deletes spread over the tenant move its last points (and their codes) into the holes.
    for (let i = 0; i < 500; i += 3) local.delete(`p${i}`);
    const after = scanTop(scan, local, query, 10);
    for (const id of first.slice(0, 5)) expect(after).not.toContain(id);
    expect(after).toEqual(exactTop(local, query, 10));
    local.repack();
    expect(scanTop(scan, local, query, 10)).toEqual(exactTop(local, query, 10));
    for (const q of queries.slice(0, 10)) expect(scanTop(scan, local, q, 10)).toEqual(exactTop(local, q, 10));
  });

  it('keeps the type filter', () => {
    const typed = indexOf(points, (i) => i % 3, false);
    const allowed = new Uint8Array(256);
    allowed[1] = 1;
    const pairs = queries.map((query) => {
      const hits = scanTop(scan, typed, query, 10, allowed);
      for (const id of hits) expect(Number(id.slice(1)) % 3).toBe(1);
      return [hits, exactTop(typed, query, 10, allowed)] as const;
    });
    expect(meanOverlap(pairs)).toBeGreaterThanOrEqual(0.99);
  });

  it('holds the sign codes in 64 bytes per 512-d point', () => {
    expect(index.codes.byteLength).toBeLessThanOrEqual(Math.ceil(index.size * 1.5) * 64);
    const packed = indexOf(points.slice(0, 100));
    packed.repack();
    expect(packed.codes.byteLength).toBe(100 * 64);
  });
});

// 40,000 points of the same shape, for both pre-filters of large tenants.
const large = embeddingLike(40_000, 11);

/** The pre-filter of a large tenant finds at least `floor10` / `floor50` of the exact top-10 / top-50, and its scores are exact cosines. */
function expectLargeTenantSearch(scan: DenseScan, index: TenantIndex, queries: readonly Float32Array[], floor10: number, floor50: number): void {
  expect(meanOverlap(queries.map((query) => [scanTop(scan, index, query, 10), exactTop(index, query, 10)]))).toBeGreaterThanOrEqual(floor10);
  expect(meanOverlap(queries.map((query) => [scanTop(scan, index, query, 50), exactTop(index, query, 50)]))).toBeGreaterThanOrEqual(floor50);
  const top = new TopK(10);
  scan.search(index, queries[0], null, 10, top);
  const { slots, scores } = top.drain();
  slots.forEach((slot, i) => expect(scores[i]).toBe(index.dot(queries[0], slot)));
}

describe('DenseScan, staged pre-filter of large tenants (JavaScript, where the fast scan is unavailable)', () => {
  // At 100,000 embedded memories the staged scan kept 99.5 % of the exact top 10 and 99.0 % of the exact
  // top 50 at about half the time of the unstaged one (docs/configuration.md, "Vector index (embedded)").
  const { points, queries } = large;
  const index = indexOf(points, (i) => i % 2, false);
  const scan = new DenseScan();

  it('finds >= 0.97 of the exact top-10 and >= 0.95 of the exact top-50, with exact cosines, above the staged threshold', () => {
    expect(index.size).toBeGreaterThanOrEqual(STAGED_MIN_POINTS);
    expect(index.fastCodes).toBeNull();
    expectLargeTenantSearch(scan, index, queries, 0.97, 0.95);
  });

  it('keeps the type filter, and finds nothing when no type is allowed', () => {
    const allowed = new Uint8Array(256);
    allowed[1] = 1;
    for (const query of queries.slice(0, 10)) for (const id of scanTop(scan, index, query, 10, allowed)) expect(Number(id.slice(1)) % 2).toBe(1);
    expect(scanTop(scan, index, queries[0], 10, new Uint8Array(256))).toEqual([]);
  });
});

describe('DenseScan, fast-scan pre-filter of large tenants (fast-scan.ts)', () => {
  const { points, queries } = large;
  const index = indexOf(points, (i) => i % 2);
  const scan = new DenseScan();

  it('estimates every point on its whole code: >= 0.99 of the exact top-10 and >= 0.97 of the exact top-50, with exact cosines', () => {
    expect(index.fastCodes).not.toBeNull();
    expectLargeTenantSearch(scan, index, queries, 0.99, 0.97);
  });

  it('keeps the type filter, and finds nothing when no type is allowed', () => {
    const allowed = new Uint8Array(256);
    allowed[1] = 1;
    const pairs = queries.slice(0, 10).map((query) => {
      const hits = scanTop(scan, index, query, 10, allowed);
      for (const id of hits) expect(Number(id.slice(1)) % 2).toBe(1);
      return [hits, exactTop(index, query, 10, allowed)] as const;
    });
    expect(meanOverlap(pairs)).toBeGreaterThanOrEqual(0.99);
    expect(scanTop(scan, index, queries[0], 10, new Uint8Array(256))).toEqual([]);
  });

  it('never returns a deleted point after deletes moved the last points (and their fast codes) into the holes', () => {
    const local = indexOf(points.slice(0, 20_000));
    expect(local.fastCodes).not.toBeNull();
    const first = scanTop(scan, local, queries[3], 10);
    for (const id of first.slice(0, 5)) local.delete(id);
    for (let i = 0; i < 2000; i += 3) local.delete(`p${i}`);
    const after = scanTop(scan, local, queries[3], 10);
    for (const id of first.slice(0, 5)) expect(after).not.toContain(id);
    expect(meanOverlap([[after, exactTop(local, queries[3], 10)]])).toBeGreaterThanOrEqual(0.9);
  });
});

describe('DenseScan with native products (native-dense-scorer.ts)', () => {
  let native: NativeDenseScorer;
  beforeAll(async () => {
    const loaded = await loadNativeDenseScorer();
    if ('reason' in loaded) throw new Error(`the native scorer must load here: ${loaded.reason}`);
    native = loaded;
  });
  const nativeScan = (): DenseScan => Object.assign(new DenseScan(), { native });
  const { points, queries } = embeddingLike(20_000, 13);

  /** The native search's top-10 scores for `query` are the exact cosines, within 1e-6. */
  function expectNativeCosines(scan: DenseScan, index: TenantIndex, query: Float32Array): void {
    const top = new TopK(10);
    scan.search(index, query, null, 10, top);
    const { slots, scores } = top.drain();
    slots.forEach((slot, i) => expect(Math.abs(scores[i] - index.dot(query, slot))).toBeLessThan(1e-6));
  }

  /** Every query's top-50 equals the exact reference (same ids, same order), and the scores are exact cosines. */
  function expectExactNative(index: TenantIndex): void {
    const scan = nativeScan();
    for (const query of queries) expect(scanTop(scan, index, query, 50)).toEqual(exactTop(index, query, 50));
    expectNativeCosines(scan, index, queries[0]);
  }

  it('is exact below the fast-scan threshold (same ids, same order as the exact reference), with cosines within 1e-6', () => {
    const index = indexOf(points.slice(0, QUANTISED_MIN_POINTS - 1));
    expect(index.fastCodes).toBeNull();
    expectExactNative(index);
  });

  it('keeps the fast-scan threshold where the exact search ends (one number in two files)', () => {
    expect(FAST_SCAN_MIN_POINTS).toBe(QUANTISED_MIN_POINTS);
  });

  it('stays exact below the threshold in a tenant that kept its fast-scan layout after deletes', () => {
    const local = indexOf(points.slice(0, FAST_SCAN_MIN_POINTS + 500));
    expect(local.fastCodes).not.toBeNull();
    for (let i = 0; i < 2000; i++) local.delete(`p${i}`);
    local.repack();
    // Kept down to half the threshold (tenant-index.ts), yet below the threshold the search is exact.
    expect(local.fastCodes).not.toBeNull();
    expect(local.size).toBeLessThan(QUANTISED_MIN_POINTS);
    const scan = nativeScan();
    const fastScan = jest.spyOn(local.fastCodes!, 'scan');
    for (const query of queries.slice(0, 10)) expect(scanTop(scan, local, query, 50)).toEqual(exactTop(local, query, 50));
    expect(fastScan).not.toHaveBeenCalled();
  });

  it('is exact up to the native threshold when the tenant keeps no fast-scan layout', () => {
    const index = indexOf(points.slice(0, 6000), undefined, false);
    expect(index.size).toBeGreaterThanOrEqual(QUANTISED_MIN_POINTS);
    expect(index.size).toBeLessThanOrEqual(NATIVE_EXACT_MAX_POINTS);
    expectExactNative(index);
  });

  it('scans a tenant below the native minimum in JavaScript, exactly', () => {
    const tiny = indexOf(points.slice(0, NATIVE_MIN_ROWS - 1));
    const top = new TopK(5);
    nativeScan().search(tiny, queries[2], null, 5, top);
    const { slots, scores } = top.drain();
    expect(Array.from(slots, (slot) => tiny.ids[slot])).toEqual(exactTop(tiny, queries[2], 5));
    slots.forEach((slot, i) => expect(scores[i]).toBe(tiny.dot(queries[2], slot)));
  });

  it('never returns a deleted point and stays exact after deletes moved points into the holes; keeps the type filter', () => {
    const local = indexOf(points.slice(0, 5000), (i) => i % 3, false);
    const scan = nativeScan();
    const first = scanTop(scan, local, queries[1], 10);
    for (const id of first.slice(0, 5)) local.delete(id);
    for (let i = 0; i < 500; i += 3) local.delete(`p${i}`);
    const after = scanTop(scan, local, queries[1], 10);
    for (const id of first.slice(0, 5)) expect(after).not.toContain(id);
    expect(after).toEqual(exactTop(local, queries[1], 10));
    const allowed = new Uint8Array(256);
    allowed[1] = 1;
    for (const query of queries.slice(0, 10)) {
      const hits = scanTop(scan, local, query, 10, allowed);
      for (const id of hits) expect(Number(id.slice(1)) % 3).toBe(1);
      expect(hits).toEqual(exactTop(local, query, 10, allowed));
    }
    expect(scanTop(scan, local, queries[0], 10, new Uint8Array(256))).toEqual([]);
  });

  it('from the fast-scan threshold (10,000 points): the fast scan with native re-scoring finds >= 0.99 of the exact top-10 and >= 0.98 of the top-50, with exact cosines', () => {
    const index = indexOf(points.slice(0, 10_000));
    expect(index.fastCodes).not.toBeNull();
    expect(index.size).toBeLessThan(NATIVE_EXACT_MAX_POINTS);
    const scan = nativeScan();
    // The fast scan runs, and re-scores 10·k candidates (k = 50: 500) in this tenant below 16,384 points.
    const fastScan = jest.spyOn(index.fastCodes!, 'scan');
    const rescore = jest.spyOn(native, 'scoreSlots');
    try {
      scanTop(scan, index, queries[0], 50);
      expect(fastScan).toHaveBeenCalledTimes(1);
      expect(rescore).toHaveBeenCalledTimes(1);
      expect(rescore.mock.calls[0][5]).toBe(QUANTISED_OVERSAMPLING_SMALL * 50);
    } finally {
      fastScan.mockRestore();
      rescore.mockRestore();
    }
    expect(meanOverlap(queries.map((query) => [scanTop(scan, index, query, 10), exactTop(index, query, 10)]))).toBeGreaterThanOrEqual(0.99);
    expect(meanOverlap(queries.map((query) => [scanTop(scan, index, query, 50), exactTop(index, query, 50)]))).toBeGreaterThanOrEqual(0.98);
    expectNativeCosines(scan, index, queries[4]);
  });

  it('above the native threshold: the pre-filter with native re-scoring finds >= 0.99 of the exact top-10 and >= 0.98 of the top-50', () => {
    const index = indexOf(points);
    expect(index.size).toBeGreaterThan(NATIVE_EXACT_MAX_POINTS);
    expect(index.size).toBeGreaterThanOrEqual(QUANTISED_SMALL_TENANT_POINTS);
    const scan = nativeScan();
    // From 16,384 points the fast scan re-scores 20·k candidates (k = 50: 1,000).
    const rescore = jest.spyOn(native, 'scoreSlots');
    try {
      scanTop(scan, index, queries[0], 50);
      expect(rescore.mock.calls[0][5]).toBe(QUANTISED_OVERSAMPLING * 50);
    } finally {
      rescore.mockRestore();
    }
    expect(meanOverlap(queries.map((query) => [scanTop(scan, index, query, 10), exactTop(index, query, 10)]))).toBeGreaterThanOrEqual(0.99);
    expect(meanOverlap(queries.map((query) => [scanTop(scan, index, query, 50), exactTop(index, query, 50)]))).toBeGreaterThanOrEqual(0.98);
  });
});

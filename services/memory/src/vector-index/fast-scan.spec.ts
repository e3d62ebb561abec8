import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { seededRandom } from '@agent-memory/testing';
import { FAST_SCAN_MIN_POINTS, FastScanCodes, fastScanAvailable } from './fast-scan';
import { codeBytes, encodeSigns } from './quantised-scan';
import { TenantIndex } from './tenant-index';

const ROOT = path.resolve(__dirname, '../../../..');

/** The table the kernel reads (the first region of its memory): 16 bytes per nibble. */
function tableOf(fast: FastScanCodes): Uint8Array {
  const memory = (fast as unknown as { memory: { buffer: ArrayBuffer } }).memory;
  return new Uint8Array(memory.buffer, 0, fast.nibbles * 16).slice();
}

/** Reference of the kernel in plain JavaScript: Σ_j table[16j + nibble j of the row code]. */
function referenceSums(table: Uint8Array, codes: Uint8Array, size: number, dim: number): number[] {
  const bytes = codeBytes(dim);
  const nibbles = Math.ceil(dim / 4);
  return Array.from({ length: size }, (_, slot) => {
    let sum = 0;
    for (let j = 0; j < nibbles; j++) {
      const byte = codes[slot * bytes + (j >> 1)];
      sum += table[16 * j + (j & 1 ? byte >> 4 : byte & 15)];
    }
    return sum;
  });
}

function randomVectors(count: number, dim: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dim }, () => random() - 0.5));
}

function rowCodes(vectors: readonly Float32Array[], dim: number): Uint8Array {
  const codes = new Uint8Array(vectors.length * codeBytes(dim));
  vectors.forEach((v, slot) => encodeSigns(v, codes, slot * codeBytes(dim)));
  return codes;
}

describe('FastScanCodes (4-bit SIMD fast scan of the sign codes)', () => {
  it('runs here (Node has WebAssembly SIMD)', () => {
    expect(fastScanAvailable()).toBe(true);
  });

  it.each([
    [512, 1000, 255],
    [100, 77, 255],
    [7, 33, 255],
    [1028, 40, 255],
    [1536, 40, 170],
    [3072, 40, 85],
  ])('sums exactly what a scalar lookup of the same table sums (dim %i, %i points, a partial last block; table entries up to %i)', (dim, size, top) => {
    const vectors = randomVectors(size, dim, dim + size);
    const codes = rowCodes(vectors, dim);
    const fast = FastScanCodes.from(dim, codes, size, size);
    const [query] = randomVectors(1, dim, 99);
    const sums = Array.from(fast.scan(query, size));
    expect(sums).toEqual(referenceSums(tableOf(fast), codes, size, dim));
    // Entries small enough that no 16-bit sum can wrap, even the largest possible one.
    expect(Math.max(...tableOf(fast))).toBe(top);
    expect(fast.maxEstimate).toBe(Math.ceil(dim / 4) * top);
    expect(fast.maxEstimate).toBeLessThanOrEqual(65_535);
    expect(Math.max(...sums)).toBeLessThanOrEqual(fast.maxEstimate);
  });

  it('quantises the table in the order of the float partial sums, one scale for all nibbles, the widest nibble spanning 0..255', () => {
    const dim = 64;
    const [query] = randomVectors(1, dim, 5);
    const fast = new FastScanCodes(dim, 32);
    fast.scan(query, 0);
    const table = tableOf(fast);
    let widest = 0;
    for (let j = 0; j < fast.nibbles; j++) {
      const partial = Array.from({ length: 16 }, (_, c) => [0, 1, 2, 3].reduce((sum, i) => sum + (c & (1 << i) ? query[4 * j + i] : 0), 0));
      const entries = Array.from(table.subarray(16 * j, 16 * j + 16));
      // Entry order follows the partial sums' order (ties allowed by rounding).
      for (let a = 0; a < 16; a++) for (let b = 0; b < 16; b++) if (partial[a] < partial[b]) expect(entries[a]).toBeLessThanOrEqual(entries[b]);
      expect(Math.min(...entries)).toBe(0);
      widest = Math.max(widest, Math.max(...entries));
    }
    expect(widest).toBe(255);
  });

  it('orders points like the float estimate Σ_{sign bit set} query[d], up to the rounding of 0.5 step per nibble', () => {
    const dim = 512;
    const vectors = randomVectors(2000, dim, 8);
    const codes = rowCodes(vectors, dim);
    const fast = FastScanCodes.from(dim, codes, vectors.length, vectors.length);
    const [query] = randomVectors(1, dim, 9);
    const sums = fast.scan(query, vectors.length);
    let widest = 0;
    for (let j = 0; j < dim / 4; j++) widest = Math.max(widest, [0, 1, 2, 3].reduce((s, i) => s + Math.abs(query[4 * j + i]), 0));
    const step = widest / 255;
    const float = vectors.map((v) => v.reduce((sum, x, d) => sum + (x > 0 ? query[d] : 0), 0));
    // sums = (float − Σ_d min(q_d, 0)) / step ± 0.5 per nibble.
    const offset = query.reduce((sum, q) => sum + Math.min(q, 0), 0);
    for (let slot = 0; slot < vectors.length; slot++) expect(Math.abs(sums[slot] - (float[slot] - offset) / step)).toBeLessThanOrEqual(0.5 * (dim / 4) + 1e-6);
  });

  it('keeps every code when the memory grows, and rewrites one slot without touching its block neighbours', () => {
    const dim = 512;
    const vectors = randomVectors(100, dim, 12);
    const codes = rowCodes(vectors, dim);
    const fast = FastScanCodes.from(dim, codes, 40, 40);
    const small = fast.bytes;
    fast.ensureCapacity(50_000);
    expect(fast.capacity).toBeGreaterThanOrEqual(50_000);
    expect(fast.bytes).toBeGreaterThan(small);
    for (let slot = 40; slot < 100; slot++) fast.write(slot, codes, slot * codeBytes(dim));
    // Slot 17 (high nibbles of block 0) takes slot 99's code, as a delete moves the last point into a hole.
    codes.copyWithin(17 * 64, 99 * 64, 100 * 64);
    fast.write(17, codes, 17 * 64);
    const [query] = randomVectors(1, dim, 13);
    expect(Array.from(fast.scan(query, 99))).toEqual(referenceSums(tableOf(fast), codes, 99, dim));
  });


  it('is the assembly of fast-scan.wat (tools/assemble-wasm.js --check)', () => {
    expect(() => execFileSync(process.execPath, [path.join(ROOT, 'tools/assemble-wasm.js'), '--check'], { cwd: ROOT, stdio: 'pipe' })).not.toThrow();
  });
});

describe('TenantIndex keeps the fast-scan layout of large tenants', () => {
  const dim = 16;
  const point = (i: number, random: () => number) => ({
    tenant: 't',
    id: `p${i}`,
    type: 0,
    dense: Float32Array.from({ length: dim }, () => random() - 0.5),
    terms: new Uint32Array(0),
    tfs: new Float32Array(0),
  });

  it(`builds it at ${FAST_SCAN_MIN_POINTS} points, keeps it in step with upserts and deletes, counts it in bytes(), and drops it below half`, () => {
    const random = seededRandom(21);
    const index = new TenantIndex(dim);
    for (let i = 0; i < FAST_SCAN_MIN_POINTS - 1; i++) index.upsert(point(i, random));
    expect(index.fastCodes).toBeNull();
    const before = index.bytes();
    index.upsert(point(FAST_SCAN_MIN_POINTS - 1, random));
    const fast = index.fastCodes!;
    expect(fast).not.toBeNull();
    expect(index.bytes()).toBeGreaterThanOrEqual(before + fast.bytes);
    for (let i = FAST_SCAN_MIN_POINTS; i < FAST_SCAN_MIN_POINTS + 3000; i++) index.upsert(point(i, random));
    for (let i = 0; i < 3000; i += 2) index.delete(`p${i}`);
    index.upsert({ ...point(5, random), id: 'p7' }); // replace: a new code in place
    const [query] = randomVectors(1, dim, 22);
    const sums = Array.from(index.fastCodes!.scan(query, index.size));
    expect(sums).toEqual(referenceSums(tableOf(index.fastCodes!), index.codes, index.size, dim));
    index.repack();
    expect(index.fastCodes).not.toBeNull();
    expect(Array.from(index.fastCodes!.scan(query, index.size))).toEqual(referenceSums(tableOf(index.fastCodes!), index.codes, index.size, dim));
    for (let i = 3000; i < FAST_SCAN_MIN_POINTS + 3000; i++) index.delete(`p${i}`);
    expect(index.size).toBeLessThan(FAST_SCAN_MIN_POINTS / 2);
    index.repack();
    expect(index.fastCodes).toBeNull();
  });

  it('goes on without it when its WebAssembly memory cannot be had, and does not try again', () => {
    const random = seededRandom(24);
    const index = new TenantIndex(dim);
    const from = jest.spyOn(FastScanCodes, 'from').mockImplementation(() => {
      throw new RangeError('WebAssembly.Memory(): could not allocate memory');
    });
    try {
      for (let i = 0; i < FAST_SCAN_MIN_POINTS + 10; i++) index.upsert(point(i, random));
      expect(index.fastCodes).toBeNull();
      expect(index.size).toBe(FAST_SCAN_MIN_POINTS + 10);
      expect(from).toHaveBeenCalledTimes(1);
      index.repack();
      expect(from).toHaveBeenCalledTimes(1);
    } finally {
      from.mockRestore();
    }
    // Every point was written whole: the index serves them.
    expect(index.slotOf.get(`p${FAST_SCAN_MIN_POINTS + 9}`)).toBe(FAST_SCAN_MIN_POINTS + 9);
  });

  it('drops it when it cannot grow, before any slot beyond its room is written', () => {
    const random = seededRandom(25);
    const index = new TenantIndex(dim);
    for (let i = 0; i < FAST_SCAN_MIN_POINTS; i++) index.upsert(point(i, random));
    const fast = index.fastCodes!;
    expect(fast).not.toBeNull();
    const grow = jest.spyOn(fast, 'ensureCapacity').mockImplementation(() => {
      throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
    });
    const write = jest.spyOn(fast, 'write');
    for (let i = FAST_SCAN_MIN_POINTS; i < 2 * FAST_SCAN_MIN_POINTS; i++) index.upsert(point(i, random));
    expect(grow).toHaveBeenCalled();
    expect(index.fastCodes).toBeNull();
    for (const [slot] of write.mock.calls) expect(slot).toBeLessThan(fast.capacity);
    expect(index.size).toBe(2 * FAST_SCAN_MIN_POINTS);
  });

  it('never builds it when disabled (the JavaScript pre-filter path)', () => {
    const random = seededRandom(23);
    const index = new TenantIndex(dim, false);
    for (let i = 0; i < FAST_SCAN_MIN_POINTS + 10; i++) index.upsert(point(i, random));
    index.repack();
    expect(index.fastCodes).toBeNull();
  });
});

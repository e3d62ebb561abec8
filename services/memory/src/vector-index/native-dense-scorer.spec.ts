import { seededRandom } from '@agent-memory/testing';
import { loadNativeDenseScorer, type NativeDenseScorer } from './native-dense-scorer';

/** Σ_d a[d]·b[offset + d] in float64, the reference. */
function dot(a: Float32Array, b: Float32Array, offset: number): number {
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += a[d] * b[offset + d];
  return sum;
}

describe('NativeDenseScorer (onnxruntime products of a query with matrix rows)', () => {
  let scorer: NativeDenseScorer;
  beforeAll(async () => {
    const loaded = await loadNativeDenseScorer();
    // onnxruntime-node ships its CPU binary in the npm package: on every machine this project supports it loads.
    if ('reason' in loaded) throw new Error(`the native scorer must load here: ${loaded.reason}`);
    scorer = loaded;
  });

  it.each([1, 7, 512, 1536])('scores every row of a matrix with spare capacity, dimension %i, like float64 JavaScript to 1e-5', (dim) => {
    const random = seededRandom(dim);
    const rows = 300;
    // Capacity beyond the rows in use, as the index's grown matrix has: the spare rows must be ignored.
    const matrix = Float32Array.from({ length: (rows + 50) * dim }, () => random() - 0.5);
    const query = Float32Array.from({ length: dim }, () => random() - 0.5);
    const out = new Float32Array(rows + 10).fill(42);
    scorer.scoreRows(query, matrix, rows, dim, out);
    for (let r = 0; r < rows; r++) expect(Math.abs(out[r] - dot(query, matrix, r * dim))).toBeLessThan(1e-5 * Math.max(1, Math.sqrt(dim)));
    expect(Array.from(out.subarray(rows))).toEqual(new Array(10).fill(42));
  });

  it('scores the named slots in the order given, repeats included', () => {
    const random = seededRandom(5);
    const dim = 512;
    const rows = 1000;
    const matrix = Float32Array.from({ length: rows * dim }, () => random() - 0.5);
    const query = Float32Array.from({ length: dim }, () => random() - 0.5);
    const slots = Int32Array.from([999, 0, 17, 17, 500, 3]);
    const out = new Float32Array(slots.length);
    scorer.scoreSlots(query, matrix, rows, dim, slots, slots.length, out);
    slots.forEach((slot, i) => expect(Math.abs(out[i] - dot(query, matrix, slot * dim))).toBeLessThan(1e-4));
    // A prefix of the slots (count < slots.length) scores only that prefix.
    const prefix = new Float32Array(6).fill(-1);
    scorer.scoreSlots(query, matrix, rows, dim, slots, 2, prefix);
    expect(Array.from(prefix.subarray(2))).toEqual([-1, -1, -1, -1]);
    expect(Math.abs(prefix[1] - dot(query, matrix, 0))).toBeLessThan(1e-4);
  });

  it('does nothing for zero rows or zero slots', () => {
    const out = Float32Array.from([1, 2]);
    scorer.scoreRows(new Float32Array(4), new Float32Array(0), 0, 4, out);
    scorer.scoreSlots(new Float32Array(4), new Float32Array(8), 2, 4, new Int32Array(0), 0, out);
    expect(Array.from(out)).toEqual([1, 2]);
  });
});

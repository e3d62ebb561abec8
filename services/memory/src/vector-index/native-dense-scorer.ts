import { OnnxGraphBuilder, OnnxType } from '../embedding/onnx/onnx-graph-builder';

/**
 * Dot products of one query with many rows of a row-major float32 matrix, computed by onnxruntime's
 * native CPU kernels (the engine the embedder already loads): a matrix-vector product in vectorised
 * native code instead of a scalar JavaScript loop. Measured on the benchmarks' 2-core machine, 512
 * dimensions: 1,000 rows 0.20 ms against 1.05-1.65 ms in JavaScript, 10,000 rows 1.05 ms against
 * 10-16 ms (docs/configuration.md, "Vector index (embedded)").
 *
 * Synchronous: the index's searches map result rows to point ids right after the scan, and nothing may
 * move a point in between, so the scorer calls onnxruntime's native session directly (its public
 * `run` returns a promise resolved on a later turn of the event loop). The rows are read in place (the
 * matrix is handed to onnxruntime as a view, not copied). Single-threaded (one intra-op thread), like
 * the embedder, and one call at a time (JavaScript calls it from one thread).
 */
export interface NativeDenseScorer {
  /**
   * `out[r] = Σ_d query[d] · matrix[r·dim + d]` for r in 0..rows-1; `query` has `dim` floats, `matrix`
   * at least `rows·dim`, `out` at least `rows`.
   */
  scoreRows(query: Float32Array, matrix: Float32Array, rows: number, dim: number, out: Float32Array): void;
  /**
   * `out[i] = Σ_d query[d] · matrix[slots[i]·dim + d]` for i in 0..count-1 (the rows named by `slots`,
   * each < `rows`, the matrix's rows in use).
   */
  scoreSlots(query: Float32Array, matrix: Float32Array, rows: number, dim: number, slots: Int32Array, count: number, out: Float32Array): void;
}

/** The parts of onnxruntime-node this file uses: the public module's `Tensor`, and the native session of its binding. */
interface OrtTensorConstructor {
  new (type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: number[]): unknown;
}
interface NativeSession {
  loadModel(buffer: ArrayBufferLike, byteOffset: number, byteLength: number, options: Record<string, unknown>): void;
  run(feeds: Record<string, unknown>, fetches: Record<string, unknown>, options: Record<string, unknown>): unknown;
}
interface OrtBinding {
  binding: { InferenceSession: new () => NativeSession };
  initOrt: () => void;
}

/** `y[1, n] = q[1, d] · m[n, d]ᵀ` (Gemm, transposed B): every row's dot product with the query. */
function rowsModel(): Uint8Array {
  const graph = new OnnxGraphBuilder();
  graph.input('q', OnnxType.FLOAT, [1, -1]);
  graph.input('m', OnnxType.FLOAT, [-1, -1]);
  graph.node('Gemm', ['q', 'm'], ['y'], { transB: 1 });
  graph.output('y', OnnxType.FLOAT);
  return graph.encode('dense-scan-rows', 'native-dense-scorer');
}

/** `y[1, k] = q[1, d] · (m[slots])ᵀ`: the dot products of the rows `slots` (Gather, then Gemm). */
function slotsModel(): Uint8Array {
  const graph = new OnnxGraphBuilder();
  graph.input('q', OnnxType.FLOAT, [1, -1]);
  graph.input('m', OnnxType.FLOAT, [-1, -1]);
  graph.input('slots', OnnxType.INT64, [-1]);
  graph.node('Gather', ['m', 'slots'], ['picked'], { axis: 0 });
  graph.node('Gemm', ['q', 'picked'], ['y'], { transB: 1 });
  graph.output('y', OnnxType.FLOAT);
  return graph.encode('dense-scan-slots', 'native-dense-scorer');
}

const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all', executionProviders: [] };

/**
 * Loads the scorer, or explains why it cannot: onnxruntime-node is missing or has no binary for this
 * platform, its native binding is not where this version keeps it (`dist/binding`), or a probe
 * (rows and slots of a small random matrix, against JavaScript's products) disagrees. The caller then
 * scans in JavaScript; nothing else depends on it.
 * @returns the scorer, or `{ reason }`.
 */
export async function loadNativeDenseScorer(): Promise<NativeDenseScorer | { reason: string }> {
  try {
    const ort = (await import('onnxruntime-node')) as unknown as { Tensor: OrtTensorConstructor };
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the binding has no typed public entry point
    const { binding, initOrt } = require('onnxruntime-node/dist/binding') as OrtBinding;
    initOrt();
    const open = (model: Uint8Array): NativeSession => {
      const session = new binding.InferenceSession();
      session.loadModel(model.buffer, model.byteOffset, model.byteLength, SESSION_OPTIONS);
      return session;
    };
    const rows = open(rowsModel());
    const slots = open(slotsModel());
    let indices = new BigInt64Array(0);
    const scorer: NativeDenseScorer = {
      scoreRows(query, matrix, count, dim, out) {
        if (count === 0) return;
        rows.run(
          { q: new ort.Tensor('float32', query.subarray(0, dim), [1, dim]), m: new ort.Tensor('float32', matrix.subarray(0, count * dim), [count, dim]) },
          { y: new ort.Tensor('float32', out.subarray(0, count), [1, count]) },
          {},
        );
      },
      scoreSlots(query, matrix, count, dim, picked, n, out) {
        if (n === 0) return;
        if (indices.length < n) indices = new BigInt64Array(Math.max(n, 2 * indices.length));
        for (let i = 0; i < n; i++) indices[i] = BigInt(picked[i]);
        slots.run(
          {
            q: new ort.Tensor('float32', query.subarray(0, dim), [1, dim]),
            m: new ort.Tensor('float32', matrix.subarray(0, count * dim), [count, dim]),
            slots: new ort.Tensor('int64', indices.subarray(0, n), [n]),
          },
          { y: new ort.Tensor('float32', out.subarray(0, n), [1, n]) },
          {},
        );
      },
    };
    probe(scorer);
    return scorer;
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

/** Throws unless the scorer's products match JavaScript's on a small random matrix (rows and picked slots). */
function probe(scorer: NativeDenseScorer): void {
  const dim = 37;
  const count = 11;
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  const matrix = Float32Array.from({ length: (count + 3) * dim }, random);
  const query = Float32Array.from({ length: dim }, random);
  const expected = Array.from({ length: count }, (_, r) => {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += query[d] * matrix[r * dim + d];
    return sum;
  });
  const all = new Float32Array(count);
  scorer.scoreRows(query, matrix, count, dim, all);
  const picked = Int32Array.from([10, 0, 3, 3]);
  const some = new Float32Array(picked.length);
  scorer.scoreSlots(query, matrix, count, dim, picked, picked.length, some);
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-4;
  if (!expected.every((value, r) => close(all[r], value))) throw new Error('the native row products differ from the JavaScript ones');
  if (!Array.from(picked).every((slot, i) => close(some[i], expected[slot]))) throw new Error('the native slot products differ from the JavaScript ones');
}

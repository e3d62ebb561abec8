/**
 * The converted USE-lite graph on onnxruntime: opening a session and running it, shared by the runner on
 * the event loop's thread (onnx-use-lite.runner.ts) and the one in a worker thread
 * (onnx-use-lite.worker.ts), so both run the model the same way. Nothing is imported from
 * onnxruntime-node here: callers pass the module they loaded (lazily: it costs memory and start time).
 */

/**
 * Threads per model call: 1. On a shared 2-core machine a second thread made queries slower (p50 10.8-13.3
 * ms against 8.0-9.8 ms) and batches no faster on median (75 against 112 texts/s; bench/embedder.bench.ts),
 * while taking the core the event loop and the database need (docs/architecture.md, "The embedder").
 */
export const DEFAULT_INTRA_OP_THREADS = 1;

/** Output width of the model: one 512-float row per text. */
export const USE_LITE_WIDTH = 512;

/** The parts of onnxruntime-node's API the runner uses (typed here so the import stays lazy): a tensor. */
export interface OrtTensor {
  readonly dims: readonly number[];
  readonly data: unknown;
}
/** An inference session: its input and output names, a run with pre-allocated outputs, and its release. */
export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>, fetches: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}
/** The module: sessions from a model file or its bytes, and tensors over typed arrays. */
export interface OrtModule {
  InferenceSession: { create(model: string | Uint8Array, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]) => OrtTensor;
}

/**
 * Opens the converted model (`model`: its file path or bytes) on onnxruntime's CPU engine with
 * `intraOpThreads` threads per run (default {@link DEFAULT_INTRA_OP_THREADS}), and checks that it has the
 * converter's inputs (`indices`, `values`) and one output, whose name it returns with the session.
 * @throws Error when onnxruntime cannot load the model, or the graph is not the converter's.
 */
export async function openUseLiteSession(ort: OrtModule, model: string | Uint8Array, intraOpThreads = DEFAULT_INTRA_OP_THREADS): Promise<{ session: OrtSession; outputName: string }> {
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: intraOpThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  if (!session.inputNames.includes('indices') || !session.inputNames.includes('values') || session.outputNames.length !== 1) {
    await session.release();
    throw new Error(`converted model has inputs [${session.inputNames.join(', ')}] and outputs [${session.outputNames.join(', ')}], expected [indices, values] and one output`);
  }
  return { session, outputName: session.outputNames[0] };
}

/**
 * One `session.run` of the converted USE-lite graph over the token ids of `encodings` (one array of ids
 * per text, each non-empty). The graph takes its input ragged: one `[row, position]` pair and one id per
 * token, as the tfjs graph does, so a batch needs no padding. Returns one buffer of `encodings.length` ×
 * 512 floats, row after row. Shared by the runner on the event loop's thread and the one in a worker
 * thread (onnx-use-lite.worker.ts). Throws what onnxruntime throws.
 */
export async function runUseLiteOnnx(ort: OrtModule, session: OrtSession, outputName: string, encodings: readonly (readonly number[])[]): Promise<Float32Array> {
  const total = encodings.reduce((n, ids) => n + ids.length, 0);
  const indexData = new BigInt64Array(total * 2);
  const valueData = new BigInt64Array(total);
  let k = 0;
  encodings.forEach((ids, row) => {
    ids.forEach((id, position) => {
      indexData[2 * k] = BigInt(row);
      indexData[2 * k + 1] = BigInt(position);
      valueData[k++] = BigInt(id);
    });
  });
  // The output is pre-allocated: onnxruntime writes the rows into this array (no copy), and the
  // tensor it returns is ours, whatever realm the caller runs in (a Jest sandbox has its own typed arrays).
  const data = new Float32Array(encodings.length * USE_LITE_WIDTH);
  const fetches = { [outputName]: new ort.Tensor('float32', data, [encodings.length, USE_LITE_WIDTH]) };
  await session.run({ indices: new ort.Tensor('int64', indexData, [total, 2]), values: new ort.Tensor('int64', valueData, [total]) }, fetches);
  return data;
}

/**
 * The raw 512-float rows of `encodings` (token ids per text, each non-empty), in order: one
 * {@link runUseLiteOnnx} over all of them, or with `textPerRun` one per text (the int8 model quantises a
 * run's input with one scale, so one text per run keeps every vector independent of its batch; see
 * `OnnxUseLiteRunnerOptions.textPerRun`). The rows are views into the runs' output buffers. Throws what
 * onnxruntime throws.
 */
export async function useLiteRows(ort: OrtModule, session: OrtSession, outputName: string, encodings: readonly (readonly number[])[], textPerRun: boolean): Promise<Float32Array[]> {
  const runs = textPerRun && encodings.length > 1 ? encodings.map((ids) => [ids]) : [encodings];
  const rows: Float32Array[] = [];
  for (const run of runs) {
    const data = await runUseLiteOnnx(ort, session, outputName, run);
    for (let i = 0; i < run.length; i++) rows.push(data.subarray(i * USE_LITE_WIDTH, (i + 1) * USE_LITE_WIDTH));
  }
  return rows;
}

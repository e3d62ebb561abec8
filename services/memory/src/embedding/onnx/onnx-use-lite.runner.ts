import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmbeddingBatchRunner } from '../use-lite.embedder';
import { type UseLiteTokenizerParts, WindowedUseLiteTokenizer } from '../use-lite.tokenizer';
import { useLiteModelPackage } from './use-lite-onnx-cache';

/** Options of {@link loadOnnxUseLiteRunner}. */
export interface OnnxUseLiteRunnerOptions {
  /** The converted model file (see use-lite-onnx-cache.ts). */
  modelPath: string;
  /** The model's bytes, loaded instead of `modelPath` when given (the cache could not be written). */
  modelBytes?: Uint8Array;
  /** Threads one `session.run` may use (onnxruntime `intraOpNumThreads`); default {@link DEFAULT_INTRA_OP_THREADS}. */
  intraOpThreads?: number;
  /**
   * One text per `session.run` (default false: a batch is one run). Set for the int8 model: it quantises
   * a product's input with one scale per run, so in a batch one text's range would change another's
   * vector (min cosine to fp32 0.9982 alone, 0.9975 in batches of 8, 0.9964 of 32); one text per run
   * keeps every vector independent of what it was batched with.
   */
  textPerRun?: boolean;
}

/**
 * Threads per model call: 1. On a shared 2-core machine a second thread made queries slower (p50 10.8-13.3
 * ms against 8.0-9.8 ms) and batches no faster on median (75 against 112 texts/s; bench/embedder.bench.ts),
 * while taking the core the event loop and the database need (docs/architecture.md, "The embedder").
 */
export const DEFAULT_INTRA_OP_THREADS = 1;

/** Output width of the model: one 512-float row per text. */
const USE_LITE_WIDTH = 512;

/** The parts of onnxruntime-node's API the runner uses (typed here so the import stays lazy). */
export interface OrtTensor {
  readonly dims: readonly number[];
  readonly data: unknown;
}
export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>, fetches: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}
export interface OrtModule {
  InferenceSession: { create(model: string | Uint8Array, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]) => OrtTensor;
}

/** The package's tokenizer (SentencePiece over `vocab.json`), without loading its tfjs graph model. */
async function loadTokenizer(): Promise<WindowedUseLiteTokenizer> {
  const { EmbeddingsModel } = await import('@energetic-ai/embeddings');
  const vocabulary = JSON.parse(await readFile(join(useLiteModelPackage().directory, 'vocab.json'), 'utf8')) as [string, number][];
  // The constructor only builds the tokenizer; the graph model is not needed here.
  const model = new EmbeddingsModel({ vocabulary, model: undefined as never });
  return new WindowedUseLiteTokenizer(model.tokenizer as unknown as UseLiteTokenizerParts);
}

/**
 * Loads the ONNX conversion of Universal Sentence Encoder lite into onnxruntime's native CPU engine and
 * returns a runner with the same contract as the tfjs one (`loadUseLiteRunner`): the same tokenizer and
 * token ids, one raw 512-float row per text. The graph takes its input ragged (one `[row, position]`
 * pair and one id per token, as the tfjs graph does), so a batch needs no padding.
 * @throws Error when onnxruntime-node cannot load (no native binary for this platform), the model
 *   file is unreadable or not a valid ONNX model, or a probe embedding fails.
 */
export async function loadOnnxUseLiteRunner(options: OnnxUseLiteRunnerOptions): Promise<EmbeddingBatchRunner> {
  const ort = (await import('onnxruntime-node')) as unknown as OrtModule;
  const [session, tokenizer] = await Promise.all([
    ort.InferenceSession.create(options.modelBytes ?? options.modelPath, {
      intraOpNumThreads: options.intraOpThreads ?? DEFAULT_INTRA_OP_THREADS,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    }),
    loadTokenizer(),
  ]);
  const outputName = session.outputNames[0];
  if (!session.inputNames.includes('indices') || !session.inputNames.includes('values') || session.outputNames.length !== 1) {
    await session.release();
    throw new Error(`converted model has inputs [${session.inputNames.join(', ')}] and outputs [${session.outputNames.join(', ')}], expected [indices, values] and one output`);
  }
  /** One model run over `texts`: one raw 512-float row per text, in order. */
  const runBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    // The empty string has no tokens and would silently drop its output row; a space encodes to "▁▁".
    const encodings = texts.map((text) => tokenizer.encode(text.length === 0 ? ' ' : text));
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
    const data = new Float32Array(texts.length * USE_LITE_WIDTH);
    const fetches = { [outputName]: new ort.Tensor('float32', data, [texts.length, USE_LITE_WIDTH]) };
    await session.run({ indices: new ort.Tensor('int64', indexData, [total, 2]), values: new ort.Tensor('int64', valueData, [total]) }, fetches);
    return texts.map((_, i) => data.subarray(i * USE_LITE_WIDTH, (i + 1) * USE_LITE_WIDTH));
  };
  const runner: EmbeddingBatchRunner = {
    async run(texts) {
      if (!options.textPerRun || texts.length <= 1) return runBatch(texts);
      const rows: Float32Array[] = [];
      for (const text of texts) rows.push((await runBatch([text]))[0]);
      return rows;
    },
    dispose() {
      void session.release();
    },
  };
  // One probe call before the runner is handed out: a model that loads but cannot run here (a broken
  // native build, or Jest's sandbox, whose typed arrays onnxruntime-common rejects) fails the load, so
  // that `auto` falls back to tfjs instead of failing every embed.
  try {
    const [probe] = await runner.run(['probe']);
    if (!Array.from(probe).every(Number.isFinite)) throw new Error('the probe embedding is not finite');
  } catch (error) {
    await session.release();
    throw new Error(`the converted model does not run: ${(error as Error).message}`);
  }
  return runner;
}

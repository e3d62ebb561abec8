import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmbedPurpose } from '../embedder.port';
import type { EmbeddingBatchRunner } from '../use-lite.embedder';
import { type UseLiteTokenizerParts, WindowedUseLiteTokenizer } from '../use-lite.tokenizer';
import { DEFAULT_INTRA_OP_THREADS, openUseLiteSession, type OrtModule, useLiteRows } from './onnx-use-lite.session';
import { UseLiteWorkerThread, UseLiteWorkerThreadError } from './onnx-use-lite.worker-thread';
import { useLiteModelPackage } from './use-lite-onnx-cache';

export { DEFAULT_INTRA_OP_THREADS, type OrtModule, type OrtSession, type OrtTensor } from './onnx-use-lite.session';

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
  /**
   * Runs document embeddings (`purpose` 'document') in a worker thread with its own session of the same
   * model (onnx-use-lite.worker-thread.ts), queries on the calling thread. Default false (library use,
   * benchmarks of the model); the service sets it (use-lite-runtime.ts; docs/architecture.md, "The embedder").
   */
  workerThread?: boolean;
  /** Told once when the worker thread fails (the runner then embeds documents on the calling thread). */
  onWorkerFailure?: (error: Error) => void;
}

/** The runner {@link loadOnnxUseLiteRunner} returns: its worker thread, if it has one (tests, diagnostics). */
export interface OnnxUseLiteRunner extends EmbeddingBatchRunner {
  readonly workerThread?: UseLiteWorkerThread;
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
export async function loadOnnxUseLiteRunner(options: OnnxUseLiteRunnerOptions): Promise<OnnxUseLiteRunner> {
  const ort = (await import('onnxruntime-node')) as unknown as OrtModule;
  const model = options.modelBytes ?? options.modelPath;
  const [{ session, outputName }, tokenizer] = await Promise.all([openUseLiteSession(ort, model, options.intraOpThreads), loadTokenizer()]);
  const textPerRun = options.textPerRun ?? false;
  let thread: UseLiteWorkerThread | undefined;
  let disposed = false;
  /**
   * The rows of `texts`: documents in the worker thread once it is ready (until then, and for good once it
   * failed, here), queries here.
   */
  const rows = async (texts: readonly string[], purpose: EmbedPurpose | undefined): Promise<Float32Array[]> => {
    if (disposed) throw new Error('The embedding runner is disposed');
    // The empty string has no tokens and would silently drop its output row; a space encodes to "▁▁".
    const encodings = texts.map((text) => tokenizer.encode(text.length === 0 ? ' ' : text));
    if (purpose === 'document' && thread?.isReady) {
      try {
        return await thread.rows(encodings);
      } catch (error) {
        // The thread failed (and told onWorkerFailure): this run, and every later one, runs here. One stopped
        // by dispose() is not replaced: the session here is being released too.
        if (!(error instanceof UseLiteWorkerThreadError) || error.stopped) throw error;
      }
    }
    return useLiteRows(ort, session, outputName, encodings, textPerRun);
  };
  const runner: OnnxUseLiteRunner = {
    get workerThread() {
      return thread;
    },
    // Only while documents really run elsewhere: before the thread is ready, and after it failed, they run
    // on this thread and share the embedder's one queue with queries.
    get concurrentPurposes() {
      return thread?.isReady === true;
    },
    run: rows,
    dispose() {
      disposed = true;
      void thread?.terminate();
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
  // Started now, in the background: until it is ready (and for good if it fails), documents run here.
  if (options.workerThread) thread = new UseLiteWorkerThread({ model, intraOpThreads: options.intraOpThreads ?? DEFAULT_INTRA_OP_THREADS, textPerRun }, options.onWorkerFailure);
  return runner;
}

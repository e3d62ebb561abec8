import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { loadOnnxUseLiteRunner, type OnnxUseLiteRunnerOptions } from './onnx/onnx-use-lite.runner';
import { ensureUseLiteOnnxModel, type UseLiteOnnxModelFile, type UseLitePrecision } from './onnx/use-lite-onnx-cache';
import { type EmbeddingBatchRunner, loadUseLiteRunner, UseLiteEmbedder, type UseLiteEmbedderOptions } from './use-lite.embedder';

/**
 * Which engine runs Universal Sentence Encoder lite (`EMBEDDER_RUNTIME`, docs/configuration.md):
 * `onnx` the native onnxruntime CPU engine on a converted copy of the model, `tfjs` TensorFlow.js on
 * WebAssembly (the package's own engine), `auto` onnx with tfjs as the fallback.
 */
export type UseLiteRuntime = 'auto' | 'onnx' | 'tfjs';

/** Options of {@link createUseLiteRunnerLoader}. */
export interface UseLiteRuntimeOptions {
  /** Default `auto`. */
  runtime?: UseLiteRuntime;
  /**
   * The onnx engine's model (`EMBEDDER_PRECISION`): `int8` (default) the copy with 8-bit weight matrices,
   * `fp32` the conversion as it is; tfjs is always fp32.
   */
  precision?: UseLitePrecision;
  /** Where the converted model is cached (`<DATA_DIR>/models`); default `<os tmpdir>/agent-memory-models`. */
  modelCacheDirectory?: string;
  /**
   * On onnx, embed documents (stored content) in a worker thread and queries on the event loop's thread
   * (`OnnxUseLiteRunnerOptions.workerThread`; docs/architecture.md, "The embedder"). Default true.
   */
  workerThread?: boolean;
  /** Default: a Nest `Logger` named `Embedder`. */
  logger?: Pick<Logger, 'log' | 'warn'>;
  /** Seams for tests. */
  loadTfjs?: () => Promise<EmbeddingBatchRunner>;
  loadOnnx?: (options: OnnxUseLiteRunnerOptions) => Promise<EmbeddingBatchRunner>;
}

/** The runner that loaded and the engine it runs on. */
export interface LoadedUseLiteRunner {
  runner: EmbeddingBatchRunner;
  runtime: 'onnx' | 'tfjs';
}

/** Default cache directory when none is configured (library use, tests, benchmarks without a data directory). */
export function defaultModelCacheDirectory(): string {
  return join(tmpdir(), 'agent-memory-models');
}

/** The cached ONNX model of `precision` loaded; a cached file that does not load is converted again once. */
async function loadOnnxOf(directory: string, precision: UseLitePrecision, load: NonNullable<UseLiteRuntimeOptions['loadOnnx']>, logger: NonNullable<UseLiteRuntimeOptions['logger']>, workerThread: boolean): Promise<EmbeddingBatchRunner> {
  const threadOptions = {
    workerThread,
    onWorkerFailure: (error: Error) => logger.warn(`${error.message}; embedding documents on the event loop's thread from now on`),
  };
  const file: UseLiteOnnxModelFile = await ensureUseLiteOnnxModel(directory, { precision });
  if (file.cacheError) logger.warn(`converted the embedding model to ONNX (${precision}) in ${Math.round(file.conversionMs)} ms but cannot cache it (${file.cacheError}); converting again on every start`);
  else if (file.converted) logger.log(`converted the embedding model to ONNX (${precision}) in ${Math.round(file.conversionMs)} ms (${file.path})`);
  try {
    return await load({ modelPath: file.path, modelBytes: file.bytes, textPerRun: precision === 'int8', ...threadOptions });
  } catch (error) {
    if (file.converted) throw error;
    logger.warn(`cached ONNX embedding model ${file.path} did not load (${(error as Error).message}); converting it again`);
    const fresh = await ensureUseLiteOnnxModel(directory, { reconvert: true, precision });
    logger.log(`converted the embedding model to ONNX (${precision}) in ${Math.round(fresh.conversionMs)} ms (${fresh.path})`);
    return load({ modelPath: fresh.path, modelBytes: fresh.bytes, textPerRun: precision === 'int8', ...threadOptions });
  }
}

/** The ONNX model loaded: `int8`, and when that cannot load, `fp32` with a warning. */
async function loadOnnx(directory: string, precision: UseLitePrecision, load: NonNullable<UseLiteRuntimeOptions['loadOnnx']>, logger: NonNullable<UseLiteRuntimeOptions['logger']>, workerThread: boolean): Promise<EmbeddingBatchRunner> {
  if (precision === 'fp32') return loadOnnxOf(directory, 'fp32', load, logger, workerThread);
  try {
    return await loadOnnxOf(directory, 'int8', load, logger, workerThread);
  } catch (error) {
    logger.warn(`int8 embedding model unavailable: ${(error as Error).message}; using fp32`);
    return loadOnnxOf(directory, 'fp32', load, logger, workerThread);
  }
}

/**
 * Loads the model runner on the configured engine, logging "loading embedding model (onnx|tfjs)" and
 * "embedding model ready in X ms" (info). `auto`: the ONNX conversion (cached under
 * `modelCacheDirectory`, converted on first use) on onnxruntime, and when that fails, tfjs-wasm with the
 * warning "native embedder unavailable: <why>; using tfjs-wasm". `onnx`: no fallback, the error is
 * thrown. On onnx, `precision` `int8` (default) loads the quantised copy, and the fp32 one with the
 * warning "int8 embedding model unavailable: <why>; using fp32" when it cannot. The fp32 engines give the
 * same vectors (cosine >= 0.9999) and int8 nearly the same (cosine >= 0.998 to fp32;
 * onnx-use-lite.equivalence.spec.ts), one embedding space, so the embedder id (`use-lite@512`) and every
 * stored vector stay valid whichever runs (docs/architecture.md, "The embedder").
 * @throws Error when the configured engine (or, for `auto`, both) cannot load.
 */
export async function loadUseLiteRunnerFor(options: UseLiteRuntimeOptions = {}): Promise<LoadedUseLiteRunner> {
  const runtime = options.runtime ?? 'auto';
  const logger = options.logger ?? new Logger('Embedder');
  const tfjs = options.loadTfjs ?? loadUseLiteRunner;
  const start = performance.now();
  const ready = (loaded: LoadedUseLiteRunner): LoadedUseLiteRunner => {
    logger.log(`embedding model ready in ${Math.round(performance.now() - start)} ms (${loaded.runtime})`);
    return loaded;
  };
  if (runtime !== 'tfjs') {
    logger.log('loading embedding model (onnx)');
    try {
      const runner = await loadOnnx(options.modelCacheDirectory ?? defaultModelCacheDirectory(), options.precision ?? 'int8', options.loadOnnx ?? loadOnnxUseLiteRunner, logger, options.workerThread ?? true);
      return ready({ runner, runtime: 'onnx' });
    } catch (error) {
      if (runtime === 'onnx') throw error;
      logger.warn(`native embedder unavailable: ${(error as Error).message}; using tfjs-wasm`);
    }
  }
  logger.log('loading embedding model (tfjs)');
  return ready({ runner: await tfjs(), runtime: 'tfjs' });
}

/**
 * A {@link UseLiteEmbedder} whose model loads through {@link loadUseLiteRunnerFor} (lazily, on the first
 * embed or the warm-up): what the composition roots (memory.module.ts, memory-check.stores.ts) build.
 */
export function createUseLiteEmbedder(runtime: UseLiteRuntimeOptions = {}, embedder: Omit<UseLiteEmbedderOptions, 'loadRunner'> = {}): UseLiteEmbedder {
  return new UseLiteEmbedder({ ...embedder, loadRunner: async () => (await loadUseLiteRunnerFor(runtime)).runner });
}

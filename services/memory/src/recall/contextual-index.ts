import { normaliseL2 } from '../embedding/vector-math';
import type { SparseVector } from '../vector-index/vector-index.port';
import { USE_LITE_MEAN } from './use-lite-mean';

/**
 * Contextual indexing (docs/api.md, "Recall"; docs/configuration.md, "Recall"): a memory is indexed with
 * the keywords and the meaning of the memories written just before it in the same record, because a
 * question's words are often split between neighbours (a question turn and its answer turn). What is
 * stored and returned (content, summary, path) does not change, and recall costs nothing more: only the
 * index entry is contextual. LoCoMo R@10 69.0 → about 77.5 in an offline copy of recall (issue "Recall at
 * the physical limit"); measured through HTTP in bench/locomo.bench.ts.
 */
export interface ContextOptions {
  /** Whether index entries borrow context at all (`RECALL_CONTEXT=on|off`). */
  enabled: boolean;
  /**
   * Context is cut where two consecutive memories were written more than this many seconds apart
   * (`RECALL_CONTEXT_GAP_SECONDS`): memories written in one sitting are assumed related, later ones not.
   */
  gapSeconds: number;
  /**
   * A predecessor lends only if the cosine of its own vector and that of the memory after it (the memory
   * itself for the previous one), both first centred on {@link centre}, is at least this: neighbours written
   * together but about unrelated things lend nothing.
   */
  minSimilarity: number;
  /**
   * The vector subtracted from both before the gate's cosine: the embedder's common component (for
   * USE-lite, {@link USE_LITE_MEAN}), which makes the raw cosines of unrelated texts high and close
   * together. Absent, or of another dimension than the vectors: the raw cosine.
   */
  centre?: Float32Array;
  /** Weight of the i-th predecessor's term frequencies (newest first); its length is the context depth. */
  keywordWeights: readonly number[];
  /** Weight of the i-th predecessor's unit vector in the normalised blend (newest first). */
  denseWeights: readonly number[];
}

/** Default gap: 30 minutes, one working session. */
export const DEFAULT_CONTEXT_GAP_SECONDS = 1_800;

/**
 * The service's contextual indexing (for USE-lite; other embedders: {@link contextOptionsFor}): on, two
 * predecessors, keywords weighted 0.5 and 0.25 and vectors 0.25 and 0.125, each predecessor lending only if
 * its centred cosine with the memory after it (centre {@link USE_LITE_MEAN}) is at least 0.25.
 *
 * Why the gate: memories written together but unrelated (a fact store filled in one sitting) must not lend
 * each other words. Raw USE-lite cosines separate the two cases poorly (consecutive LoCoMo turns: median
 * 0.59; consecutive unrelated memories of the paraphrase set: 0.20, with a long tail), because the vectors
 * share a large common component; centred on it, related neighbours keep a clear cosine and unrelated ones
 * fall near 0 (the "all-but-the-top" observation, Mu & Viswanath, ICLR 2018). Measured offline with the
 * service's own code (bench/locomo-offline/context-tune.ts, group `stateless`; all 10 LoCoMo conversations,
 * R@5 / R@10; paraphrase set recall@3, bench/paraphrase.bench.ts's fixture), with the fusion of
 * `HYBRID_FUSION` (α 0.84): this configuration 67.9 / 76.8, 66.7; the previous one (raw cosine ≥ 0.5,
 * vectors 0.5 / 0.25, α 0.8) 65.3 / 73.3, 62.5; no gate 68.7 / 77.4, 50.0; no context 61.0 / 68.8, 62.5.
 * Halving the dense weights kept LoCoMo and gave the paraphrase set back what the looser gate took.
 */
export const DEFAULT_CONTEXT: ContextOptions = {
  enabled: true,
  gapSeconds: DEFAULT_CONTEXT_GAP_SECONDS,
  minSimilarity: 0.25,
  centre: USE_LITE_MEAN,
  keywordWeights: [0.5, 0.25],
  denseWeights: [0.25, 0.125],
};

/** The gate for embedders without a known centre: the raw cosine, at the threshold used before centring. */
const RAW_GATE = { minSimilarity: 0.5, centre: undefined } as const;

/**
 * The options for the embedder `embedderId`: `options` as they are for USE-lite (`use-lite@512`, whose
 * centre they carry); for any other embedder, the gate becomes the raw cosine ≥ 0.5 (its common component
 * is unknown). Pure.
 */
export function contextOptionsFor(embedderId: string, options: ContextOptions): ContextOptions {
  return embedderId === 'use-lite@512' ? options : { ...options, ...RAW_GATE };
}

/** No context: each memory is indexed on its own content only. */
export const NO_CONTEXT: ContextOptions = { ...DEFAULT_CONTEXT, enabled: false };

/** How many predecessors an entry may borrow from (0 when off). */
export function contextDepth(options: ContextOptions): number {
  return options.enabled ? Math.max(options.keywordWeights.length, options.denseWeights.length) : 0;
}

/** One memory's own index material: its record, when it was first written, its own vector and keywords. */
export interface ContextSource {
  recordId: string;
  createdAt: Date;
  /** Unit vector of the memory's own content. */
  dense: Float32Array;
  /** Keywords of the memory's own content (`encodeKeywords`). */
  sparse: SparseVector;
}

/**
 * The predecessors that `self` borrows from: `predecessors` (newest first) are walked while they are of
 * the same record, each is at most `gapSeconds` older than the one after it and its cosine with that one
 * is at least `minSimilarity`; at most {@link contextDepth} of them. Pure.
 */
export function contextOf<T extends Pick<ContextSource, 'recordId' | 'createdAt' | 'dense'>>(self: T, predecessors: readonly T[], options: ContextOptions): T[] {
  const taken: T[] = [];
  let after = self;
  for (const p of predecessors.slice(0, contextDepth(options))) {
    if (!withinContextGap(self, after, p, options)) break;
    if (options.minSimilarity > -1 && !(gateCosine(after.dense, p.dense, options.centre) >= options.minSimilarity)) break;
    taken.push(p);
    after = p;
  }
  return taken;
}

/**
 * The part of {@link contextOf}'s rule that needs no content: predecessor `p` of `self` (the memory being
 * indexed), just before `after` (`self` or the predecessor taken last), is in `self`'s record and at most
 * `gapSeconds` older than `after`. Lets a caller skip reading and embedding a predecessor that cannot lend. Pure.
 */
export function withinContextGap(self: Pick<ContextSource, 'recordId'>, after: Pick<ContextSource, 'createdAt'>, p: Pick<ContextSource, 'recordId' | 'createdAt'>, options: ContextOptions): boolean {
  return p.recordId === self.recordId && after.createdAt.getTime() - p.createdAt.getTime() <= options.gapSeconds * 1_000;
}

/**
 * Cosine of two unit vectors, each first minus `centre` when it has their dimension (else the plain dot
 * product). NaN when the vectors' lengths differ or a centred vector is zero, which fails every threshold.
 */
export function gateCosine(a: Float32Array, b: Float32Array, centre?: Float32Array): number {
  if (a.length !== b.length) return NaN;
  if (!centre || centre.length !== a.length) {
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
    return sum;
  }
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] - centre[i];
    const y = b[i] - centre[i];
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return ab / Math.sqrt(aa * bb);
}

/**
 * The index entry of `self` given its predecessors (newest first, as stored):
 * - keywords: tf(t) = own tf + Σ_i keywordWeights[i] · tf_i(t) (BM25 takes fractional term frequencies);
 * - dense: normalise(own + Σ_i denseWeights[i] · v_i), a unit vector.
 * Predecessors are first cut by {@link contextOf}; with none (or context off) the own entry is returned.
 * Indices of the result are sorted ascending and unique. Pure; linear in the terms and dimension.
 */
export function contextualEntry(self: ContextSource, predecessors: readonly ContextSource[], options: ContextOptions): { dense: Float32Array; sparse: SparseVector } {
  const context = contextOf(self, predecessors, options);
  if (context.length === 0) return { dense: self.dense, sparse: self.sparse };
  const tf = new Map<number, number>();
  const add = (sparse: SparseVector, weight: number) => {
    if (!(weight > 0)) return;
    sparse.indices.forEach((term, j) => tf.set(term, (tf.get(term) ?? 0) + weight * sparse.values[j]));
  };
  add(self.sparse, 1);
  context.forEach((p, i) => add(p.sparse, options.keywordWeights[i] ?? 0));
  const indices = [...tf.keys()].sort((a, b) => a - b);
  const dense = Float32Array.from(self.dense);
  context.forEach((p, i) => {
    const weight = options.denseWeights[i] ?? 0;
    if (weight > 0 && p.dense.length === dense.length) for (let d = 0; d < dense.length; d++) dense[d] += weight * p.dense[d];
  });
  return { dense: normaliseL2(dense), sparse: { indices, values: indices.map((t) => tf.get(t)!) } };
}

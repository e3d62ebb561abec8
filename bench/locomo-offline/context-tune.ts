/**
 * Tuning of contextual indexing (services/memory/src/recall/contextual-index.ts): which gate decides that a
 * neighbour lends, the context weights, and the fusion α, offline, through the service's own code
 * (`embedDocument`, `encodeKeywords`, `contextualEntry`, `EmbeddedVectorIndex`, `convexScoreFusion` as in
 * `hybridSearch`, `denseQueryText`, `encodeQuery`), with production's USE-lite vectors (onnx runner) from the
 * cache of static-eval.ts (tmp/static-embedder/onnx-vectors.bin; texts not in it are embedded and added).
 *
 * Each variant is one fixed configuration: gate + keyword weights + dense weights (+ α). The gate is applied
 * as production's `contextOf` does: walking predecessors newest first, each compared with the memory after
 * it (the memory itself for the first), stopping at the first that fails. The lenders it takes are passed to
 * production's `contextualEntry` (gate open), so the entries are exactly what the service would write with
 * that gate. Memories are written one second apart (no gap cut), as static-eval.ts.
 *
 * Data: LoCoMo (10 conversations, one tenant each, 1,986 questions, limit 25) and the paraphrase set
 * (108 unrelated memories in `seededShuffle(set, 20261125)` order into one tenant, 120 questions). Nothing
 * looks at answers, evidence, categories or ids except the scoring.
 *
 * Mean vectors for centred cosines come from data that is not evaluated (see {@link referenceTexts}) and are
 * saved to tmp/context-tune/mean-*.json.
 *
 * Run: `nice -n 10 node -r @swc-node/register bench/locomo-offline/context-tune.ts GROUP...`
 * Groups (any number; each run well under a minute; `ALPHAS=0.8,0.82` or `ALPHAS=all` (0.7..0.85) sets the
 * fusion weights reported, each variant's index is searched once and fused with every α):
 *   diag (mean vectors, pair statistics, gate pass rates, record coherence), check (the harness against
 *   production's `contextOf` + `hybridSearch`: must print 73.3 / 62.5), base, raw, centred, centred-src,
 *   centred-fine, centred-half, running, overlap, rank, soft, split, self, weights, alpha-fine, coherence,
 *   final, final2, final3 (the recommended configuration and its alternatives).
 * Columns: LoCoMo all 10 R@5/10/25 and R@10 per category, first 2 R@10, first 5 and last 5 R@5/R@10; the
 * paraphrase set r@1/3/5 in the official order, mean r@3/r@5 over 10 write orders, and r@3 in "mixed"
 * records (a whole conversation, then the paraphrase set, in one record: conversations 0 and 5).
 * Output: markdown tables on stdout.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  chunkForEmbedding,
  contextOf,
  type ContextOptions,
  type ContextSource,
  contextualEntry,
  convexScoreFusion,
  DEFAULT_CONTEXT,
  denseQueryText,
  EmbeddedVectorIndex,
  type Embedder,
  embedDocument,
  encodeKeywords,
  encodeQuery,
  ensureUseLiteOnnxModel,
  hybridCandidateDepth,
  hybridSearch,
  loadOnnxUseLiteRunner,
  UseLiteEmbedder,
} from '@agent-memory/memory';
import { loadParaphraseSet, seededShuffle } from '@agent-memory/test-support';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { LABELLED_MEMORIES } from '../../services/memory/src/classification/labelled-memories.fixture';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { CLASSIFIER_SET } from '../../services/memory/src/classification/classifier-set.fixture';
import { generateMemories } from '../synthetic-memories';
import { MODEL_CACHE_DIR, STATIC_DIR } from './distil-static';
import { loadLocomo } from './locomo-data';

const ONNX_CACHE = path.join(STATIC_DIR, 'onnx-vectors.bin');
const OUT_DIR = path.resolve(__dirname, '../../tmp/context-tune');
const WORK_DIR = path.join(OUT_DIR, 'index');
const PARAPHRASE_SEED = 20_261_125;
const LIMIT = 25;
/** Other write orders of the paraphrase set (robustness of the guard; the official order is seed 20261125). */
const EXTRA_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9];
/** Conversations (indices) each followed by the paraphrase set in one record (mixed-record stress test). */
const MIXED_CONVERSATIONS = [0, 5];
/** Weight of the newest pair in the record's moving average of consecutive cosines (about the last 20 writes). */
const EMA_BETA = 0.05;
const DIM = 512;
const ALPHAS = [0.7, 0.75, 0.8, 0.85] as const;
const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-dom', 4: 'single-hop', 5: 'adversarial' };

// ---------------------------------------------------------------- vectors (same cache as static-eval.ts)

const keyOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

class LookupEmbedder implements Embedder {
  readonly id = 'use-lite@512';
  readonly dimension = DIM;
  constructor(private readonly vectors: ReadonlyMap<string, Float32Array>) {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const v = this.vectors.get(text);
      if (!v) throw new Error(`no precomputed vector for ${JSON.stringify(text.slice(0, 60))}`);
      return v.slice();
    });
  }
}

async function onnxVectors(texts: readonly string[]): Promise<Map<string, Float32Array>> {
  const cached = new Map<string, Float32Array>();
  if (existsSync(ONNX_CACHE)) {
    const data = readFileSync(ONNX_CACHE);
    const newline = data.indexOf(10);
    const header = JSON.parse(data.subarray(0, newline).toString('utf8')) as { model: string; keys: string[] };
    if (header.model === 'use-lite@512/onnx') {
      const floats = new Float32Array(header.keys.length * DIM);
      new Uint8Array(floats.buffer).set(data.subarray(newline + 1, newline + 1 + floats.byteLength));
      header.keys.forEach((key, i) => cached.set(key, floats.subarray(i * DIM, (i + 1) * DIM)));
    }
  }
  const missing = [...new Set(texts)].filter((text) => !cached.has(keyOf(text)));
  if (missing.length > 0) {
    const modelFile = await ensureUseLiteOnnxModel(MODEL_CACHE_DIR);
    const embedder = new UseLiteEmbedder({ cacheSize: 0, loadRunner: () => loadOnnxUseLiteRunner({ modelPath: modelFile.path, modelBytes: modelFile.bytes }) });
    const started = performance.now();
    for (let i = 0; i < missing.length; i += 256) {
      const chunk = missing.slice(i, i + 256);
      const vectors = await embedder.embed(chunk);
      chunk.forEach((text, j) => cached.set(keyOf(text), vectors[j]));
    }
    await embedder.close();
    console.error(`onnx: embedded ${missing.length} texts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const keys = [...cached.keys()];
    const floats = new Float32Array(keys.length * DIM);
    keys.forEach((key, i) => floats.set(cached.get(key)!, i * DIM));
    mkdirSync(STATIC_DIR, { recursive: true });
    writeFileSync(`${ONNX_CACHE}.tmp`, Buffer.concat([Buffer.from(JSON.stringify({ model: 'use-lite@512/onnx', keys }) + '\n'), Buffer.from(floats.buffer)]));
    renameSync(`${ONNX_CACHE}.tmp`, ONNX_CACHE);
  }
  return new Map(texts.map((text) => [text, cached.get(keyOf(text))!]));
}

// ---------------------------------------------------------------- reference texts for the mean vector

/**
 * Texts that are not evaluated, for the fixed mean vector:
 * - fixtures: the classifier fixtures (labelled-memories 61 + classifier-set 121 memories), of which
 *   34 classifier-set memories are dialogue turns in LoCoMo's shape (own sentences, LoCoMo speaker names);
 * - synthetic: 300 memories of bench/synthetic-memories.ts (seed 42; template sentences);
 * - all = fixtures + synthetic (each text once), the one recommended;
 * - no-dialogue: all without the "<Name>: ..." dialogue-shaped memories.
 */
function referenceTexts(): Record<string, string[]> {
  const fixtures = [...LABELLED_MEMORIES.map((m) => m.text), ...CLASSIFIER_SET.map((m) => m.text)];
  const synthetic = generateMemories(300, 42).map((m) => m.content);
  const all = [...new Set([...fixtures, ...synthetic])];
  const noDialogue = all.filter((t) => !/^[A-Z][a-z]+: /.test(t));
  return { fixtures: [...new Set(fixtures)], synthetic, all, 'no-dialogue': noDialogue };
}

function meanOf(vectors: readonly Float32Array[]): Float32Array {
  const m = new Float32Array(DIM);
  for (const v of vectors) for (let d = 0; d < DIM; d++) m[d] += v[d] / vectors.length;
  return m;
}

// ---------------------------------------------------------------- data

interface Mem {
  id: string;
  dense: Float32Array;
  sparse: ContextSource['sparse'];
}
interface TenantData {
  name: string;
  mems: Mem[];
  /** prefix[i] = Σ_{j<i} dense_j (running sums for the per-record running mean). */
  prefix: Float64Array[];
  /** consec[i] = Σ_{j=1..i} cos(own_j, own_{j−1}) (for the record's running coherence). */
  consec: Float64Array;
  /** ema[i] = exponential moving average (β = {@link EMA_BETA}) of those cosines up to pair i (ema[0] = 0). */
  ema: Float64Array;
}
interface Query {
  tenant: string;
  text: string;
  vector: Float32Array;
  relevant: string[];
  category: number;
  /** Conversation index (0..9) for LoCoMo, -1 for the paraphrase set. */
  conv: number;
}

function dotp(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** cos(a − m, b − m). */
function centredCos(a: Float32Array, b: Float32Array, m: ArrayLike<number>): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let d = 0; d < a.length; d++) {
    const x = a[d] - m[d];
    const y = b[d] - m[d];
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return ab / Math.sqrt(aa * bb || 1);
}

// ---------------------------------------------------------------- gates

/** Whether predecessor `p` (index) lends to the chain whose current "after" memory is `after`; `self` = the memory indexed. */
type Gate = (t: TenantData, after: number, p: number, self: number) => boolean;

const rawCos = (t: TenantData, a: number, b: number) => dotp(t.mems[a].dense, t.mems[b].dense);
const gates = {
  open: (): Gate => () => true,
  raw: (min: number): Gate => (t, a, p) => rawCos(t, a, p) >= min,
  centred: (mean: Float32Array, min: number): Gate => (t, a, p) => centredCos(t.mems[a].dense, t.mems[p].dense, mean) >= min,
  /**
   * Centred by the record's running mean at the time `self` is written (memories 0..self), shrunk towards
   * `prior` with `priorWeight` pseudo-memories (0: none). With fewer than `minCount` memories so far, `fallback` decides.
   */
  running: (min: number, prior: Float32Array | null, priorWeight: number, minCount: number, fallback: Gate): Gate => (t, a, p, self) => {
    const n = self + 1;
    if (n < minCount) return fallback(t, a, p, self);
    const sum = t.prefix[self + 1];
    const m = new Float64Array(DIM);
    const w = prior ? priorWeight : 0;
    for (let d = 0; d < DIM; d++) m[d] = (sum[d] + (prior ? w * prior[d] : 0)) / (n + w);
    return centredCos(t.mems[a].dense, t.mems[p].dense, m) >= min;
  },
  /** At least `min` distinct keyword terms (encodeKeywords: stop words out, stemmed) shared by the two. */
  shared: (min: number): Gate => (t, a, p) => sharedTerms(t.mems[a].sparse.indices, t.mems[p].sparse.indices) >= min,
  /** `p` is among the `k` most similar (raw cosine) to `after` of the `n` memories before `after`. */
  rank: (k: number, n: number): Gate => (t, a, p) => {
    const c = rawCos(t, a, p);
    let better = 0;
    for (let q = Math.max(0, a - n); q < a; q++) if (q !== p && rawCos(t, a, q) > c) better++;
    return better < k;
  },
  /**
   * Record coherence: the mean cosine of consecutive memories of the record so far (up to the memory being
   * indexed) decides which gate applies: `lenient` when at least `minPairs` pairs were seen and the mean is
   * at least `min`, else `strict`. Production state: per record, the sum of those cosines and their count.
   */
  coherence: (min: number, minPairs: number, lenient: Gate, strict: Gate): Gate => (t, a, p, self) =>
    self >= minPairs && t.consec[self] / self >= min ? lenient(t, a, p, self) : strict(t, a, p, self),
  /** As `coherence`, with the record's exponential moving average of consecutive cosines (state: one float and a count). */
  coherenceEma: (min: number, minPairs: number, lenient: Gate, strict: Gate): Gate => (t, a, p, self) =>
    self >= minPairs && t.ema[self] >= min ? lenient(t, a, p, self) : strict(t, a, p, self),
  /** As `coherence`, with the mean of the last `window` consecutive cosines (state: each memory's cosine with its predecessor). */
  coherenceWindow: (min: number, window: number, lenient: Gate, strict: Gate): Gate => (t, a, p, self) =>
    self >= window && (t.consec[self] - t.consec[self - window]) / window >= min ? lenient(t, a, p, self) : strict(t, a, p, self),
  and: (...gs: Gate[]): Gate => (t, a, p, s) => gs.every((g) => g(t, a, p, s)),
  or: (...gs: Gate[]): Gate => (t, a, p, s) => gs.some((g) => g(t, a, p, s)),
};

function sharedTerms(a: readonly number[], b: readonly number[]): number {
  const set = new Set(a);
  let n = 0;
  for (const x of new Set(b)) if (set.has(x)) n++;
  return n;
}

// ---------------------------------------------------------------- variants

interface Variant {
  name: string;
  /** Gate of both sides (of the keyword side when `denseGate` is given). */
  gate: Gate;
  /** Gate of the dense side, when it differs from the keyword side's. */
  denseGate?: Gate;
  keywordWeights: number[];
  denseWeights: number[];
  /** Compare each predecessor with the memory itself instead of the one after it. */
  againstSelf?: boolean;
  /**
   * Soft gate: a lender's weights (both sides) are multiplied by soft(cos), cos = raw cosine of the lender
   * and the memory it is compared with (0..1); applied after the gate.
   */
  soft?: (cos: number) => number;
}

/** Lenders of memory `s` under one gate (indices, newest first): production's walk, stopping at the first failure. */
function chainOf(t: TenantData, s: number, gate: Gate, depth: number, againstSelf: boolean): number[] {
  const taken: number[] = [];
  let after = s;
  for (let p = s - 1; p >= 0 && taken.length < depth; p--) {
    if (!gate(t, againstSelf ? s : after, p, s)) break;
    taken.push(p);
    after = p;
  }
  return taken;
}

/** Lenders of memory `s` and the weights each side gives them (0 = does not lend on that side). */
function lendersOf(t: TenantData, s: number, v: Variant): { lenders: number[]; kw: number[]; dense: number[] } {
  const depth = Math.max(v.keywordWeights.length, v.denseWeights.length);
  const kwChain = chainOf(t, s, v.gate, depth, !!v.againstSelf);
  const denseChain = v.denseGate ? chainOf(t, s, v.denseGate, depth, !!v.againstSelf) : kwChain;
  const lenders = kwChain.length >= denseChain.length ? kwChain : denseChain;
  const factor = lenders.map((p, i) => (v.soft ? v.soft(rawCos(t, v.againstSelf || i === 0 ? s : lenders[i - 1], p)) : 1));
  return {
    lenders,
    kw: lenders.map((_, i) => (i < kwChain.length ? (v.keywordWeights[i] ?? 0) * factor[i] : 0)),
    dense: lenders.map((_, i) => (i < denseChain.length ? (v.denseWeights[i] ?? 0) * factor[i] : 0)),
  };
}

// ---------------------------------------------------------------- index, search, scoring

interface PerQuery {
  /** Share of relevant ids in the top k, by α, by k. */
  shares: Map<number, Record<number, number>>;
}
interface Result {
  variant: string;
  lenders: { locomo: number[]; para: number[] };
  perQuery: PerQuery[];
}

let indexCounter = 0;
async function run(v: Variant, tenants: readonly TenantData[], queries: readonly Query[], alphas: readonly number[] = ALPHAS): Promise<Result> {
  const directory = path.join(WORK_DIR, `v${process.pid}-${indexCounter++}`);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const index = new EmbeddedVectorIndex({ directory });
  await index.open({ embedderId: 'use-lite@512', dimension: DIM });
  const lenders = { locomo: [0, 0, 0, 0], para: [0, 0, 0, 0] };
  const open: ContextOptions = { ...DEFAULT_CONTEXT, minSimilarity: -1, keywordWeights: v.keywordWeights, denseWeights: v.denseWeights };
  const epoch = Date.UTC(2026, 0, 1);
  for (const t of tenants) {
    const src = (i: number): ContextSource => ({ recordId: t.name, createdAt: new Date(epoch + i * 1000), dense: t.mems[i].dense, sparse: t.mems[i].sparse });
    const points = t.mems.map((m, s) => {
      const taken = lendersOf(t, s, v);
      const lending = taken.lenders.filter((_, i) => taken.kw[i] > 0 || taken.dense[i] > 0).length;
      if (t.name === 'paraphrase') lenders.para[lending]++;
      else if (!t.name.startsWith('paraphrase') && !t.name.startsWith('mixed')) lenders.locomo[lending]++;
      const { dense, sparse } = contextualEntry(src(s), taken.lenders.map(src), { ...open, keywordWeights: taken.kw, denseWeights: taken.dense });
      return { id: m.id, tenant: t.name, dense, sparse, payload: { type: 'episode' as const } };
    });
    await index.upsert(points);
  }
  const perQuery: PerQuery[] = [];
  const depth = hybridCandidateDepth(LIMIT);
  for (const q of queries) {
    const search = { tenant: q.tenant, limit: depth };
    const keywords = encodeQuery(q.text);
    const [dense, sparse] = await Promise.all([
      index.searchDense(q.vector, search),
      keywords.indices.length > 0 ? index.searchSparse(keywords, search) : Promise.resolve([]),
    ]);
    const inDense = new Set(dense.map((h) => h.id));
    const missing = sparse.filter((h) => !inDense.has(h.id)).map((h) => h.id);
    const cosines = missing.length > 0 ? await index.scoreDense(q.vector, q.tenant, missing) : new Map<string, number>();
    const shares = new Map<number, Record<number, number>>();
    for (const alpha of alphas) {
      const ids = convexScoreFusion({ dense, sparse, cosines }, { denseWeight: alpha, denseFloor: -1 }).slice(0, LIMIT).map((h) => h.id);
      const rec: Record<number, number> = {};
      for (const k of [1, 3, 5, 10, 25]) {
        const top = new Set(ids.slice(0, k));
        rec[k] = q.relevant.length === 0 ? 0 : q.relevant.filter((id) => top.has(id)).length / q.relevant.length;
      }
      shares.set(alpha, rec);
    }
    perQuery.push({ shares });
  }
  await index.close();
  rmSync(directory, { recursive: true, force: true });
  return { variant: v.name, lenders, perQuery };
}

/** Checks that the harness's own fusion loop equals `hybridSearch` (production) for α = 0.8 on the production config. */
async function checkAgainstHybridSearch(tenants: readonly TenantData[], queries: readonly Query[]): Promise<void> {
  const directory = path.join(WORK_DIR, `check-${process.pid}`);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const index = new EmbeddedVectorIndex({ directory });
  await index.open({ embedderId: 'use-lite@512', dimension: DIM });
  const epoch = Date.UTC(2026, 0, 1);
  for (const t of tenants) {
    const src = t.mems.map((m, i): ContextSource => ({ recordId: t.name, createdAt: new Date(epoch + i * 1000), dense: m.dense, sparse: m.sparse }));
    await index.upsert(
      t.mems.map((m, i) => {
        const pred = src.slice(Math.max(0, i - 2), i).reverse();
        contextOf(src[i], pred, DEFAULT_CONTEXT);
        const { dense, sparse } = contextualEntry(src[i], pred, DEFAULT_CONTEXT);
        return { id: m.id, tenant: t.name, dense, sparse, payload: { type: 'episode' as const } };
      }),
    );
  }
  const r10 = { locomo: 0, para3: 0 };
  for (const q of queries) {
    const hits = await hybridSearch(index, { tenant: q.tenant, vector: q.vector, query: q.text, limit: LIMIT });
    if (q.conv < -1) continue;
    const k = q.conv < 0 ? 3 : 10;
    const top = new Set(hits.slice(0, k).map((h) => h.id));
    const share = q.relevant.length === 0 ? 0 : q.relevant.filter((id) => top.has(id)).length / q.relevant.length;
    if (q.conv < 0) r10.para3 += share;
    else r10.locomo += share;
  }
  const nl = queries.filter((q) => q.conv >= 0).length;
  const np = queries.filter((q) => q.conv === -1).length;
  console.log(`check (production contextOf/contextualEntry + hybridSearch): LoCoMo R@10 ${((100 * r10.locomo) / nl).toFixed(1)}, paraphrase r@3 ${((100 * r10.para3) / np).toFixed(1)}`);
  await index.close();
  rmSync(directory, { recursive: true, force: true });
}

const pct = (xs: number[]) => (xs.length === 0 ? NaN : (100 * xs.reduce((a, b) => a + b, 0)) / xs.length);
const f1 = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(1));

interface Summary {
  r5: number;
  r10: number;
  r25: number;
  cat: Record<number, number>;
  first2: number;
  first5: [number, number];
  last5: [number, number];
  p1: number;
  p3: number;
  p5: number;
  /** Mean over the 10 write orders (official + EXTRA_SEEDS). */
  pm3: number;
  pm5: number;
  /** Paraphrase r@3 in the mixed records (conversation then the set, one record). */
  mx3: number;
}
function summarise(res: Result, queries: readonly Query[], alpha: number): Summary {
  const lq = queries.map((q, i) => ({ q, s: res.perQuery[i].shares.get(alpha)! }));
  const loc = lq.filter((x) => x.q.conv >= 0);
  const para = lq.filter((x) => x.q.conv === -1);
  const paraAll = lq.filter((x) => x.q.conv === -1 || x.q.conv === -2);
  const mixed = lq.filter((x) => x.q.conv === -3);
  const at = (xs: typeof lq, k: number) => pct(xs.map((x) => x.s[k]));
  const cat: Record<number, number> = {};
  for (const c of [1, 2, 3, 4, 5]) cat[c] = at(loc.filter((x) => x.q.category === c), 10);
  const first5 = loc.filter((x) => x.q.conv < 5);
  const last5 = loc.filter((x) => x.q.conv >= 5);
  return {
    r5: at(loc, 5),
    r10: at(loc, 10),
    r25: at(loc, 25),
    cat,
    first2: at(loc.filter((x) => x.q.conv < 2), 10),
    first5: [at(first5, 5), at(first5, 10)],
    last5: [at(last5, 5), at(last5, 10)],
    p1: at(para, 1),
    p3: at(para, 3),
    p5: at(para, 5),
    pm3: at(paraAll, 3),
    pm5: at(paraAll, 5),
    mx3: at(mixed, 3),
  };
}

const HEADER =
  '| Variant | α | R@5 | R@10 | R@25 | ' +
  [1, 2, 3, 4, 5].map((c) => `${CATEGORY_NAMES[c]} R@10`).join(' | ') +
  ' | first-2 R@10 | 1st5 R@5/R@10 | last5 R@5/R@10 | para r@1 | r@3 | r@5 | para 10 orders r@3/r@5 | mixed r@3 | LoCoMo lenders 0/1/2/3 | para lenders |';
const SEP = '|' + '---|'.repeat(HEADER.split('|').length - 2);

function rowOf(res: Result, s: Summary, alpha: number): string {
  const ok = s.r10 >= 75 && s.r5 >= 65 && s.p3 >= 62.5 ? ' ✓' : '';
  const lend = (xs: number[]) => xs.slice(0, 4).join('/');
  return (
    `| ${res.variant}${ok} | ${alpha} | ${f1(s.r5)} | ${f1(s.r10)} | ${f1(s.r25)} | ${[1, 2, 3, 4, 5].map((c) => f1(s.cat[c])).join(' | ')} | ${f1(s.first2)} | ` +
    `${f1(s.first5[0])}/${f1(s.first5[1])} | ${f1(s.last5[0])}/${f1(s.last5[1])} | ${f1(s.p1)} | ${f1(s.p3)} | ${f1(s.p5)} | ${f1(s.pm3)}/${f1(s.pm5)} | ${f1(s.mx3)} | ${lend(res.lenders.locomo)} | ${lend(res.lenders.para)} |`
  );
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const groups = new Set(process.argv.slice(2));
  const alphas = process.env.ALPHAS === 'all' ? [...ALPHAS] : process.env.ALPHAS ? process.env.ALPHAS.split(',').map(Number) : [0.8];
  const started = performance.now();
  mkdirSync(OUT_DIR, { recursive: true });

  const conversations = loadLocomo();
  const paraSet = loadParaphraseSet();
  const paraOrder = seededShuffle(paraSet, PARAPHRASE_SEED);
  const refs = referenceTexts();
  const allRefTexts = [...new Set(Object.values(refs).flat())];
  const memoryTexts = [...conversations.flatMap((c) => c.turns.map((t) => t.content)), ...paraOrder.map((m) => m.content)];
  const queryTexts = [...conversations.flatMap((c) => c.questions.map((q) => denseQueryText(q.question))), ...paraSet.flatMap((m) => m.questions.map(denseQueryText))];
  const vectors = await onnxVectors([...memoryTexts.flatMap((t) => chunkForEmbedding(t)), ...queryTexts, ...allRefTexts.flatMap((t) => chunkForEmbedding(t))]);
  const embedder = new LookupEmbedder(vectors);

  const tenant = async (name: string, items: { id: string; content: string }[]): Promise<TenantData> => {
    const mems: Mem[] = [];
    for (const m of items) mems.push({ id: m.id, dense: await embedDocument(embedder, m.content, { scope: name }), sparse: encodeKeywords(m.content) });
    const prefix: Float64Array[] = [new Float64Array(DIM)];
    for (const m of mems) {
      const next = Float64Array.from(prefix[prefix.length - 1]);
      for (let d = 0; d < DIM; d++) next[d] += m.dense[d];
      prefix.push(next);
    }
    const consec = new Float64Array(mems.length);
    for (let i = 1; i < mems.length; i++) consec[i] = consec[i - 1] + dotp(mems[i].dense, mems[i - 1].dense);
    const ema = new Float64Array(mems.length);
    for (let i = 1; i < mems.length; i++) ema[i] = i === 1 ? consec[1] : (1 - EMA_BETA) * ema[i - 1] + EMA_BETA * (consec[i] - consec[i - 1]);
    return { name, mems, prefix, consec, ema };
  };
  const tenants: TenantData[] = [];
  for (const c of conversations) tenants.push(await tenant(c.sampleId, c.turns.map((t) => ({ id: t.diaId, content: t.content }))));
  tenants.push(await tenant('paraphrase', paraOrder.map((m) => ({ id: m.id, content: m.content }))));
  // A mixed record: a whole conversation, then the paraphrase set (official order) written into the same
  // record (stress test of record-level state: the conversation makes the record look coherent).
  for (const c of MIXED_CONVERSATIONS)
    tenants.push(
      await tenant(`mixed-${c}`, [...conversations[c].turns.map((t) => ({ id: t.diaId, content: t.content })), ...paraOrder.map((m) => ({ id: m.id, content: m.content }))]),
    );
  // Robustness of the guard: the same set written in other random orders (seeds 1..9), one tenant each.
  for (const seed of EXTRA_SEEDS) tenants.push(await tenant(`paraphrase-s${seed}`, seededShuffle(paraSet, seed).map((m) => ({ id: m.id, content: m.content }))));
  const queries: Query[] = [];
  conversations.forEach((c, conv) => {
    for (const q of c.questions) queries.push({ tenant: c.sampleId, text: q.question, vector: vectors.get(denseQueryText(q.question))!, relevant: q.evidence, category: q.category, conv });
  });
  for (const m of paraSet) for (const q of m.questions) queries.push({ tenant: 'paraphrase', text: q, vector: vectors.get(denseQueryText(q))!, relevant: [m.id], category: 0, conv: -1 });
  for (const c of MIXED_CONVERSATIONS)
    for (const m of paraSet) for (const q of m.questions) queries.push({ tenant: `mixed-${c}`, text: q, vector: vectors.get(denseQueryText(q))!, relevant: [m.id], category: 0, conv: -3 });
  for (const seed of EXTRA_SEEDS)
    for (const m of paraSet) for (const q of m.questions) queries.push({ tenant: `paraphrase-s${seed}`, text: q, vector: vectors.get(denseQueryText(q))!, relevant: [m.id], category: 0, conv: -2 });

  // Reference means (not evaluated data), saved for production.
  const means: Record<string, Float32Array> = {};
  for (const [name, texts] of Object.entries(refs)) {
    means[name] = meanOf(await Promise.all(texts.map((t) => embedDocument(embedder, t, {}))));
    writeFileSync(path.join(OUT_DIR, `mean-${name}.json`), JSON.stringify({ model: 'use-lite@512 (onnx)', texts: texts.length, source: name, mean: [...means[name]].map((x) => Number(x.toFixed(6))) }));
  }
  // Diagnostic only (evaluated data, never a candidate): the mean of the evaluated memories themselves.
  const locomoMean = meanOf(tenants.filter((t) => !t.name.startsWith('paraphrase') && !t.name.startsWith('mixed')).flatMap((t) => t.mems.map((m) => m.dense)));
  const paraMean = meanOf(tenants.find((t) => t.name === 'paraphrase')!.mems.map((m) => m.dense));
  const M = means.all;

  if (groups.has('diag')) {
    const norm = (v: ArrayLike<number>) => Math.sqrt(dotp(v, v));
    console.log('\n### Mean vectors: norms and cosines between them\n');
    const all = { ...means, 'LoCoMo memories (diag only)': locomoMean, 'paraphrase memories (diag only)': paraMean };
    const names = Object.keys(all);
    console.log(`| mean | texts | norm | ${names.join(' | ')} |`);
    console.log('|---|---|---|' + names.map(() => '---|').join(''));
    for (const a of names) {
      const va = all[a as keyof typeof all];
      console.log(`| ${a} | ${refs[a]?.length ?? '–'} | ${norm(va).toFixed(3)} | ${names.map((b) => (dotp(va, all[b as keyof typeof all]) / (norm(va) * norm(all[b as keyof typeof all]))).toFixed(3)).join(' | ')} |`);
    }
    // Separation of consecutive pairs: LoCoMo vs paraphrase.
    const pairs = (pred: (t: TenantData) => boolean) => tenants.filter(pred).flatMap((t) => t.mems.slice(1).map((_, i) => ({ t, a: i + 1, p: i })));
    const lp = pairs((t) => !t.name.startsWith('paraphrase') && !t.name.startsWith('mixed'));
    const pp = pairs((t) => t.name === 'paraphrase');
    const ppAll = pairs((t) => t.name.startsWith('paraphrase'));
    void ppAll;
    const quant = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return [0.1, 0.25, 0.5, 0.75, 0.9].map((q) => s[Math.floor(q * (s.length - 1))].toFixed(2)).join(' / ');
    };
    console.log('\n### Consecutive pairs: quantiles 10/25/50/75/90 %\n');
    console.log('| measure | LoCoMo (5,872 pairs) | paraphrase (107 pairs) |');
    console.log('|---|---|---|');
    const measures: [string, (t: TenantData, a: number, p: number) => number][] = [
      ['raw cosine', (t, a, p) => rawCos(t, a, p)],
      ['centred cosine (mean: all)', (t, a, p) => centredCos(t.mems[a].dense, t.mems[p].dense, M)],
      ['centred cosine (mean: fixtures)', (t, a, p) => centredCos(t.mems[a].dense, t.mems[p].dense, means.fixtures)],
      ['centred cosine (mean: synthetic)', (t, a, p) => centredCos(t.mems[a].dense, t.mems[p].dense, means.synthetic)],
      ['centred cosine (running mean of record, at a)', (t, a, p) => {
        const m = Float64Array.from(t.prefix[a + 1], (x) => x / (a + 1));
        return centredCos(t.mems[a].dense, t.mems[p].dense, m);
      }],
      ['shared keyword terms', (t, a, p) => sharedTerms(t.mems[a].sparse.indices, t.mems[p].sparse.indices)],
      ['rank of p among a\'s previous 20 (0 = nearest)', (t, a, p) => {
        const c = rawCos(t, a, p);
        let better = 0;
        for (let q = Math.max(0, a - 20); q < a; q++) if (q !== p && rawCos(t, a, q) > c) better++;
        return better;
      }],
    ];
    for (const [name, f] of measures) console.log(`| ${name} | ${quant(lp.map((x) => f(x.t, x.a, x.p)))} | ${quant(pp.map((x) => f(x.t, x.a, x.p)))} |`);
    console.log('\n### Gate pass rates on consecutive pairs (LoCoMo pass % = lending opportunity, paraphrase pass % = harm)\n');
    console.log('| gate | LoCoMo pass % | paraphrase pass % |');
    console.log('|---|---|---|');
    const rate = (g: Gate, ps: typeof lp) => ((100 * ps.filter((x) => g(x.t, x.a, x.p, x.a)).length) / ps.length).toFixed(1);
    const gateList: [string, Gate][] = [
      ...[0.3, 0.35, 0.4, 0.45, 0.5].map((t): [string, Gate] => [`raw ≥ ${t}`, gates.raw(t)]),
      ...[0.05, 0.1, 0.15, 0.2, 0.25, 0.3].map((t): [string, Gate] => [`centred(all) ≥ ${t}`, gates.centred(M, t)]),
      ...[0.1, 0.2, 0.3].map((t): [string, Gate] => [`centred(running) ≥ ${t}`, gates.running(t, null, 0, 0, gates.open())]),
      ...[1, 2].map((s): [string, Gate] => [`shared terms ≥ ${s}`, gates.shared(s)]),
      ...[
        [1, 10],
        [2, 10],
        [3, 10],
        [1, 20],
        [2, 20],
        [3, 20],
        [5, 20],
      ].map(([k, n]): [string, Gate] => [`rank: among ${k} nearest of ${n}`, gates.rank(k, n)]),
    ];
    for (const [name, g] of gateList) console.log(`| ${name} | ${rate(g, lp)} | ${rate(g, pp)} |`);
  }

  if (groups.has('diag')) {
    console.log(`\n### Record coherence: EMA (β = ${EMA_BETA}) of consecutive cosines, share of memories (after 10) with EMA ≥ 0.3 / 0.35 / 0.4 / 0.45, min and max EMA\n`);
    console.log('| record | memories | ≥ 0.3 | ≥ 0.35 | ≥ 0.4 | ≥ 0.45 | min | max | cumulative mean at end |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const t of tenants) {
      const xs = [...t.ema.slice(10)];
      const share = (c: number) => ((100 * xs.filter((x) => x >= c).length) / xs.length).toFixed(0) + ' %';
      console.log(`| ${t.name} | ${t.mems.length} | ${share(0.3)} | ${share(0.35)} | ${share(0.4)} | ${share(0.45)} | ${Math.min(...xs).toFixed(2)} | ${Math.max(...xs).toFixed(2)} | ${(t.consec[t.mems.length - 1] / (t.mems.length - 1)).toFixed(2)} |`);
    }
  }
  if (groups.has('check')) await checkAgainstHybridSearch(tenants, queries);

  const W = { keywordWeights: [0.5, 0.25], denseWeights: [0.5, 0.25] };
  const variants: Variant[] = [];
  const add = (name: string, gate: Gate, w: Partial<Omit<Variant, 'name' | 'gate'>> = {}) => variants.push({ name, gate, ...W, ...w });

  if (groups.has('base')) {
    add('no context', gates.open(), { keywordWeights: [], denseWeights: [] });
    add('before: raw ≥ 0.5 (production until this tuning)', gates.raw(0.5));
    add('no gate', gates.open());
  }
  if (groups.has('raw')) for (const t of [0.35, 0.4, 0.45]) add(`raw ≥ ${t}`, gates.raw(t));
  if (groups.has('centred')) {
    for (const t of [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]) add(`centred(all) ≥ ${t}`, gates.centred(M, t));
  }
  if (groups.has('centred-src')) {
    for (const src of ['fixtures', 'synthetic', 'no-dialogue'] as const) for (const t of [0.1, 0.15, 0.2]) add(`centred(${src}) ≥ ${t}`, gates.centred(means[src], t));
  }
  if (groups.has('running')) {
    for (const t of [0.1, 0.15, 0.2, 0.25]) add(`centred(running, fallback raw 0.5 below 20) ≥ ${t}`, gates.running(t, null, 0, 20, gates.raw(0.5)));
    for (const t of [0.1, 0.15, 0.2]) add(`centred(running + 10 × mean(all) prior) ≥ ${t}`, gates.running(t, M, 10, 0, gates.open()));
  }
  if (groups.has('overlap')) {
    add('shared ≥ 1', gates.shared(1));
    add('shared ≥ 2', gates.shared(2));
    add('raw ≥ 0.5 OR shared ≥ 1', gates.or(gates.raw(0.5), gates.shared(1)));
    add('raw ≥ 0.5 OR shared ≥ 2', gates.or(gates.raw(0.5), gates.shared(2)));
    add('raw ≥ 0.5 OR (raw ≥ 0.35 AND shared ≥ 1)', gates.or(gates.raw(0.5), gates.and(gates.raw(0.35), gates.shared(1))));
    add('centred(all) ≥ 0.2 OR shared ≥ 1', gates.or(gates.centred(M, 0.2), gates.shared(1)));
    add('centred(all) ≥ 0.1 AND shared ≥ 1', gates.and(gates.centred(M, 0.1), gates.shared(1)));
  }
  if (groups.has('rank')) {
    for (const [k, n] of [
      [1, 10],
      [2, 10],
      [1, 20],
      [2, 20],
      [3, 20],
    ])
      add(`rank: ${k} nearest of ${n}`, gates.rank(k, n));
    add('rank 2/20 OR raw ≥ 0.5', gates.or(gates.rank(2, 20), gates.raw(0.5)));
    add('rank 2/20 AND raw ≥ 0.35', gates.and(gates.rank(2, 20), gates.raw(0.35)));
    add('rank 3/20 AND raw ≥ 0.35', gates.and(gates.rank(3, 20), gates.raw(0.35)));
  }
  // Extra groups are added below after the first results (combo, weights, alpha, split, final).
  extraGroups(groups, add, M, means);

  if (variants.length === 0) return;
  console.log(`\n### Variants (weights kw/dense ${W.keywordWeights.join(',')} / ${W.denseWeights.join(',')} unless stated; ✓ = R@10 ≥ 75, R@5 ≥ 65, para r@3 ≥ 62.5)\n`);
  console.log(HEADER);
  console.log(SEP);
  for (const v of variants) {
    const t0 = performance.now();
    const res = await run(v, tenants, queries, alphas);
    for (const a of alphas) console.log(rowOf(res, summarise(res, queries, a), a));
    console.error(`  ${v.name}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  console.error(`took ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** Groups written after looking at the first results (see the report). */
function extraGroups(
  groups: ReadonlySet<string>,
  add: (name: string, gate: Gate, w?: Partial<Omit<Variant, 'name' | 'gate'>>) => void,
  M: Float32Array,
  means: Record<string, Float32Array>,
): void {
  const ramp = (lo: number, hi: number) => (c: number) => Math.min(1, Math.max(0, (c - lo) / (hi - lo)));
  if (groups.has('alpha-fine')) {
    add('no context', gates.open(), { keywordWeights: [], denseWeights: [] });
    add('before: raw ≥ 0.5 (production until this tuning)', gates.raw(0.5));
    for (const t of [0.35, 0.4]) add(`raw ≥ ${t}`, gates.raw(t));
    for (const t of [0.2, 0.25, 0.3]) add(`centred(all) ≥ ${t}`, gates.centred(M, t));
    add('centred(fixtures) ≥ 0.2', gates.centred(means.fixtures, 0.2));
  }
  if (groups.has('soft')) {
    for (const [lo, hi] of [
      [0.3, 0.5],
      [0.35, 0.5],
      [0.35, 0.55],
      [0.4, 0.6],
      [0.25, 0.55],
    ])
      add(`soft: raw ≥ ${lo}, weights × ramp(${lo}..${hi})`, gates.raw(lo), { soft: ramp(lo, hi) });
  }
  if (groups.has('split')) {
    add('dense raw ≥ 0.5, keywords no gate', gates.open(), { denseGate: gates.raw(0.5) });
    add('dense raw ≥ 0.5, keywords raw ≥ 0.35', gates.raw(0.35), { denseGate: gates.raw(0.5) });
    add('dense raw ≥ 0.5, keywords raw ≥ 0.4', gates.raw(0.4), { denseGate: gates.raw(0.5) });
    add('dense raw ≥ 0.35, keywords raw ≥ 0.5', gates.raw(0.5), { denseGate: gates.raw(0.35) });
    add('dense raw ≥ 0.4, keywords raw ≥ 0.5', gates.raw(0.5), { denseGate: gates.raw(0.4) });
    add('dense centred ≥ 0.25, keywords raw ≥ 0.5', gates.raw(0.5), { denseGate: gates.centred(M, 0.25) });
    add('dense raw ≥ 0.5, keywords raw ≥ 0.5 OR shared ≥ 2', gates.or(gates.raw(0.5), gates.shared(2)), { denseGate: gates.raw(0.5) });
  }
  if (groups.has('self')) {
    add('raw ≥ 0.5, each vs self', gates.raw(0.5), { againstSelf: true });
    add('raw ≥ 0.4, each vs self', gates.raw(0.4), { againstSelf: true });
    add('centred(all) ≥ 0.25, each vs self', gates.centred(M, 0.25), { againstSelf: true });
  }
  if (groups.has('weights')) {
    const ws: [string, Partial<Variant>][] = [
      ['0.6,0.3 / 0.6,0.3', { keywordWeights: [0.6, 0.3], denseWeights: [0.6, 0.3] }],
      ['0.5,0.25,0.125 / same', { keywordWeights: [0.5, 0.25, 0.125], denseWeights: [0.5, 0.25, 0.125] }],
      ['0.5,0.25 / 0.3,0.15', { denseWeights: [0.3, 0.15] }],
      ['0.5,0.25 / 0.25,0.125', { denseWeights: [0.25, 0.125] }],
      ['0.75,0.375 / 0.5,0.25', { keywordWeights: [0.75, 0.375] }],
      ['0.3,0.15 / 0.5,0.25', { keywordWeights: [0.3, 0.15] }],
      ['0.5 / 0.5 (one neighbour)', { keywordWeights: [0.5], denseWeights: [0.5] }],
    ];
    for (const [gname, gate] of [
      ['raw ≥ 0.5', gates.raw(0.5)],
      ['raw ≥ 0.4', gates.raw(0.4)],
      ['centred(all) ≥ 0.25', gates.centred(M, 0.25)],
    ] as const)
      for (const [wname, w] of ws) add(`${gname}; weights kw ${wname.split(' / ')[0]} dense ${wname.split(' / ')[1]}`, gate, w);
  }
  if (groups.has('coherence')) {
    for (const c of [0.3, 0.4]) {
      add(`coherence ≥ ${c} (≥ 10 pairs) ? no gate : raw ≥ 0.5`, gates.coherence(c, 10, gates.open(), gates.raw(0.5)));
      add(`coherence ≥ ${c} (≥ 10 pairs) ? raw ≥ 0.35 : raw ≥ 0.5`, gates.coherence(c, 10, gates.raw(0.35), gates.raw(0.5)));
      add(`coherence ≥ ${c} (≥ 10 pairs) ? centred ≥ 0.2 : raw ≥ 0.5`, gates.coherence(c, 10, gates.centred(M, 0.2), gates.raw(0.5)));
    }
  }
  if (groups.has('final')) {
    add('before: raw ≥ 0.5 (production until this tuning)', gates.raw(0.5));
    add('centred(all) ≥ 0.2; dense 0.25,0.125', gates.centred(M, 0.2), { denseWeights: [0.25, 0.125] });
    add('centred(all) ≥ 0.25; dense 0.25,0.125', gates.centred(M, 0.25), { denseWeights: [0.25, 0.125] });
    add('coherence(mean) ≥ 0.4 ? no gate : raw ≥ 0.5', gates.coherence(0.4, 10, gates.open(), gates.raw(0.5)));
    add('coherence(mean) ≥ 0.4 ? centred(all) ≥ 0.2 : raw ≥ 0.5', gates.coherence(0.4, 10, gates.centred(M, 0.2), gates.raw(0.5)));
    add('coherence(EMA) ≥ 0.4 ? no gate : raw ≥ 0.5', gates.coherenceEma(0.4, 10, gates.open(), gates.raw(0.5)));
    add('coherence(EMA) ≥ 0.4 ? centred(all) ≥ 0.2 : raw ≥ 0.5', gates.coherenceEma(0.4, 10, gates.centred(M, 0.2), gates.raw(0.5)));
    add('coherence(EMA) ≥ 0.35 ? centred(all) ≥ 0.2 : raw ≥ 0.5', gates.coherenceEma(0.35, 10, gates.centred(M, 0.2), gates.raw(0.5)));
    add('coherence(EMA) ≥ 0.4 ? centred(all) ≥ 0.2 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.4, 10, gates.centred(M, 0.2), gates.raw(0.5)), { denseWeights: [0.25, 0.125] });
    add('coherence(EMA) ≥ 0.4 ? raw ≥ 0.35 : raw ≥ 0.5', gates.coherenceEma(0.4, 10, gates.raw(0.35), gates.raw(0.5)));
  }
  if (groups.has('final2')) {
    const N = means['no-dialogue'];
    add('no context', gates.open(), { keywordWeights: [], denseWeights: [] });
    add('before: raw ≥ 0.5 (production until this tuning)', gates.raw(0.5));
    add('centred(no-dialogue) ≥ 0.2; dense 0.25,0.125', gates.centred(N, 0.2), { denseWeights: [0.25, 0.125] });
    add('EMA ≥ 0.4 ? no gate : raw ≥ 0.5', gates.coherenceEma(0.4, 10, gates.open(), gates.raw(0.5)));
    add('EMA ≥ 0.4 ? no gate : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.4, 10, gates.open(), gates.raw(0.5)), { denseWeights: [0.25, 0.125] });
    add('EMA ≥ 0.4 ? centred(no-dialogue) ≥ 0.2 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.4, 10, gates.centred(N, 0.2), gates.raw(0.5)), { denseWeights: [0.25, 0.125] });
    add('EMA ≥ 0.4 ? centred(no-dialogue) ≥ 0.15 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.4, 10, gates.centred(N, 0.15), gates.raw(0.5)), { denseWeights: [0.25, 0.125] });
    add('EMA ≥ 0.4 ? centred(no-dialogue) ≥ 0.25 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.4, 10, gates.centred(N, 0.25), gates.raw(0.5)), { denseWeights: [0.25, 0.125] });
    add('EMA ≥ 0.4 ? centred(no-dialogue) ≥ 0.2 : raw ≥ 0.5; dense 0.3,0.15', gates.coherenceEma(0.4, 10, gates.centred(N, 0.2), gates.raw(0.5)), { denseWeights: [0.3, 0.15] });
    add('EMA ≥ 0.3 ? centred(no-dialogue) ≥ 0.2 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.3, 10, gates.centred(N, 0.2), gates.raw(0.5)), { denseWeights: [0.25, 0.125] });
    add('EMA ≥ 0.45 ? centred(no-dialogue) ≥ 0.2 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.45, 10, gates.centred(N, 0.2), gates.raw(0.5)), { denseWeights: [0.25, 0.125] });
    add('EMA ≥ 0.4 ? raw ≥ 0.35 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.4, 10, gates.raw(0.35), gates.raw(0.5)), { denseWeights: [0.25, 0.125] });
  }
  if (groups.has('final3')) {
    const N = means['no-dialogue'];
    const dense = { denseWeights: [0.25, 0.125] };
    add('no context', gates.open(), { keywordWeights: [], denseWeights: [] });
    add('before: raw ≥ 0.5 (production until this tuning)', gates.raw(0.5));
    add('no gate', gates.open());
    add('centred(no-dialogue) ≥ 0.2; dense 0.25,0.125', gates.centred(N, 0.2), dense);
    add('EMA ≥ 0.4 ? no gate : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.4, 10, gates.open(), gates.raw(0.5)), dense);
    add('RECOMMENDED EMA ≥ 0.4 ? centred(no-dialogue) ≥ 0.25 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceEma(0.4, 10, gates.centred(N, 0.25), gates.raw(0.5)), dense);
    add('window20 ≥ 0.4 ? centred(no-dialogue) ≥ 0.25 : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceWindow(0.4, 20, gates.centred(N, 0.25), gates.raw(0.5)), dense);
    add('window20 ≥ 0.4 ? no gate : raw ≥ 0.5; dense 0.25,0.125', gates.coherenceWindow(0.4, 20, gates.open(), gates.raw(0.5)), dense);
    add('EMA ≥ 0.4 ? centred(no-dialogue) ≥ 0.25 : raw ≥ 0.5 (weights unchanged)', gates.coherenceEma(0.4, 10, gates.centred(N, 0.25), gates.raw(0.5)));
  }
  if (groups.has('centred-half')) {
    for (const dw of [
      [0.25, 0.125],
      [0.3, 0.15],
    ]) {
      for (const t of [0.2, 0.25, 0.3]) add(`centred(all) ≥ ${t}; dense ${dw.join(',')}`, gates.centred(M, t), { denseWeights: dw });
      for (const t of [0.15, 0.2, 0.25]) add(`centred(fixtures) ≥ ${t}; dense ${dw.join(',')}`, gates.centred(means.fixtures, t), { denseWeights: dw });
      for (const t of [0.35, 0.4]) add(`raw ≥ ${t}; dense ${dw.join(',')}`, gates.raw(t), { denseWeights: dw });
      add(`soft raw ≥ 0.3 × ramp(0.3..0.5); dense ${dw.join(',')}`, gates.raw(0.3), { denseWeights: dw, soft: ramp(0.3, 0.5) });
    }
  }
  if (groups.has('stateless')) {
    for (const t of [0.2, 0.25, 0.3]) add(`centred(no-dialogue) ≥ ${t}`, gates.centred(means['no-dialogue'], t));
    for (const t of [0.2, 0.25, 0.3]) add(`centred(no-dialogue) ≥ ${t}; dense 0.25,0.125`, gates.centred(means['no-dialogue'], t), { denseWeights: [0.25, 0.125] });
  }
  if (groups.has('centred-fine')) {
    for (const t of [0.22, 0.25, 0.28, 0.3, 0.32, 0.35]) add(`centred(all) ≥ ${t}`, gates.centred(M, t));
    for (const t of [0.15, 0.18, 0.2, 0.22, 0.25]) add(`centred(fixtures) ≥ ${t}`, gates.centred(means.fixtures, t));
    for (const t of [0.25, 0.3, 0.35]) add(`centred(synthetic) ≥ ${t}`, gates.centred(means.synthetic, t));
    for (const t of [0.36, 0.38, 0.4, 0.42]) add(`raw ≥ ${t}`, gates.raw(t));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * Static (model2vec-style) embedder distilled from USE-lite against USE-lite itself on onnxruntime, offline,
 * through the service's own recall code: `embedDocument` for memories, `denseQueryText` for queries,
 * `encodeKeywords`, `contextualEntry` with `DEFAULT_CONTEXT` in write order, `EmbeddedVectorIndex` and
 * `hybridSearch` (TM2C2 α = 0.8, limit 25). No HTTP, no database: the index entries are those the
 * ContextualIndexer writes after each remember when memories are written one at a time within minutes.
 *
 * Prints:
 * 1. LoCoMo (bench/data/locomo10.json, one tenant per conversation, one memory per turn, as tune.ts):
 *    R@5/10/25 over all 10 conversations (1,986 questions) and over the first 2 (304 questions), hybrid
 *    with and without context; for the onnx baseline and the default static configuration also dense alone,
 *    the context without its cosine gate, and BM25 alone.
 * 2. The paraphrase set (services/memory/src/recall/fixtures/paraphrase-set.json; 108 memories written in
 *    the order `seededShuffle(set, 20261125)` into one tenant, as bench/paraphrase.bench.ts; 120 questions,
 *    limit 5): recall@1/3/5, hybrid with and without context, and dense alone without context.
 * 3. Query embedding time, µs p50/p90 over the 1,986 LoCoMo queries (`denseQueryText`), one call at a time.
 * 4. How often the context gate (cosine ≥ 0.5 with the memory after it) lets a predecessor lend.
 *
 * Needs the table: `nice -n 10 node -r @swc-node/register bench/locomo-offline/distil-static.ts` first.
 * Run: `nice -n 10 node -r @swc-node/register bench/locomo-offline/static-eval.ts` (about 2.5 min on 2 shared
 * cores; `STATIC_EVAL=quick` runs only the baseline and 3 static variants, the default among them). onnx vectors are cached in
 * tmp/static-embedder/onnx-vectors.bin (keyed by text).
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
  DEFAULT_CONTEXT,
  denseQueryText,
  EmbeddedVectorIndex,
  type Embedder,
  embedDocument,
  encodeKeywords,
  encodeQuery,
  ensureUseLiteOnnxModel,
  hybridSearch,
  loadOnnxUseLiteRunner,
  NO_CONTEXT,
  UseLiteEmbedder,
} from '@agent-memory/memory';
import { loadParaphraseSet, seededShuffle } from '@agent-memory/test-support';
import { MODEL_CACHE_DIR, STATIC_DIR, STATIC_F32, STATIC_INT8 } from './distil-static';
import { loadLocomo, type Conversation } from './locomo-data';
import { type CommonComponent, describeStaticOptions, StaticEmbedder, readStaticTable, type StaticTable, type StaticWeighting } from './static/static-embedder';

const KS = [5, 10, 25] as const;
const LIMIT = 25;
const PARAPHRASE_SEED = 20_261_125;
const WORK_DIR = path.join(STATIC_DIR, 'index');
const ONNX_CACHE = path.join(STATIC_DIR, 'onnx-vectors.bin');
/** Conversations in the "first 2" columns (the figure bench/locomo.bench.ts reports over HTTP). */
const FIRST = 2;
/** The service's context with the gate open: every predecessor within the gap lends. */
const UNGATED_CONTEXT: ContextOptions = { ...DEFAULT_CONTEXT, minSimilarity: -1 };

// ---------------------------------------------------------------- embedders

/** An Embedder answering from a precomputed text → vector map (the onnx baseline's vectors, computed once). */
class LookupEmbedder implements Embedder {
  constructor(
    readonly id: string,
    readonly dimension: number,
    private readonly vectors: ReadonlyMap<string, Float32Array>,
  ) {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const v = this.vectors.get(text);
      if (!v) throw new Error(`no precomputed vector for ${JSON.stringify(text.slice(0, 60))}`);
      return v.slice();
    });
  }
}

const keyOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** The production embedder (UseLiteEmbedder on the onnx runner) on every text, through a file cache keyed by text. */
async function onnxVectors(texts: readonly string[], embedder: UseLiteEmbedder): Promise<Map<string, Float32Array>> {
  const cached = new Map<string, Float32Array>();
  if (existsSync(ONNX_CACHE)) {
    const data = readFileSync(ONNX_CACHE);
    const newline = data.indexOf(10);
    const header = JSON.parse(data.subarray(0, newline).toString('utf8')) as { model: string; keys: string[] };
    if (header.model === 'use-lite@512/onnx') {
      const floats = new Float32Array(header.keys.length * 512);
      new Uint8Array(floats.buffer).set(data.subarray(newline + 1, newline + 1 + floats.byteLength));
      header.keys.forEach((key, i) => cached.set(key, floats.subarray(i * 512, (i + 1) * 512)));
    }
  }
  const missing = [...new Set(texts)].filter((text) => !cached.has(keyOf(text)));
  if (missing.length > 0) {
    const started = performance.now();
    for (let i = 0; i < missing.length; i += 256) {
      const chunk = missing.slice(i, i + 256);
      const vectors = await embedder.embed(chunk);
      chunk.forEach((text, j) => cached.set(keyOf(text), vectors[j]));
    }
    console.log(`onnx: embedded ${missing.length} texts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const keys = [...cached.keys()];
    const floats = new Float32Array(keys.length * 512);
    keys.forEach((key, i) => floats.set(cached.get(key)!, i * 512));
    mkdirSync(STATIC_DIR, { recursive: true });
    writeFileSync(`${ONNX_CACHE}.tmp`, Buffer.concat([Buffer.from(JSON.stringify({ model: 'use-lite@512/onnx', keys }) + '\n'), Buffer.from(floats.buffer)]));
    renameSync(`${ONNX_CACHE}.tmp`, ONNX_CACHE);
  }
  return new Map(texts.map((text) => [text, cached.get(keyOf(text))!]));
}

// ---------------------------------------------------------------- data

interface Memory {
  id: string;
  content: string;
}
interface Query {
  tenant: string;
  text: string;
  /** Ids that count as hits (LoCoMo: evidence turns; paraphrase: the one memory). */
  relevant: string[];
}
interface Corpus {
  /** Tenant → memories in write order. */
  tenants: Map<string, Memory[]>;
  queries: Query[];
}

function locomoCorpus(conversations: readonly Conversation[]): Corpus {
  return {
    tenants: new Map(conversations.map((c) => [c.sampleId, c.turns.map((t) => ({ id: t.diaId, content: t.content }))])),
    queries: conversations.flatMap((c) => c.questions.map((q) => ({ tenant: c.sampleId, text: q.question, relevant: q.evidence }))),
  };
}

function paraphraseCorpus(): Corpus {
  const set = loadParaphraseSet();
  return {
    tenants: new Map([['paraphrase', seededShuffle(set, PARAPHRASE_SEED).map((m) => ({ id: m.id, content: m.content }))]]),
    queries: set.flatMap((m) => m.questions.map((q) => ({ tenant: 'paraphrase', text: q, relevant: [m.id] }))),
  };
}

// ---------------------------------------------------------------- index and search

interface Built {
  index: EmbeddedVectorIndex;
  directory: string;
  /** Per tenant: how many memories had 0, 1, 2 lenders. */
  lenders: number[];
}

/**
 * Index entries as the service writes them: own material = embedDocument + encodeKeywords; entry =
 * contextualEntry(own, the two previous memories' own material, newest first) — memories one second apart.
 */
async function buildIndex(name: string, embedder: Embedder, corpus: Corpus, context: ContextOptions): Promise<Built> {
  const directory = path.join(WORK_DIR, name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const index = new EmbeddedVectorIndex({ directory });
  await index.open({ embedderId: embedder.id, dimension: embedder.dimension });
  const lenders = [0, 0, 0];
  const epoch = Date.UTC(2026, 0, 1);
  for (const [tenant, memories] of corpus.tenants) {
    const sources: ContextSource[] = [];
    for (const [i, m] of memories.entries()) {
      const dense = await embedDocument(embedder, m.content, { scope: tenant });
      sources.push({ recordId: tenant, createdAt: new Date(epoch + i * 1000), dense, sparse: encodeKeywords(m.content) });
    }
    const points = memories.map((m, i) => {
      const predecessors = sources.slice(Math.max(0, i - 2), i).reverse();
      lenders[contextOf(sources[i], predecessors, context).length]++;
      const { dense, sparse } = contextualEntry(sources[i], predecessors, context);
      return { id: m.id, tenant, dense, sparse, payload: { type: 'episode' as const } };
    });
    await index.upsert(points);
  }
  return { index, directory, lenders };
}

interface Scores {
  /** Recall@k in percent, by k. */
  all: Record<number, number>;
  /** Same over the queries of the first {@link FIRST} tenants (LoCoMo only). */
  first: Record<number, number>;
}

/** Recall@k: share of each query's relevant ids among its top k, averaged (a query without relevant ids counts 0). */
async function evaluate(
  built: Built,
  embedder: Embedder,
  queries: readonly Query[],
  ks: readonly number[],
  firstTenants: ReadonlySet<string>,
  mode: 'hybrid' | 'dense' | 'bm25' = 'hybrid',
): Promise<Scores> {
  const all: Record<number, number> = Object.fromEntries(ks.map((k) => [k, 0]));
  const first: Record<number, number> = Object.fromEntries(ks.map((k) => [k, 0]));
  let firstCount = 0;
  const limit = Math.max(...ks);
  for (const q of queries) {
    const [vector] = await embedder.embed([denseQueryText(q.text)], { scope: q.tenant });
    const search = { tenant: q.tenant, limit };
    const hits =
      mode === 'dense'
        ? await built.index.searchDense(vector, search)
        : mode === 'bm25'
          ? await built.index.searchSparse(encodeQuery(q.text), search)
          : await hybridSearch(built.index, { tenant: q.tenant, vector, query: q.text, limit });
    const isFirst = firstTenants.has(q.tenant);
    if (isFirst) firstCount++;
    for (const k of ks) {
      const top = new Set(hits.slice(0, k).map((h) => h.id));
      const share = q.relevant.length === 0 ? 0 : q.relevant.filter((id) => top.has(id)).length / q.relevant.length;
      all[k] += share;
      if (isFirst) first[k] += share;
    }
  }
  for (const k of ks) {
    all[k] = (100 * all[k]) / queries.length;
    first[k] = firstCount === 0 ? NaN : (100 * first[k]) / firstCount;
  }
  return { all, first };
}

async function dispose(built: Built): Promise<void> {
  await built.index.close();
  rmSync(built.directory, { recursive: true, force: true });
}

// ---------------------------------------------------------------- diagnostics

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Cosines of consecutive memories' own vectors in write order (what the context gate compares). */
async function consecutiveCosines(embedder: Embedder, corpus: Corpus): Promise<number[]> {
  const out: number[] = [];
  for (const [tenant, memories] of corpus.tenants) {
    const vectors = await Promise.all(memories.map((m) => embedDocument(embedder, m.content, { scope: tenant })));
    for (let i = 1; i < vectors.length; i++) {
      let dot = 0;
      for (let d = 0; d < vectors[i].length; d++) dot += vectors[i][d] * vectors[i - 1][d];
      out.push(dot);
    }
  }
  return out.sort((a, b) => a - b);
}

// ---------------------------------------------------------------- main

interface StaticVariant {
  weighting: StaticWeighting;
  commonComponent: CommonComponent;
}

function variants(quick: boolean): StaticVariant[] {
  const weightings: StaticWeighting[] = [
    { kind: 'uniform' },
    { kind: 'sif', a: 1e-2 },
    { kind: 'sif', a: 1e-3 },
    { kind: 'sif', a: 1e-4 },
    { kind: 'sif-zipf', a: 1e-4 },
    { kind: 'sif-zipf', a: 1e-3 },
    { kind: 'log-rank' },
  ];
  if (quick) {
    return [
      { weighting: { kind: 'sif', a: 1e-3 }, commonComponent: 'none' },
      { weighting: { kind: 'sif-zipf', a: 1e-4 }, commonComponent: 'none' },
      { weighting: { kind: 'sif', a: 1e-3 }, commonComponent: 'first-pc' },
    ];
  }
  const out: StaticVariant[] = [];
  for (const commonComponent of ['none', 'mean', 'first-pc'] as const) for (const weighting of weightings) out.push({ weighting, commonComponent });
  return out;
}

const fmt = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(1));

async function main(): Promise<void> {
  const quick = process.env.STATIC_EVAL === 'quick';
  const started = performance.now();
  const conversations = loadLocomo();
  const locomo = locomoCorpus(conversations);
  const paraphrase = paraphraseCorpus();
  const firstTenants = new Set(conversations.slice(0, FIRST).map((c) => c.sampleId));
  const none = new Set<string>();

  // The production embedder: UseLiteEmbedder on the onnx runner (one thread, batches of 64).
  const modelFile = await ensureUseLiteOnnxModel(MODEL_CACHE_DIR);
  const production = new UseLiteEmbedder({ cacheSize: 0, loadRunner: () => loadOnnxUseLiteRunner({ modelPath: modelFile.path, modelBytes: modelFile.bytes }) });
  const allTexts = [locomo, paraphrase].flatMap((c) => [
    ...[...c.tenants.values()].flat().flatMap((m) => chunkForEmbedding(m.content)),
    ...c.queries.map((q) => denseQueryText(q.text)),
  ]);
  const onnx = new LookupEmbedder('use-lite@512', 512, await onnxVectors(allTexts, production));

  const [tableInt8, tableF32]: StaticTable[] = await Promise.all([readStaticTable(STATIC_INT8), readStaticTable(STATIC_F32)]);

  const locomoRows: string[] = [];
  const paraRows: string[] = [];
  const gateRows: string[] = [];
  const row = (label: string, s: Scores) => `| ${label} | ${fmt(s.all[5])} | ${fmt(s.all[10])} | ${fmt(s.all[25])} | ${fmt(s.first[5])} | ${fmt(s.first[10])} | ${fmt(s.first[25])} |`;
  const paraRow = (label: string, s: Scores) => `| ${label} | ${fmt(s.all[1])} | ${fmt(s.all[3])} | ${fmt(s.all[5])} |`;
  /** Hybrid with and without context on both sets; with `extra`, also dense alone and BM25 alone (own entries) and context without gate. */
  const run = async (name: string, embedder: Embedder, extra: boolean) => {
    const t0 = performance.now();
    const ctx = await buildIndex(`${name}-locomo-ctx`, embedder, locomo, DEFAULT_CONTEXT);
    const withContext = await evaluate(ctx, embedder, locomo.queries, KS, firstTenants);
    const lent = ctx.lenders;
    await dispose(ctx);
    const own = await buildIndex(`${name}-locomo-own`, embedder, locomo, NO_CONTEXT);
    const noContext = await evaluate(own, embedder, locomo.queries, KS, firstTenants);
    locomoRows.push(row(`${name}: hybrid + context`, withContext), row(`${name}: hybrid, no context`, noContext));
    if (extra) {
      locomoRows.push(row(`${name}: dense alone, no context`, await evaluate(own, embedder, locomo.queries, KS, firstTenants, 'dense')));
      if (embedder === onnx) locomoRows.push(row('BM25 alone, no context (any embedder)', await evaluate(own, embedder, locomo.queries, KS, firstTenants, 'bm25')));
    }
    await dispose(own);
    if (extra) {
      const ungated = await buildIndex(`${name}-locomo-ungated`, embedder, locomo, UNGATED_CONTEXT);
      locomoRows.push(row(`${name}: hybrid + context without gate (minSimilarity −1)`, await evaluate(ungated, embedder, locomo.queries, KS, firstTenants)));
      await dispose(ungated);
    }

    const pc = await buildIndex(`${name}-para-ctx`, embedder, paraphrase, DEFAULT_CONTEXT);
    const pCtx = await evaluate(pc, embedder, paraphrase.queries, [1, 3, 5], none);
    const pLent = pc.lenders;
    await dispose(pc);
    const po = await buildIndex(`${name}-para-own`, embedder, paraphrase, NO_CONTEXT);
    const pOwn = await evaluate(po, embedder, paraphrase.queries, [1, 3, 5], none);
    paraRows.push(paraRow(`${name}: hybrid + context`, pCtx), paraRow(`${name}: hybrid, no context`, pOwn));
    if (extra) {
      paraRows.push(paraRow(`${name}: dense alone, no context`, await evaluate(po, embedder, paraphrase.queries, [1, 3, 5], none, 'dense')));
      if (embedder === onnx) paraRows.push(paraRow('BM25 alone, no context (any embedder)', await evaluate(po, embedder, paraphrase.queries, [1, 3, 5], none, 'bm25')));
      const pu = await buildIndex(`${name}-para-ungated`, embedder, paraphrase, UNGATED_CONTEXT);
      paraRows.push(paraRow(`${name}: hybrid + context without gate`, await evaluate(pu, embedder, paraphrase.queries, [1, 3, 5], none)));
      await dispose(pu);
    } else {
      paraRows.push(paraRow(`${name}: dense alone, no context`, await evaluate(po, embedder, paraphrase.queries, [1, 3, 5], none, 'dense')));
    }
    await dispose(po);

    const lc = await consecutiveCosines(embedder, locomo);
    const pcos = await consecutiveCosines(embedder, paraphrase);
    const share = (xs: number[]) => (100 * xs.filter((x) => x >= DEFAULT_CONTEXT.minSimilarity).length) / xs.length;
    gateRows.push(
      `| ${name} | ${percentile(lc, 0.5).toFixed(2)} | ${share(lc).toFixed(0)} % | ${lent.join(' / ')} | ${percentile(pcos, 0.5).toFixed(2)} | ${share(pcos).toFixed(0)} % | ${pLent.join(' / ')} |`,
    );
    console.log(
      `  ${name}: LoCoMo R@10 ${fmt(withContext.all[10])} / no context ${fmt(noContext.all[10])} (first 2: ${fmt(withContext.first[10])} / ${fmt(noContext.first[10])}), ` +
        `paraphrase r@3 ${fmt(pCtx.all[3])} / no context ${fmt(pOwn.all[3])}  [${((performance.now() - t0) / 1000).toFixed(0)} s]`,
    );
  };

  await run('onnx USE-lite (production)', onnx, true);
  let best: { name: string; embedder: StaticEmbedder } | undefined;
  for (const v of variants(quick)) {
    const embedder = await StaticEmbedder.load({ table: tableInt8, weighting: v.weighting, commonComponent: v.commonComponent });
    const name = `static ${describeStaticOptions(v.weighting, v.commonComponent)}`;
    const isDefault = embedder.id === 'use-lite-static@512';
    await run(name, embedder, isDefault);
    if (isDefault) best = { name, embedder };
  }
  // The default configuration on the float32 table: does int8 quantisation change anything?
  if (best) {
    const f32 = await StaticEmbedder.load({ table: tableF32 });
    await run(`${best.name} (float32 table)`, f32, false);
  }

  console.log(`\n### LoCoMo: recall@k %, limit ${LIMIT}, hybridSearch (TM2C2 α = 0.8), contextual entries with DEFAULT_CONTEXT unless stated\n`);
  console.log(`| Variant: setting | all 10: R@5 | R@10 | R@25 | first ${FIRST}: R@5 | R@10 | R@25 |`);
  console.log('|---|---|---|---|---|---|---|');
  for (const r of locomoRows) console.log(r);
  console.log(`\n### Paraphrase set: recall@k %, 108 memories (seed ${PARAPHRASE_SEED}), 120 questions, hybrid\n`);
  console.log('| Variant: setting | r@1 | r@3 | r@5 |');
  console.log('|---|---|---|---|');
  for (const r of paraRows) console.log(r);
  console.log(`\n### Context gate (cosine ≥ ${DEFAULT_CONTEXT.minSimilarity} of consecutive memories' own vectors)\n`);
  console.log('| Variant | LoCoMo median cos | ≥ gate | entries with 0/1/2 lenders | paraphrase median cos | ≥ gate | 0/1/2 lenders |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of gateRows) console.log(r);

  // ---- query embedding time
  const queries = locomo.queries.map((q) => denseQueryText(q.text));
  const timeEach = async (embed: (text: string) => unknown, texts: readonly string[]) => {
    for (const t of texts.slice(0, 50)) await embed(t); // warm-up
    const us: number[] = [];
    for (const t of texts) {
      const start = process.hrtime.bigint();
      await embed(t);
      us.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    return us.sort((a, b) => a - b);
  };
  const staticDefault = await StaticEmbedder.load({ table: tableInt8 });
  const sSync = await timeEach((t) => staticDefault.embedOne(t), queries);
  const sAsync = await timeEach((t) => staticDefault.embed([t]), queries);
  const oEmb = await timeEach((t) => production.embed([t]), queries);
  const runner = await loadOnnxUseLiteRunner({ modelPath: modelFile.path, modelBytes: modelFile.bytes });
  const oRun = await timeEach((t) => runner.run([t]), queries);
  runner.dispose();
  await production.close();
  console.log(`\n### Query embedding time, µs, ${queries.length} LoCoMo queries (denseQueryText), one at a time, after 50 warm-up calls\n`);
  console.log('| Embedder | p50 µs | p90 µs | p99 µs |');
  console.log('|---|---|---|---|');
  for (const [name, xs] of [
    [`static ${staticDefault.configuration}: embedOne (sync)`, sSync],
    [`static ${staticDefault.configuration}: embed([q]) (the Embedder port)`, sAsync],
    ['onnx: UseLiteEmbedder.embed([q]) (production path, no cache)', oEmb],
    ['onnx: runner.run([q]) (model call alone)', oRun],
  ] as const) {
    console.log(`| ${name} | ${percentile(xs, 0.5).toFixed(1)} | ${percentile(xs, 0.9).toFixed(1)} | ${percentile(xs, 0.99).toFixed(1)} |`);
  }
  rmSync(WORK_DIR, { recursive: true, force: true });
  console.log(`\ntook ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * LoCoMo dialogue-turn retrieval, offline: Recall@5/10/25 of BM25, dense (USE lite) and hybrid fusions,
 * through the memory service's own `EmbeddedVectorIndex`, keyword encoder, query rewrite and
 * `hybridSearch`, so the figures are those of the code that serves recalls.
 *
 * Run from the repository root: `node -r @swc-node/register bench/locomo-offline/tune.ts`
 * First run embeds ~9,900 texts (about 5 minutes on 2 cores); they are then cached in
 * tmp/locomo-embeddings.bin (keyed by text) and a run takes well under a minute.
 *
 * Task (as bench/data/README.md): one tenant per conversation, one point per dialogue turn, id =
 * its dia_id, content `"<speaker>: <text>"` + `" [image: <blip_caption>]"` when the turn shares an
 * image; each of the 1,986 questions is a recall in its conversation. Recall@k = share of the question's
 * evidence turns among the top k, averaged over all 1,986 questions. Evidence strings are parsed
 * leniently (`parseEvidence`); the 4 questions left without any evidence id count as 0 (we cannot tell
 * a retriever's success on them), and the 2 evidence ids that name no turn count as misses. So the
 * figures are slightly conservative (at most 0.2 points). Per-category columns use the same rule.
 *
 * Each variant is one fixed configuration for all questions: nothing looks at answers or evidence.
 */
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type Bm25Parameters,
  type ConvexFusionOptions,
  createKeywordEncoder,
  DEFAULT_BM25,
  DEFAULT_KEYWORD_OPTIONS,
  denseQueryText,
  EmbeddedVectorIndex,
  convexScoreFusion,
  HYBRID_FUSION,
  type HybridCandidates,
  type HybridHit,
  hybridSearch,
  type KeywordEncoder,
  SNOWBALL_STOP_WORDS,
} from '@agent-memory/memory';
import { USE_LITE_DIMENSION, USE_LITE_ID, embedWithCache } from './embeddings-cache';
import { Bm25Variant } from './bm25-variants';
import { expandQuery, FEEDBACK_DEFAULTS, reciprocalRankFusion } from './experiments';
import { loadLocomo, type Conversation } from './locomo-data';

// A CommonJS package without type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stopwordPackage = require('stopword') as { eng: readonly string[] };
/** The `stopword` package's English list (108 words), compared with the service's Snowball list. */
const STOPWORD_PACKAGE_ENGLISH: readonly string[] = stopwordPackage.eng;
/** The textbook BM25 parameters (Robertson & Zaragoza 2009; Lucene and Elasticsearch defaults); the service uses DEFAULT_BM25. */
const TEXTBOOK_BM25: Bm25Parameters = { k1: 1.2, b: 0.75 };
const KS = [5, 10, 25] as const;
const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };
const WORK_DIR = path.resolve(__dirname, '../../tmp/locomo-bench-index');
const DESCRIPTOR = { embedderId: USE_LITE_ID, dimension: USE_LITE_DIMENSION };
/** Results per recall: the largest k measured. */
const LIMIT = 25;

interface QuestionRef {
  tenant: string;
  turns: Map<string, string>;
  question: string;
  category: number;
  evidence: string[];
  /** Embedding of the question as asked. */
  rawVector: Float32Array;
  /** Embedding of `denseQueryText(question)`. */
  vector: Float32Array;
}

/** How `candidates` departs from the service's hybridSearch: keyword hits without exact cosines, RM3, other BM25 parameters. */
interface Variant {
  exactCosines?: boolean;
  rm3?: boolean;
  bm25?: Bm25Variant;
}

interface Row {
  name: string;
  recall: Record<number, number>;
  byCategory: Record<number, Record<number, number>>;
  p50Ms?: number;
}

/** Recall@k of ranked turn ids per question, overall and per category. */
function score(name: string, questions: readonly QuestionRef[], rankings: readonly string[][], latencies?: number[]): Row {
  const recall: Record<number, number> = Object.fromEntries(KS.map((k) => [k, 0]));
  const byCategory: Record<number, Record<number, number>> = {};
  const counts: Record<number, number> = {};
  questions.forEach((q, i) => {
    counts[q.category] = (counts[q.category] ?? 0) + 1;
    byCategory[q.category] ??= Object.fromEntries(KS.map((k) => [k, 0]));
    for (const k of KS) {
      const top = new Set(rankings[i].slice(0, k));
      const share = q.evidence.length === 0 ? 0 : q.evidence.filter((id) => top.has(id)).length / q.evidence.length;
      recall[k] += share;
      byCategory[q.category][k] += share;
    }
  });
  for (const k of KS) recall[k] = (100 * recall[k]) / questions.length;
  for (const c of Object.keys(byCategory).map(Number)) for (const k of KS) byCategory[c][k] = (100 * byCategory[c][k]) / counts[c];
  const p50Ms = latencies ? [...latencies].sort((a, b) => a - b)[Math.floor(latencies.length / 2)] : undefined;
  return { name, recall, byCategory, p50Ms };
}

function printTable(title: string, rows: readonly Row[]): void {
  const categories = [1, 2, 3, 4, 5];
  console.log(`\n### ${title}\n`);
  console.log(`| Variant | R@5 | R@10 | R@25 | ${categories.map((c) => `${CATEGORY_NAMES[c]} R@10`).join(' | ')} | p50 ms |`);
  console.log(`|---|---|---|---|${categories.map(() => '---|').join('')}---|`);
  for (const row of rows) {
    const cats = categories.map((c) => row.byCategory[c][10].toFixed(1)).join(' | ');
    const latency = row.p50Ms === undefined ? '' : row.p50Ms.toFixed(2);
    console.log(`| ${row.name} | ${row.recall[5].toFixed(1)} | ${row.recall[10].toFixed(1)} | ${row.recall[25].toFixed(1)} | ${cats} | ${latency} |`);
  }
}

const dirOf = (name: string) => path.join(WORK_DIR, name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());

/** Builds an index of all turns with the given encoder in a fresh directory, and closes it. */
async function buildIndex(name: string, conversations: readonly Conversation[], turnVectors: readonly Float32Array[][], encoder: KeywordEncoder): Promise<void> {
  const directory = dirOf(name);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const index = new EmbeddedVectorIndex({ directory });
  await index.open(DESCRIPTOR);
  for (const [c, conversation] of conversations.entries()) {
    await index.upsert(
      conversation.turns.map((turn, t) => ({
        id: turn.diaId,
        tenant: conversation.sampleId,
        dense: turnVectors[c][t],
        sparse: encoder.encodeKeywords(turn.content),
        payload: { type: 'episode' as const },
      })),
    );
  }
  await index.close();
}

/** Opens a built index (its keyword search uses the service's DEFAULT_BM25). */
async function openIndex(name: string): Promise<EmbeddedVectorIndex> {
  const index = new EmbeddedVectorIndex({ directory: dirOf(name) });
  await index.open(DESCRIPTOR);
  return index;
}

/** BM25 with other parameters than the service's, over every turn encoded with `encoder` (bm25-variants.ts). */
function bm25Of(conversations: readonly Conversation[], encoder: KeywordEncoder, params: Bm25Parameters): Bm25Variant {
  const bm25 = new Bm25Variant(params);
  for (const c of conversations) for (const turn of c.turns) bm25.add(c.sampleId, turn.diaId, encoder.encodeKeywords(turn.content));
  return bm25;
}

/** Runs `rank` for every question; returns the table row with the p50 latency of `rank`. */
async function measure(name: string, questions: readonly QuestionRef[], rank: (q: QuestionRef) => Promise<{ id: string }[]>): Promise<Row> {
  const rankings: string[][] = [];
  const latencies: number[] = [];
  for (const q of questions) {
    const start = performance.now();
    const hits = await rank(q);
    latencies.push(performance.now() - start);
    rankings.push(hits.map((hit) => hit.id));
  }
  return score(name, questions, rankings, latencies);
}

async function main(): Promise<void> {
  const conversations = loadLocomo();
  const turnTexts = conversations.flatMap((c) => c.turns.map((t) => t.content));
  const rawQuestions = conversations.flatMap((c) => c.questions.map((q) => q.question));
  const rewritten = rawQuestions.map(denseQueryText);
  const withoutMark = rawQuestions.map((q) => q.replace(/\?/g, ' ').trim());
  const started = performance.now();
  const vectors = await embedWithCache([...turnTexts, ...rawQuestions, ...rewritten, ...withoutMark]);
  console.log(`embeddings ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  let cursor = 0;
  const turnVectors = conversations.map((c) => c.turns.map(() => vectors[cursor++]));
  const rawVectors = vectors.slice(cursor, (cursor += rawQuestions.length));
  const rewrittenVectors = vectors.slice(cursor, (cursor += rawQuestions.length));
  const noMarkVectors = vectors.slice(cursor, (cursor += rawQuestions.length));
  const questions: QuestionRef[] = [];
  for (const c of conversations) {
    const turns = new Map(c.turns.map((t) => [t.diaId, t.content]));
    for (const q of c.questions) {
      const i = questions.length;
      questions.push({ tenant: c.sampleId, turns, question: q.question, category: q.category, evidence: q.evidence, rawVector: rawVectors[i], vector: rewrittenVectors[i] });
    }
  }
  const noEvidence = questions.filter((q) => q.evidence.length === 0).length;
  console.log(`${conversations.length} conversations, ${turnTexts.length} turns, ${questions.length} questions (${noEvidence} without usable evidence, counted as 0)`);

  // ---- 1. keyword encodings, BM25 alone with the textbook parameters
  const encoders: [string, KeywordEncoder][] = [
    ['Snowball stop words, Porter2 (service default)', createKeywordEncoder(DEFAULT_KEYWORD_OPTIONS)],
    ['Snowball + stopword-package stop words, Porter2', createKeywordEncoder({ stopWords: [...SNOWBALL_STOP_WORDS, ...STOPWORD_PACKAGE_ENGLISH], stem: true })],
    ['stopword-package stop words, Porter2', createKeywordEncoder({ stopWords: STOPWORD_PACKAGE_ENGLISH, stem: true })],
    ['Snowball stop words, no stemming', createKeywordEncoder({ ...DEFAULT_KEYWORD_OPTIONS, stem: false })],
    ['no stop words, no stemming', createKeywordEncoder({ stopWords: [], stem: false })],
  ];
  const [defaultName, encoder] = encoders[0];
  const rows1: Row[] = [];
  for (const [name, variant] of encoders) {
    const bm25 = bm25Of(conversations, variant, TEXTBOOK_BM25);
    rows1.push(await measure(`BM25: ${name}`, questions, async (q) => bm25.search(q.tenant, variant.encodeQuery(q.question), LIMIT)));
  }
  printTable('1. Keyword encoding, BM25 alone (k1 = 1.2, b = 0.75; in-memory BM25 of bm25-variants.ts, so p50 is not the index\'s)', rows1);
  await buildIndex(defaultName, conversations, turnVectors, encoder);

  // ---- 2. BM25 parameters, service encoding
  const rows2: Row[] = [];
  for (const bm25 of [
    { k1: 1.2, b: 0.75 },
    { k1: 1.2, b: 0.5 },
    { k1: 1.2, b: 0.3 },
    { k1: 0.9, b: 0.4 },
    { k1: 0.9, b: 0.3 },
    { k1: 0.6, b: 0.3 },
    { k1: 1.5, b: 0.75 },
    { k1: 1.2, b: 1.0 },
  ]) {
    const variant = bm25Of(conversations, encoder, bm25);
    rows2.push(await measure(`BM25 k1 = ${bm25.k1}, b = ${bm25.b}`, questions, async (q) => variant.search(q.tenant, encoder.encodeQuery(q.question), LIMIT)));
  }
  printTable('2. BM25 parameters (service encoding), BM25 alone (in-memory BM25 of bm25-variants.ts)', rows2);

  // ---- 3. dense alone and fusions
  const chosenBm25 = DEFAULT_BM25;
  const index = await openIndex(defaultName);
  const rows3: Row[] = [];
  const denseOnly = (vectorOf: (q: QuestionRef, i: number) => Float32Array) => {
    let i = 0;
    return (q: QuestionRef) => index.searchDense(vectorOf(q, i++), { tenant: q.tenant, limit: LIMIT });
  };
  rows3.push(await measure('dense alone, question as asked', questions, denseOnly((q) => q.rawVector)));
  rows3.push(await measure('dense alone, question without "?"', questions, denseOnly((_, i) => noMarkVectors[i])));
  rows3.push(await measure('dense alone, denseQueryText (no "?", no leading wh-word + auxiliary)', questions, denseOnly((q) => q.vector)));

  /**
   * Dense + sparse candidates as `hybridSearch` gathers them (exact cosines for keyword-only hits unless
   * `exactCosines` is false), optionally with the keyword search re-run on an RM3-expanded query.
   */
  const candidates = async (q: QuestionRef, vector: Float32Array, depth: number, variant: Variant = {}): Promise<HybridCandidates> => {
    const search = { tenant: q.tenant, limit: depth };
    const keywords = encoder.encodeQuery(q.question);
    const [dense, firstSparse] = await Promise.all([
      index.searchDense(vector, search),
      variant.bm25 ? Promise.resolve(variant.bm25.search(q.tenant, keywords, depth)) : index.searchSparse(keywords, search),
    ]);
    let sparse = firstSparse;
    if (variant.rm3 && sparse.length > 0) {
      // In the service this would read the memories' contents from the store; here: the turn texts.
      const feedback = sparse.slice(0, FEEDBACK_DEFAULTS.documents).map((hit) => ({ score: hit.score, sparse: encoder.encodeKeywords(q.turns.get(hit.id) ?? '') }));
      sparse = await index.searchSparse(expandQuery(keywords, feedback, FEEDBACK_DEFAULTS), search);
    }
    if (variant.exactCosines === false) return { dense, sparse };
    const inDense = new Set(dense.map((h) => h.id));
    const cosines = await index.scoreDense(vector, q.tenant, sparse.filter((h) => !inDense.has(h.id)).map((h) => h.id));
    return { dense, sparse, cosines };
  };
  const fused =
    (vectorOf: (q: QuestionRef) => Float32Array, fuse: (c: HybridCandidates) => HybridHit[], depth = 50, variant: Variant = {}) =>
    async (q: QuestionRef) =>
      fuse(await candidates(q, vectorOf(q), depth, variant)).slice(0, LIMIT);
  rows3.push(await measure('RRF k = 60, equal weights, question as asked (README baseline recipe)', questions, fused((q) => q.rawVector, (c) => reciprocalRankFusion(c))));
  rows3.push(await measure('RRF k = 60, equal weights', questions, fused((q) => q.vector, (c) => reciprocalRankFusion(c))));
  rows3.push(await measure('RRF k = 10, sparse weight 2', questions, fused((q) => q.vector, (c) => reciprocalRankFusion(c, { k: 10, denseWeight: 1, sparseWeight: 2 }))));
  rows3.push(await measure('RRF k = 60, sparse weight 3', questions, fused((q) => q.vector, (c) => reciprocalRankFusion(c, { k: 60, denseWeight: 1, sparseWeight: 3 }))));

  /** The service's own hybridSearch (HYBRID_FUSION, default depth, exact cosines, encodeQuery = the default encoder). */
  const hybrid = (raw = false) => (q: QuestionRef) =>
    hybridSearch(index, { tenant: q.tenant, vector: raw ? q.rawVector : q.vector, query: q.question, limit: LIMIT });
  const tm2c2 = (alpha: number): ConvexFusionOptions => ({ denseWeight: alpha, denseFloor: -1 });
  for (const alpha of [0.5, 0.6, 0.7, 0.8, 0.9]) {
    const name = `TM2C2 α = ${alpha}${alpha === HYBRID_FUSION.denseWeight ? ' (HYBRID_FUSION)' : ''}`;
    rows3.push(await measure(name, questions, alpha === HYBRID_FUSION.denseWeight ? hybrid() : fused((q) => q.vector, (c) => convexScoreFusion(c, tm2c2(alpha)))));
  }
  rows3.push(await measure('TM2C2 α = 0.6, cosine floor 0', questions, fused((q) => q.vector, (c) => convexScoreFusion(c, { denseWeight: 0.6, denseFloor: 0 }))));
  rows3.push(await measure('TM2C2 α = 0.8, question as asked for dense', questions, hybrid(true)));
  rows3.push(
    await measure('TM2C2 α = 0.8, no exact cosines for keyword-only hits', questions, fused((q) => q.vector, (c) => convexScoreFusion(c), 50, { exactCosines: false })),
  );
  for (const depth of [25, 100, 200]) {
    rows3.push(await measure(`TM2C2 α = 0.8, ${depth} candidates per search (default 50)`, questions, fused((q) => q.vector, (c) => convexScoreFusion(c), depth)));
  }
  rows3.push(
    await measure(
      `TM2C2 α = 0.8 + RM3 feedback (${FEEDBACK_DEFAULTS.documents} docs, ${FEEDBACK_DEFAULTS.terms} terms, weight ${FEEDBACK_DEFAULTS.weight})`,
      questions,
      fused((q) => q.vector, (c) => convexScoreFusion(c), 50, { rm3: true }),
    ),
  );
  for (const params of [TEXTBOOK_BM25, { k1: 0.9, b: 0.3 }]) {
    const bm25 = bm25Of(conversations, encoder, params);
    rows3.push(await measure(`TM2C2 α = 0.8, BM25 k1 = ${params.k1}, b = ${params.b}`, questions, fused((q) => q.vector, (c) => convexScoreFusion(c), 50, { bm25 })));
  }
  await index.close();
  printTable(
    `3. Dense and hybrid (BM25 k1 = ${chosenBm25.k1}, b = ${chosenBm25.b}; dense query = denseQueryText unless stated; 50 candidates per search; p50 excludes embedding the query)`,
    rows3,
  );
  rmSync(WORK_DIR, { recursive: true, force: true });
  console.log('\nReference: LoCoMo paper (DRAGON, dialogue turns): R@5 58.8, R@10 67.5, R@25 79.9.');
  console.log('README baselines on this machine: BM25 (minisearch) 46.5 / 54.1 / 62.7; dense 25.7 / 36.0 / 52.8; RRF 44.1 / 56.4 / 70.0.');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

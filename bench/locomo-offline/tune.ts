/**
 * LoCoMo dialogue-turn retrieval, offline: Recall@5/10/25 of BM25, dense (USE lite) and hybrid fusions,
 * through the real `EmbeddedVectorIndex` and keyword encoder of the memory service.
 *
 * Run: `cd /work/main && node -r @swc-node/register bench/locomo-offline/tune.ts [--quick]`
 * (first run embeds 7,868 texts, a few minutes; then cached in tmp/locomo-embeddings.bin).
 *
 * Task (as /work/shared/data/README.md): one tenant per conversation, one point per dialogue turn with
 * content `"<speaker>: <text>"` + `" [image: <blip_caption>]"`; each of the 1,986 questions is a recall
 * in its conversation; Recall@k = share of the question's evidence turns among the top k, averaged over
 * all 1,986 questions. The 5 questions without usable evidence (empty, or only "D") count as 0; evidence
 * ids that name no turn (2) count as misses. Per-category figures use the same rule.
 *
 * Nothing here looks at answers or evidence to choose per-question behaviour: every variant is one fixed
 * configuration applied to all questions.
 */
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  DEFAULT_KEYWORD_OPTIONS,
  SNOWBALL_STOP_WORDS,
  STOPWORD_PACKAGE_ENGLISH,
  createKeywordEncoder,
  type KeywordEncoder,
} from '../../services/memory/src/recall/keyword-encoder';
import {
  convexScoreFusion,
  reciprocalRankFusion,
  type HybridCandidates,
  type HybridHit,
} from '../../services/memory/src/recall/hybrid-ranking';
import { EmbeddedVectorIndex, type Bm25Parameters } from '../../services/memory/src/vector-index/embedded.vector-index';
import type { VectorHit } from '../../services/memory/src/vector-index/vector-index.port';
import { USE_LITE_DIMENSION, USE_LITE_ID, embedWithCache } from './embeddings-cache';
import { loadLocomo, type Conversation } from './locomo-data';

const KS = [5, 10, 25] as const;
const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };
const WORK_DIR = path.resolve(__dirname, '../../tmp/locomo-bench-index');
/** Candidates fetched from each search before fusion. */
const DEPTH = 100;

interface QuestionRef {
  conversation: Conversation;
  tenant: string;
  question: string;
  category: number;
  evidence: string[];
  vector: Float32Array;
}

interface Row {
  name: string;
  recall: Record<number, number>;
  byCategory: Record<number, Record<number, number>>;
  p50Ms?: number;
}

/** Recall@k of ranked turn ids per question, overall and per category. */
function score(name: string, questions: readonly QuestionRef[], rankings: readonly string[][], latencies?: number[]): Row {
  const recall: Record<number, number> = {};
  const byCategory: Record<number, Record<number, number>> = {};
  const counts: Record<number, number> = {};
  for (const k of KS) recall[k] = 0;
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
  console.log(
    `| Variant | R@5 | R@10 | R@25 | ${categories.map((c) => `${CATEGORY_NAMES[c]} R@10`).join(' | ')} | p50 ms (no embedding) |`,
  );
  console.log(`|---|---|---|---|${categories.map(() => '---|').join('')}---|`);
  for (const row of rows) {
    const cats = categories.map((c) => row.byCategory[c][10].toFixed(1)).join(' | ');
    const latency = row.p50Ms === undefined ? '' : row.p50Ms.toFixed(2);
    console.log(`| ${row.name} | ${row.recall[5].toFixed(1)} | ${row.recall[10].toFixed(1)} | ${row.recall[25].toFixed(1)} | ${cats} | ${latency} |`);
  }
}

/** Builds an index of all turns with the given encoder, in a fresh directory. */
async function buildIndex(
  name: string,
  conversations: readonly Conversation[],
  turnVectors: readonly Float32Array[][],
  encoder: KeywordEncoder,
  bm25?: Partial<Bm25Parameters>,
): Promise<EmbeddedVectorIndex> {
  const directory = path.join(WORK_DIR, name.replace(/[^a-z0-9]+/gi, '-'));
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const index = new EmbeddedVectorIndex({ directory, bm25 });
  await index.open({ embedderId: USE_LITE_ID, dimension: USE_LITE_DIMENSION });
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
  return index;
}

/** Reopens an index directory with other BM25 parameters (they are query-time only). */
async function withBm25(index: EmbeddedVectorIndex, name: string, bm25: Partial<Bm25Parameters>): Promise<EmbeddedVectorIndex> {
  await index.close();
  const reopened = new EmbeddedVectorIndex({ directory: path.join(WORK_DIR, name.replace(/[^a-z0-9]+/gi, '-')), bm25 });
  await reopened.open({ embedderId: USE_LITE_ID, dimension: USE_LITE_DIMENSION });
  return reopened;
}

interface Retrieved {
  candidates: HybridCandidates[];
  sparseMs: number[];
  denseMs: number[];
}

/** Dense and sparse candidates of every question, plus cosines of keyword-only candidates. */
async function retrieve(index: EmbeddedVectorIndex, encoder: KeywordEncoder, questions: readonly QuestionRef[], depth = DEPTH): Promise<Retrieved> {
  const candidates: HybridCandidates[] = [];
  const sparseMs: number[] = [];
  const denseMs: number[] = [];
  for (const q of questions) {
    let start = performance.now();
    const dense = await index.searchDense(q.vector, { tenant: q.tenant, limit: depth });
    denseMs.push(performance.now() - start);
    start = performance.now();
    const sparse = await index.searchSparse(encoder.encodeQuery(q.question), { tenant: q.tenant, limit: depth });
    sparseMs.push(performance.now() - start);
    const inDense = new Set(dense.map((h) => h.id));
    const missing = sparse.filter((h) => !inDense.has(h.id)).map((h) => h.id);
    const cosines = await index.scoreDense(q.vector, q.tenant, missing);
    candidates.push({ dense, sparse, cosines });
  }
  return { candidates, sparseMs, denseMs };
}

const idsOf = (hits: readonly (VectorHit | HybridHit)[]) => hits.map((h) => h.id);

function truncate(c: HybridCandidates, depth: number): HybridCandidates {
  return { dense: c.dense.slice(0, depth), sparse: c.sparse.slice(0, depth), cosines: c.cosines };
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const conversations = loadLocomo();
  const turnTexts = conversations.flatMap((c) => c.turns.map((t) => t.content));
  const questionTexts = conversations.flatMap((c) => c.questions.map((q) => q.question));
  const started = performance.now();
  const vectors = await embedWithCache([...turnTexts, ...questionTexts]);
  console.log(`embeddings ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const turnVectors: Float32Array[][] = [];
  let cursor = 0;
  for (const c of conversations) {
    turnVectors.push(c.turns.map(() => vectors[cursor++]));
  }
  const questions: QuestionRef[] = [];
  for (const c of conversations) {
    for (const q of c.questions) {
      questions.push({ conversation: c, tenant: c.sampleId, question: q.question, category: q.category, evidence: q.evidence, vector: vectors[cursor++] });
    }
  }
  const noEvidence = questions.filter((q) => q.evidence.length === 0).length;
  console.log(`${conversations.length} conversations, ${turnTexts.length} turns, ${questions.length} questions (${noEvidence} without usable evidence, counted as 0)`);

  // ---- keyword encodings (BM25 alone, default k1/b)
  const encoderVariants: [string, KeywordEncoder][] = [
    ['BM25, Snowball+stopword stop words, Porter2 (default)', createKeywordEncoder(DEFAULT_KEYWORD_OPTIONS)],
    ['BM25, Snowball stop words, Porter2', createKeywordEncoder({ stopWords: SNOWBALL_STOP_WORDS, stem: true })],
    ['BM25, stopword-package stop words, Porter2', createKeywordEncoder({ stopWords: STOPWORD_PACKAGE_ENGLISH, stem: true })],
    ['BM25, Snowball+stopword stop words, no stemming', createKeywordEncoder({ ...DEFAULT_KEYWORD_OPTIONS, stem: false })],
    ['BM25, no stop words, no stemming', createKeywordEncoder({ stopWords: [], stem: false })],
  ];
  const keywordRows: Row[] = [];
  const defaultEncoder = encoderVariants[0][1];
  let index: EmbeddedVectorIndex | undefined;
  for (const [name, encoder] of quick ? encoderVariants.slice(0, 1) : encoderVariants) {
    const built = await buildIndex(name, conversations, turnVectors, encoder);
    const { candidates, sparseMs } = await retrieve(built, encoder, questions, 25);
    keywordRows.push(score(name, questions, candidates.map((c) => idsOf(c.sparse)), sparseMs));
    if (encoder === defaultEncoder) index = built;
    else await built.close();
  }
  printTable('Keyword encoding (BM25 k1 = 1.2, b = 0.75)', keywordRows);

  // ---- BM25 parameters, default encoding
  const defaultName = encoderVariants[0][0];
  const bm25Rows: Row[] = [];
  const grid: Bm25Parameters[] = quick
    ? [{ k1: 1.2, b: 0.75 }]
    : [
        { k1: 1.2, b: 0.75 },
        { k1: 0.9, b: 0.4 },
        { k1: 1.2, b: 0.3 },
        { k1: 1.2, b: 0.5 },
        { k1: 1.5, b: 0.75 },
        { k1: 2.0, b: 0.75 },
        { k1: 0.6, b: 0.75 },
        { k1: 1.2, b: 1.0 },
      ];
  for (const bm25 of grid) {
    index = await withBm25(index!, defaultName, bm25);
    const { candidates, sparseMs } = await retrieve(index, defaultEncoder, questions, 25);
    bm25Rows.push(score(`BM25 k1 = ${bm25.k1}, b = ${bm25.b}`, questions, candidates.map((c) => idsOf(c.sparse)), sparseMs));
  }
  printTable('BM25 parameters (default encoding)', bm25Rows);

  // ---- dense and fusions, default encoding and default BM25
  index = await withBm25(index!, defaultName, { k1: 1.2, b: 0.75 });
  const { candidates, denseMs, sparseMs } = await retrieve(index, defaultEncoder, questions, 200);
  const rows: Row[] = [];
  rows.push(score('BM25 alone (default)', questions, candidates.map((c) => idsOf(c.sparse)), sparseMs));
  rows.push(score('dense alone (USE lite, exact cosine)', questions, candidates.map((c) => idsOf(c.dense)), denseMs));
  const fuse = (name: string, f: (c: HybridCandidates) => HybridHit[], depth = DEPTH) => {
    const latencies: number[] = [];
    const rankings = candidates.map((c, i) => {
      const start = performance.now();
      const ranked = idsOf(f(truncate(c, depth)));
      latencies.push(denseMs[i] + sparseMs[i] + performance.now() - start);
      return ranked;
    });
    rows.push(score(name, questions, rankings, latencies));
  };
  fuse('RRF k = 60, equal weights (Cormack et al. 2009)', (c) => reciprocalRankFusion(c, { k: 60, denseWeight: 1, sparseWeight: 1 }));
  for (const [k, sw] of [[60, 2], [60, 3], [20, 2], [10, 2], [10, 3]] as const) {
    fuse(`RRF k = ${k}, sparse weight ${sw}, dense 1`, (c) => reciprocalRankFusion(c, { k, denseWeight: 1, sparseWeight: sw }));
  }
  for (const alpha of [0.2, 0.3, 0.4, 0.5, 0.6]) {
    fuse(`convex α(dense) = ${alpha}, min-max cosine, BM25/max`, (c) => convexScoreFusion(c, { denseWeight: alpha }));
  }
  for (const depth of [25, 50, 200]) {
    fuse(`convex α = 0.4, depth ${depth}`, (c) => convexScoreFusion(c, { denseWeight: 0.4 }), depth);
  }
  printTable(`Dense, BM25 and fusions (candidates: ${DEPTH} from each search unless stated)`, rows);
  await index.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

/**
 * `npm run bench:locomo`: LoCoMo dialogue-turn retrieval (Maharana et al. 2024) through the HTTP API of
 * the standalone service. `LOCOMO_CONVERSATIONS=2` runs the first two conversations only.
 *
 * - One agent per conversation; its default record receives every dialogue turn as one memory, path =
 *   the turn's dia_id ("D1:3"), content `"<speaker>: <text>"` plus `" [image: <blip_caption>]"` when the
 *   turn shares an image (as the baselines of bench/data/README.md; loader in
 *   bench/locomo-offline/locomo-data.ts, imported read-only). No type is given: the service classifies.
 * - Every question is recalled once, sequentially, with limit 25 in its conversation's record.
 *   Recall@k of a question = |evidence ∩ top-k recalled paths| / |evidence|, averaged over questions
 *   (overall and per category 1..5). R@5 and R@10 are read off the top of the limit-25 ranking.
 * - Evidence normalisation: the file's evidence strings are parsed with `parseEvidence` (every
 *   `D<session>:<turn>` found in a string, so "D8:6; D9:17" gives two ids, "D:11:26" gives D11:26,
 *   "D30:05" gives D30:5, a bare "D" gives nothing; duplicates removed); ids that name no turn of the
 *   conversation are dropped (they could never be retrieved); a question left without evidence is
 *   excluded from the averages. The counts are printed.
 */
import { cpus } from 'node:os';
import { RememberUseCase } from '@agent-memory/memory';
import { ApiClient, type BenchAgent } from './lib/client';
import { BENCH_ENV, seconds, startServer, warmUp } from './lib/server';
import { peakRssMiB, runPool, since, summarise } from './lib/stats';
import { printTable, type Cell } from './lib/table';
import { loadLocomo, LOCOMO_PATH, type Conversation } from './locomo-offline/locomo-data';

const CONCURRENCY = Number(process.env.LOCOMO_CONCURRENCY ?? 8);
const LIMIT = 25;
const KS = [5, 10, 25] as const;
/** LoCoMo paper, Table 3, dialogue-turn retrieval (DRAGON), all categories. */
const PAPER = { 5: 58.8, 10: 67.5, 25: 79.9 } as const;
/** Simple baselines measured on one machine, listed in bench/data/README.md (all 1,986 questions). */
const README_BASELINES: { name: string; r: Record<(typeof KS)[number], number>; p50: number }[] = [
  { name: 'BM25 (minisearch), README', r: { 5: 46.5, 10: 54.1, 25: 62.7 }, p50: 1.0 },
  { name: 'dense USE-lite exact cosine, README', r: { 5: 25.7, 10: 36.0, 25: 52.8 }, p50: 19.7 },
  { name: 'RRF(BM25, dense), README', r: { 5: 44.1, 10: 56.4, 25: 70.0 }, p50: 18.1 },
];
/** Usual reading of the LoCoMo categories (the file has numbers only). */
const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

interface Scored {
  category: number;
  recall: Record<(typeof KS)[number], number>;
}

function conversationsToRun(all: Conversation[]): Conversation[] {
  const raw = process.env.LOCOMO_CONVERSATIONS;
  if (raw === undefined || raw === '') return all;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`LOCOMO_CONVERSATIONS must be a positive integer, got "${raw}"`);
  return all.slice(0, n);
}

/** Mean of the per-question Recall@k, as a percentage. */
function meanRecall(scored: readonly Scored[], k: (typeof KS)[number]): number {
  return scored.length === 0 ? NaN : (100 * scored.reduce((sum, s) => sum + s.recall[k], 0)) / scored.length;
}

async function main(): Promise<void> {
  const started = performance.now();
  const conversations = conversationsToRun(loadLocomo());
  const turnCount = conversations.reduce((n, c) => n + c.turns.length, 0);
  const questionCount = conversations.reduce((n, c) => n + c.questions.length, 0);
  process.stdout.write(
    [
      '# LoCoMo dialogue-turn retrieval through agent-memory',
      `data ${LOCOMO_PATH}: ${conversations.length} conversation(s), ${turnCount} turns, ${questionCount} questions`,
      `standalone service in-process, over HTTP on 127.0.0.1; env overrides: ${Object.entries(BENCH_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} ` +
        '(rate limits OFF: the interface allows 30 writes/min per record), everything else default (embedder use-lite, billing ledger)',
      `one agent/record per conversation; remember concurrency ${CONCURRENCY}; recall limit ${LIMIT}, one question at a time`,
      `node ${process.version}, ${cpus().length} CPUs`,
      '',
    ].join('\n') + '\n',
  );

  const server = await startServer();
  try {
    const api = new ApiClient(server.url);
    const { firstRememberMs } = await warmUp(api);
    process.stdout.write(`service started in ${seconds(server.startupMs)}, first remember (model load) ${seconds(firstRememberMs)}, warmed up on a separate record\n`);

    // 1. Remember every turn of every conversation.
    const agents = new Map<string, BenchAgent>();
    const rememberLatencies: number[] = [];
    const rememberStart = performance.now();
    for (const conversation of conversations) {
      const agent = await api.createAgent(`locomo-${conversation.sampleId}`);
      agents.set(conversation.sampleId, agent);
      const t0 = performance.now();
      await runPool(conversation.turns, CONCURRENCY, async (turn) => {
        const t = performance.now();
        const path = await api.remember(agent, turn.content, turn.diaId);
        rememberLatencies.push(since(t));
        if (path !== turn.diaId) throw new Error(`remember stored ${turn.diaId} at path "${path}"`);
      });
      const ms = since(t0);
      process.stdout.write(`  ${conversation.sampleId}: remembered ${conversation.turns.length} turns in ${seconds(ms)} (${((conversation.turns.length / ms) * 1000).toFixed(0)}/s)\n`);
    }
    const rememberWallMs = since(rememberStart);
    // Contextual entries are written shortly after each remember (docs/configuration.md, "Recall"): the
    // questions come once the service has written them, as an agent asking later would
    // (LOCOMO_SETTLE=0 asks at once, while they are still being written).
    const settleStart = performance.now();
    const remembering = server.app.get(RememberUseCase, { strict: false });
    if (process.env.LOCOMO_SETTLE !== '0') await remembering.contextSettled();
    const settleMs = since(settleStart);
    process.stdout.write(`contextual entries settled ${seconds(settleMs)} after the last remember; ${remembering.contextSkipped} skipped (backlog full)\n`);

    // 2. Recall with every question; score against normalised evidence.
    const scored: Scored[] = [];
    const recallLatencies: number[] = [];
    let noEvidence = 0;
    let droppedIds = 0;
    for (const conversation of conversations) {
      const agent = agents.get(conversation.sampleId)!;
      const turnIds = new Set(conversation.turns.map((t) => t.diaId));
      for (const question of conversation.questions) {
        const evidence = question.evidence.filter((id) => turnIds.has(id));
        droppedIds += question.evidence.length - evidence.length;
        const t = performance.now();
        const memories = await api.recall(agent, question.question, LIMIT);
        recallLatencies.push(since(t));
        if (evidence.length === 0) {
          noEvidence++;
          continue;
        }
        const paths = memories.map((m) => m.path);
        const recall = {} as Scored['recall'];
        for (const k of KS) {
          const top = new Set(paths.slice(0, k));
          recall[k] = evidence.filter((id) => top.has(id)).length / evidence.length;
        }
        scored.push({ category: question.category, recall });
      }
      process.stdout.write(`  ${conversation.sampleId}: ${conversation.questions.length} questions recalled\n`);
    }

    // 3. Report.
    const latency = summarise(recallLatencies);
    const remember = summarise(rememberLatencies);
    process.stdout.write('\n## Recall@k (%), all categories\n\n');
    const rows: Cell[][] = [
      ['agent-memory (this run)', String(scored.length), ...KS.map((k) => meanRecall(scored, k)), latency.p50, latency.p95],
      ['LoCoMo paper, DRAGON (Table 3)', '1986', ...KS.map((k) => PAPER[k]), '–', '–'],
      ...README_BASELINES.map((b): Cell[] => ['  ' + b.name, '1986', ...KS.map((k) => b.r[k]), b.p50, '–']),
    ];
    printTable(['retriever', 'questions', 'R@5', 'R@10', 'R@25', 'recall p50 ms', 'recall p95 ms'], rows);

    process.stdout.write('## Recall@k (%) per category (this run)\n\n');
    const categories = [...new Set(scored.map((s) => s.category))].sort((a, b) => a - b);
    printTable(
      ['category', 'questions', 'R@5', 'R@10', 'R@25'],
      categories.map((c) => {
        const inCategory = scored.filter((s) => s.category === c);
        return [`${c} (${CATEGORY_NAMES[c] ?? '?'})`, String(inCategory.length), ...KS.map((k) => meanRecall(inCategory, k))];
      }),
    );

    process.stdout.write('## Throughput and latency\n\n');
    printTable(
      ['measure', 'value'],
      [
        ['turns remembered', String(rememberLatencies.length)],
        ['remember wall time', seconds(rememberWallMs)],
        ['remember throughput (turns/s, concurrency 8)', ((rememberLatencies.length / rememberWallMs) * 1000).toFixed(1)],
        ['remember latency p50 / p95 ms (under load)', `${remember.p50.toFixed(1)} / ${remember.p95.toFixed(1)}`],
        ['recalls', String(recallLatencies.length)],
        ['recall latency p50 / p95 / p99 ms (sequential)', `${latency.p50.toFixed(1)} / ${latency.p95.toFixed(1)} / ${latency.p99.toFixed(1)}`],
        ['peak RSS MiB (process)', peakRssMiB().toFixed(0)],
      ],
    );
    process.stdout.write(
      `evidence: ${droppedIds} evidence id(s) naming no turn dropped; ${noEvidence} question(s) without usable evidence excluded ` +
        `(recalled, not scored); ${scored.length} of ${questionCount} questions scored. Category names are the usual reading ` +
        'of the numbers (the file has numbers only). Paper and README rows are reference figures, not measured here.\n',
    );
  } finally {
    await server.stop();
  }
  process.stdout.write(`took ${seconds(since(started))}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

/**
 * `npm run bench:paraphrase`: recall quality on memories that are not a conversation, through the HTTP
 * API of the standalone service. The labelled paraphrase set (services/memory/src/recall/fixtures/
 * paraphrase-set.json: unrelated memories, each with 1 to 2 questions sharing few words with it) is
 * stored one memory at a time in a seeded random order (`PARAPHRASE_SEED`, default the e2e suite's seed)
 * into one record; every question is recalled once with limit 5. Prints recall@1/3/5 (share of
 * questions whose memory is among the first k results) and the questions missed at 3. The floor on
 * recall@3 is held by test/e2e/recall-paraphrase.e2e-spec.ts; this bench prints the figures for the
 * closing notes of recall changes (contextual indexing must not lower them).
 */
import { measureParaphraseRecall } from '@agent-memory/test-support';
import { BENCH_ENV, seconds, startServer } from './lib/server';
import { since } from './lib/stats';
import { printTable } from './lib/table';

async function main(): Promise<void> {
  const started = performance.now();
  const seed = process.env.PARAPHRASE_SEED === undefined ? undefined : Number(process.env.PARAPHRASE_SEED);
  if (seed !== undefined && !Number.isInteger(seed)) throw new Error(`PARAPHRASE_SEED must be an integer, got "${process.env.PARAPHRASE_SEED}"`);
  const server = await startServer();
  try {
    const result = await measureParaphraseRecall(server.url, seed);
    const pct = (x: number) => `${(100 * x).toFixed(1)}`;
    console.log(`paraphrase set: ${result.memories} memories, ${result.questions} questions, env ${JSON.stringify(BENCH_ENV)}`);
    printTable(['set', 'memories', 'questions', 'recall@1 %', 'recall@3 %', 'recall@5 %'], [
      ['paraphrase', String(result.memories), String(result.questions), pct(result.recallAt[1]), pct(result.recallAt[3]), pct(result.recallAt[5])],
    ]);
    console.log(`missed at 3 (${result.missedAt3.length}):`);
    for (const miss of result.missedAt3) console.log(`  ${miss.question} → want "${miss.expected}", got ${miss.got.join(', ')}`);
  } finally {
    await server.stop();
  }
  console.log(`took ${seconds(since(started))}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

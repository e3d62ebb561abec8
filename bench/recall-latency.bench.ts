/**
 * `npm run bench`: remember throughput and recall latency of the standalone service, through HTTP,
 * for records of N memories (default N = 1,000 and 10,000; `BENCH_SIZES=1000` for a subset).
 *
 * For each N, on a freshly started service (fresh data directory, RATE_LIMITS=off):
 * 1. one agent, whose default record receives N distinct synthetic memories (bench/synthetic-memories.ts)
 *    with at most BENCH_CONCURRENCY (default 8) remember requests in flight, since the embedder batches
 *    concurrent requests; throughput = N / wall time;
 * 2. a few warm-up recalls (the service itself is warmed up first on a separate record, see
 *    `warmUp`), then BENCH_QUERIES (default 200) distinct paraphrase-like questions, one at a time,
 *    limit 10; latency is measured around each HTTP call (client side, so it includes HTTP,
 *    validation, auth, the usage ledger, query embedding, dense + keyword search and fusion);
 * 3. "answer@10" = share of queries for which a memory generated together with that question is in the
 *    top 10, a sanity check that the store returns relevant results (not a quality benchmark);
 * 4. peak RSS of this process so far (the service runs in-process, so this is the service plus the
 *    small benchmark client; maxRSS never decreases, so each row is the peak up to that size).
 */
import { cpus } from 'node:os';
import { ApiClient } from './lib/client';
import { BENCH_ENV, seconds, startServer, warmUp } from './lib/server';
import { peakRssMiB, runPool, seededRandom, since, summarise } from './lib/stats';
import { printTable, type Cell } from './lib/table';
import { generateMemories, type SyntheticMemory } from './synthetic-memories';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map((s) => Number(s.trim()));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const WARMUP_QUERIES = 5;
const LIMIT = 10;
const SEED = 42;

if (SIZES.some((n) => !Number.isInteger(n) || n < 1) || !(CONCURRENCY >= 1) || !(QUERIES >= 1)) {
  throw new Error(`bad BENCH_SIZES / BENCH_CONCURRENCY / BENCH_QUERIES: ${process.env.BENCH_SIZES} / ${process.env.BENCH_CONCURRENCY} / ${process.env.BENCH_QUERIES}`);
}

interface SizeResult {
  n: number;
  startupMs: number;
  rememberWallMs: number;
  rememberLatencies: number[];
  recallLatencies: number[];
  answered: number;
  queries: number;
  peakRss: number;
}

/**
 * Picks `count` distinct questions (the embedder caches exact texts, so a repeated query would measure
 * the cache), in a seeded random order, plus the set of paths whose memory was generated with each.
 */
function pickQueries(memories: readonly SyntheticMemory[], paths: readonly string[], count: number): { query: string; answers: Set<string> }[] {
  const answers = new Map<string, Set<string>>();
  memories.forEach((m, i) => {
    const set = answers.get(m.query) ?? new Set<string>();
    set.add(paths[i]);
    answers.set(m.query, set);
  });
  const distinct = [...answers.keys()];
  const random = seededRandom(SEED + 1);
  for (let i = distinct.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [distinct[i], distinct[j]] = [distinct[j], distinct[i]];
  }
  if (distinct.length < count) throw new Error(`only ${distinct.length} distinct queries for ${memories.length} memories`);
  return distinct.slice(0, count).map((query) => ({ query, answers: answers.get(query)! }));
}

async function benchSize(n: number): Promise<SizeResult> {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url);
    const { firstRememberMs } = await warmUp(api);
    process.stdout.write(`N = ${n}: service started in ${seconds(server.startupMs)}, first remember (model load) ${seconds(firstRememberMs)}, warmed up\n`);
    const agent = await api.createAgent(`recall-latency-${n}`);
    const memories = generateMemories(n, SEED);
    const paths = memories.map((_, i) => `bench/m${String(i).padStart(5, '0')}`);

    const rememberLatencies: number[] = [];
    let done = 0;
    const rememberStart = performance.now();
    await runPool(memories, CONCURRENCY, async (memory, i) => {
      const t = performance.now();
      await api.remember(agent, memory.content, paths[i]);
      rememberLatencies.push(since(t));
      if (++done % 1000 === 0) {
        process.stdout.write(`  remembered ${done}/${n} (${(done / (since(rememberStart) / 1000)).toFixed(0)}/s)\n`);
      }
    });
    const rememberWallMs = since(rememberStart);

    // Warm-up queries are drawn from the end of the shuffled list so they never repeat a measured one.
    const picked = pickQueries(memories, paths, Math.min(QUERIES + WARMUP_QUERIES, new Set(memories.map((m) => m.query)).size));
    const measured = picked.slice(0, Math.min(QUERIES, picked.length - WARMUP_QUERIES));
    for (const { query } of picked.slice(measured.length)) await api.recall(agent, query, LIMIT);

    const recallLatencies: number[] = [];
    let answered = 0;
    for (const { query, answers } of measured) {
      const t = performance.now();
      const hits = await api.recall(agent, query, LIMIT);
      recallLatencies.push(since(t));
      if (hits.some((h) => answers.has(h.path))) answered++;
    }
    process.stdout.write(`  ${measured.length} recalls done\n`);
    return { n, startupMs: server.startupMs, rememberWallMs, rememberLatencies, recallLatencies, answered, queries: measured.length, peakRss: peakRssMiB() };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  process.stdout.write(
    [
      '# agent-memory recall latency benchmark',
      `standalone service in-process, over HTTP on 127.0.0.1; env overrides: ${Object.entries(BENCH_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} ` +
        '(rate limits OFF: the interface allows 30 writes/min per record), everything else default (embedder use-lite, billing ledger)',
      `sizes ${SIZES.join(', ')} memories in ONE record each (fresh service per size); remember concurrency ${CONCURRENCY}; ` +
        `${QUERIES} distinct recall queries, sequential, limit ${LIMIT}, after ${WARMUP_QUERIES} warm-up queries`,
      `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
      '',
    ].join('\n') + '\n',
  );

  const results: SizeResult[] = [];
  for (const n of SIZES) results.push(await benchSize(n));

  process.stdout.write('\n');
  const rows: Cell[][] = results.map((r) => {
    const remember = summarise(r.rememberLatencies);
    const recall = summarise(r.recallLatencies);
    return [
      String(r.n),
      (r.n / r.rememberWallMs) * 1000,
      remember.p50,
      remember.p95,
      recall.p50,
      recall.p95,
      recall.p99,
      (100 * r.answered) / r.queries,
      r.peakRss,
    ];
  });
  printTable(
    ['memories', 'remember/s', 'remember p50 ms', 'remember p95 ms', 'recall p50 ms', 'recall p95 ms', 'recall p99 ms', 'answer@10 %', 'peak RSS MiB'],
    rows,
  );
  process.stdout.write(
    'remember/s: N / wall time with the given concurrency; remember p50/p95: per-request latency under that load. ' +
      'recall: client-side latency of single sequential requests. peak RSS: process.resourceUsage().maxRSS after that size ' +
      '(cumulative over the run, service and client together).\n',
  );
  process.stdout.write(`took ${seconds(since(started))}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

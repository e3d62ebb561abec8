/**
 * `npm run bench`: remember throughput and recall latency of the standalone service, through HTTP,
 * for records of N memories (default N = 1,000, 10,000 and 100,000; `BENCH_SIZES=1000,10000` for a subset).
 *
 * For each N, on a freshly started service (fresh data directory, RATE_LIMITS=off):
 * 1. one agent, whose default record receives N distinct synthetic memories (bench/synthetic-memories.ts),
 *    all through `POST /remember`:
 *    - below BENCH_PREFILL_FROM (default 50,000) memories: the first BENCH_SERIAL (default 200) one at a
 *      time (remember p50 "1 in flight"), the rest with BENCH_CONCURRENCY (default 8) in flight
 *      (remember/s = those memories / their wall time);
 *    - from BENCH_PREFILL_FROM on (the 100k step): in chunks of 1,024, each chunk is
 *      first embedded by the service's own embedder in model batches of 64, in the record's scope (the
 *      embedder's batch path, `EMBEDDER` of the running app), then remembered over HTTP with 8 in flight;
 *      each remember finds its vector in the embedder's cache and does everything else as usual (rows,
 *      blob, index write). Its remember figures are not comparable and are not printed. The rest of
 *      the remember path then sets the pace: at ~65 remembers/s (2 cores) the step takes ~26 min;
 * 2. once the contextual entries the remembers queued are written (the wait is printed), a few warm-up
 *    recalls (the service itself is warmed up first on a separate record, see `warmUp`),
 *    then BENCH_ROUNDS (default 3) rounds of BENCH_QUERIES (default 200) paraphrase-like questions, one
 *    at a time, limit 10, every question distinct across rounds (the embedder caches exact texts; fewer per
 *    round when the set has too few). Latency is measured around each HTTP
 *    call (client side: HTTP, validation, auth, the usage ledger, query embedding, dense + keyword search,
 *    fusion, row reads). Each round's p50/p99 is computed; the table gives their min and median, and the
 *    1-minute load average when the size was measured (other work on the machine inflates the figures);
 * 3. "answer@10" = share of queries for which a memory generated together with that question is in the
 *    top 10, a sanity check that the store returns relevant results (not a quality benchmark);
 * 4. peak RSS of this process so far (the service runs in-process, so this is the service plus the
 *    small benchmark client; maxRSS never decreases, so each row is the peak up to that size).
 *
 * BENCH_CPU_PROFILE=<directory> writes a V8 CPU profile of each size's recall rounds there
 * (`recall-<N>.cpuprofile`; open it in Chrome DevTools), to see where a recall's time goes.
 *
 * Writes an SVG plot of recall p50/p99 against N to BENCH_PLOT (default tmp/bench/recall-latency.svg,
 * not committed: the figures are this machine's) and prints its path.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { EMBEDDER, type Embedder, RememberUseCase } from '@agent-memory/memory';
import { ApiClient, type BenchAgent } from './lib/client';
import { lineChartSvg } from './lib/plot';
import { BENCH_ENV, seconds, startServer, warmUp, type BenchServer } from './lib/server';
import { peakRssMiB, runPool, seededRandom, since, summarise } from './lib/stats';
import { printTable, type Cell } from './lib/table';
import { generateMemories, type SyntheticMemory } from './synthetic-memories';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map((s) => Number(s.trim()));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SERIAL = Number(process.env.BENCH_SERIAL ?? 200);
const PREFILL_FROM = Number(process.env.BENCH_PREFILL_FROM ?? 50_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PLOT = resolve(process.env.BENCH_PLOT ?? 'tmp/bench/recall-latency.svg');
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE ? resolve(process.env.BENCH_CPU_PROFILE) : undefined;
const PREFILL_CHUNK = 1024;
const WARMUP_QUERIES = 5;
const LIMIT = 10;
const SEED = 42;

if (SIZES.some((n) => !Number.isInteger(n) || n < 1) || !(CONCURRENCY >= 1) || !(QUERIES >= 1) || !(ROUNDS >= 1) || !(SERIAL >= 0)) {
  throw new Error(`bad BENCH_SIZES / BENCH_CONCURRENCY / BENCH_QUERIES / BENCH_ROUNDS / BENCH_SERIAL: ${process.env.BENCH_SIZES} / ${process.env.BENCH_CONCURRENCY} / ${process.env.BENCH_QUERIES} / ${process.env.BENCH_ROUNDS} / ${process.env.BENCH_SERIAL}`);
}

interface SizeResult {
  n: number;
  prefilled: boolean;
  /** Remembers one at a time (ms each). */
  serialLatencies: number[];
  /** Memories remembered with CONCURRENCY in flight, their wall time and per-request latencies. */
  concurrent: number;
  concurrentWallMs: number;
  concurrentLatencies: number[];
  /** One list of recall latencies per round. */
  rounds: number[][];
  answered: number;
  queries: number;
  load1: number;
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

/** Remembers `memories[from..to)` over HTTP with `concurrency` in flight; returns per-request latencies. */
async function rememberRange(api: ApiClient, agent: BenchAgent, memories: readonly SyntheticMemory[], paths: readonly string[], from: number, to: number, concurrency: number, progress: () => void): Promise<number[]> {
  const latencies: number[] = [];
  const indices = Array.from({ length: to - from }, (_, i) => from + i);
  await runPool(indices, concurrency, async (i) => {
    const t = performance.now();
    await api.remember(agent, memories[i].content, paths[i]);
    latencies.push(since(t));
    progress();
  });
  return latencies;
}

/** The 100k path: each chunk embedded in model batches by the service's embedder (record scope), then remembered over HTTP. */
async function rememberPrefilled(server: BenchServer, api: ApiClient, agent: BenchAgent, memories: readonly SyntheticMemory[], paths: readonly string[], progress: () => void): Promise<void> {
  const embedder = server.app.get<symbol, Embedder>(EMBEDDER, { strict: false });
  for (let from = 0; from < memories.length; from += PREFILL_CHUNK) {
    const to = Math.min(memories.length, from + PREFILL_CHUNK);
    await embedder.embed(memories.slice(from, to).map((m) => m.content), { scope: agent.recordId });
    await rememberRange(api, agent, memories, paths, from, to, CONCURRENCY, progress);
  }
}

async function benchSize(n: number): Promise<SizeResult> {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url);
    const { firstRememberMs } = await warmUp(api);
    process.stdout.write(`N = ${n}: service started in ${seconds(server.startupMs)}, first remember (model load) ${seconds(firstRememberMs)}, warmed up\n`);
    const agent = await api.createAgent(`recall-latency-${n}`);
    const memories = generateMemories(n, SEED);
    const paths = memories.map((_, i) => `bench/m${String(i).padStart(6, '0')}`);

    let done = 0;
    const rememberStart = performance.now();
    const progress = (): void => {
      if (++done % 5000 === 0) process.stdout.write(`  remembered ${done}/${n} (${(done / (since(rememberStart) / 1000)).toFixed(0)}/s)\n`);
    };
    const prefilled = n >= PREFILL_FROM;
    let serialLatencies: number[] = [];
    let concurrentLatencies: number[] = [];
    let concurrentWallMs = 0;
    const serial = prefilled ? 0 : Math.min(SERIAL, n);
    if (prefilled) {
      await rememberPrefilled(server, api, agent, memories, paths, progress);
    } else {
      serialLatencies = await rememberRange(api, agent, memories, paths, 0, serial, 1, progress);
      const t = performance.now();
      concurrentLatencies = await rememberRange(api, agent, memories, paths, serial, n, CONCURRENCY, progress);
      concurrentWallMs = since(t);
    }
    process.stdout.write(`  remembered ${n} in ${seconds(since(rememberStart))}\n`);
    // Contextual entries are written in the background after each remember (docs/configuration.md,
    // "Recall"): recalls are measured once that work is done, as for an agent that asks later.
    const settleStart = performance.now();
    await server.app.get(RememberUseCase, { strict: false }).contextSettled();
    process.stdout.write(`  contextual entries settled ${seconds(since(settleStart))} after the last remember\n`);

    // Warm-up queries are drawn from the end of the shuffled list so they never repeat a measured one.
    const picked = pickQueries(memories, paths, Math.min(ROUNDS * QUERIES + WARMUP_QUERIES, new Set(memories.map((m) => m.query)).size));
    const perRound = Math.min(QUERIES, Math.floor((picked.length - WARMUP_QUERIES) / ROUNDS));
    for (const { query } of picked.slice(ROUNDS * perRound)) await api.recall(agent, query, LIMIT);

    const rounds: number[][] = [];
    let answered = 0;
    const profiler = CPU_PROFILE_DIR ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    for (let round = 0; round < ROUNDS; round++) {
      const latencies: number[] = [];
      for (const { query, answers } of picked.slice(round * perRound, (round + 1) * perRound)) {
        const t = performance.now();
        const hits = await api.recall(agent, query, LIMIT);
        latencies.push(since(t));
        if (hits.some((h) => answers.has(h.path))) answered++;
      }
      rounds.push(latencies);
    }
    if (profiler && CPU_PROFILE_DIR) {
      const { profile } = await profiler.post('Profiler.stop');
      mkdirSync(CPU_PROFILE_DIR, { recursive: true });
      writeFileSync(resolve(CPU_PROFILE_DIR, `recall-${n}.cpuprofile`), JSON.stringify(profile));
      profiler.disconnect();
    }
    process.stdout.write(`  ${ROUNDS} x ${perRound} recalls done (load average ${loadavg()[0].toFixed(1)})\n`);
    return {
      n,
      prefilled,
      serialLatencies,
      concurrent: n - serial,
      concurrentWallMs,
      concurrentLatencies,
      rounds,
      answered,
      queries: ROUNDS * perRound,
      load1: loadavg()[0],
      peakRss: peakRssMiB(),
    };
  } finally {
    await server.stop();
  }
}

/** Median of a non-empty list. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const started = performance.now();
  process.stdout.write(
    [
      '# agent-memory recall latency benchmark',
      `standalone service in-process, over HTTP on 127.0.0.1; env overrides: ${Object.entries(BENCH_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} ` +
        '(rate limits OFF: the interface allows 30 writes/min per record), everything else default (embedder use-lite, billing ledger)',
      `sizes ${SIZES.join(', ')} memories in ONE record each (fresh service per size); remember concurrency ${CONCURRENCY}; ` +
        `${ROUNDS} rounds of ${QUERIES} distinct recall queries, sequential, limit ${LIMIT}, after ${WARMUP_QUERIES} warm-up queries; ` +
        `sizes from ${PREFILL_FROM} on are embedded in model batches before their remembers`,
      `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
      '',
    ].join('\n') + '\n',
  );

  const results: SizeResult[] = [];
  for (const n of SIZES) results.push(await benchSize(n));

  process.stdout.write('\n');
  const rows: Cell[][] = results.map((r) => {
    const p50s = r.rounds.map((latencies) => summarise(latencies).p50);
    const p99s = r.rounds.map((latencies) => summarise(latencies).p99);
    const serial = summarise(r.serialLatencies);
    return [
      String(r.n),
      Math.min(...p50s),
      median(p50s),
      Math.min(...p99s),
      median(p99s),
      r.prefilled ? NaN : serial.p50,
      r.prefilled ? NaN : (r.concurrent / r.concurrentWallMs) * 1000,
      r.prefilled ? NaN : summarise(r.concurrentLatencies).p50,
      (100 * r.answered) / r.queries,
      r.load1,
      r.peakRss,
    ];
  });
  printTable(
    [
      'memories',
      'recall p50 ms min',
      'p50 median',
      'recall p99 ms min',
      'p99 median',
      'remember p50 ms (1 in flight)',
      `remember/s (${CONCURRENCY} in flight)`,
      `remember p50 ms (${CONCURRENCY} in flight)`,
      'answer@10 %',
      'load avg 1 min',
      'peak RSS MiB',
    ],
    rows,
  );
  process.stdout.write(
    `recall: client-side latency of single sequential requests; p50/p99 per round of distinct questions, min and median over ${ROUNDS} rounds. ` +
      `remember: the first ${SERIAL} memories one at a time, the rest with ${CONCURRENCY} in flight (remember/s = those / their wall time); ` +
      `"–" for sizes from ${PREFILL_FROM} on, whose memories were embedded in model batches first (see the header of this file). ` +
      'load avg: 1-minute load average of the machine after the recalls. peak RSS: process.resourceUsage().maxRSS after that size ' +
      '(cumulative over the run, service and client together).\n',
  );
  const svg = lineChartSvg({
    title: 'agent-memory recall latency (standalone, HTTP, one record)',
    xLabel: 'memories in the record',
    yLabel: 'recall latency, ms (median over rounds)',
    series: [
      { name: 'p50', points: results.map((r) => [r.n, median(r.rounds.map((l) => summarise(l).p50))] as const) },
      { name: 'p99', points: results.map((r) => [r.n, median(r.rounds.map((l) => summarise(l).p99))] as const) },
    ],
  });
  mkdirSync(dirname(PLOT), { recursive: true });
  writeFileSync(PLOT, svg);
  process.stdout.write(`plot: ${PLOT}\n`);
  process.stdout.write(`took ${seconds(since(started))}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

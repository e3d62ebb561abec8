/**
 * `npm run bench:cluster`: remember and recall through the gateway with 1, 10 and 50 concurrent agents,
 * in cluster mode (every service its own process over NATS, PostgreSQL, Redis, S3; libs/testing's
 * ClusterServer with private nats-server/redis-server, a fresh database, s3rver) beside standalone.
 *
 * Per mode, on a fresh system (RATE_LIMITS=off, BILLING_MODE=ledger):
 * - for each concurrency C in BENCH_AGENTS (default 1,10,50): C agents, each with its own record, each
 *   sending BENCH_REMEMBERS (default 10) remembers one after another, all agents at once; then each
 *   sending BENCH_RECALLS (default 10) recalls (limit 10) over what it wrote;
 * - latency per HTTP call (client side), throughput = calls / wall time of the phase.
 * The benchmark client runs in this process; the standalone service does too (as `npm start` would).
 * Figures depend on the machine: this one has 2 cores shared by every process.
 */
import 'reflect-metadata';
import { cpus } from 'node:os';
import { ClusterServer } from '@agent-memory/test-support';
import { ApiClient, type BenchAgent } from './lib/client';
import { startServer } from './lib/server';
import { runPool, summarise } from './lib/stats';
import { printTable, type Cell } from './lib/table';
import { generateMemories } from './synthetic-memories';

const AGENTS = (process.env.BENCH_AGENTS ?? '1,10,50').split(',').map((s) => Number(s.trim()));
const REMEMBERS = Number(process.env.BENCH_REMEMBERS ?? 10);
const RECALLS = Number(process.env.BENCH_RECALLS ?? 10);
const MODES = (process.env.BENCH_MODES ?? 'standalone,cluster').split(',').map((s) => s.trim());

interface PhaseResult {
  mode: string;
  agents: number;
  op: 'remember' | 'recall';
  calls: number;
  wallMs: number;
  latencies: number[];
}

async function runPhase(mode: string, op: PhaseResult['op'], agents: BenchAgent[], work: (agent: BenchAgent, i: number) => Promise<void>, per: number): Promise<PhaseResult> {
  const latencies: number[] = [];
  const started = performance.now();
  await runPool(agents, agents.length, async (agent) => {
    for (let i = 0; i < per; i++) {
      const t = performance.now();
      await work(agent, i);
      latencies.push(performance.now() - t);
    }
  });
  return { mode, agents: agents.length, op, calls: latencies.length, wallMs: performance.now() - started, latencies };
}

async function benchMode(mode: string, url: string): Promise<PhaseResult[]> {
  const api = new ApiClient(url);
  const results: PhaseResult[] = [];
  // warm-up: load the model and the connections
  const warm = await api.createAgent('warm-up');
  for (let i = 0; i < 3; i++) await api.remember(warm, `Warm-up memory number ${i} about the weather.`);
  for (let i = 0; i < 3; i++) await api.recall(warm, 'weather', 10);
  let seed = 1;
  for (const count of AGENTS) {
    const agents = await Promise.all(Array.from({ length: count }, (_, i) => api.createAgent(`bench ${mode} ${count} ${i}`)));
    const data = agents.map(() => generateMemories(REMEMBERS, seed++));
    results.push(await runPhase(mode, 'remember', agents, (agent, i) => api.remember(agent, data[agents.indexOf(agent)][i].content).then(() => undefined), REMEMBERS));
    results.push(await runPhase(mode, 'recall', agents, (agent, i) => api.recall(agent, data[agents.indexOf(agent)][i % REMEMBERS].query, 10).then(() => undefined), RECALLS));
    process.stdout.write(`  ${mode}: ${count} agent(s) done\n`);
  }
  return results;
}

async function main(): Promise<void> {
  process.stdout.write(`bench:cluster on ${cpus().length} cores; agents ${AGENTS.join(', ')}; ${REMEMBERS} remembers and ${RECALLS} recalls per agent\n`);
  const all: PhaseResult[] = [];
  for (const mode of MODES) {
    const t = performance.now();
    if (mode === 'standalone') {
      const server = await startServer();
      process.stdout.write(`standalone started in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      try {
        all.push(...(await benchMode(mode, server.url)));
      } finally {
        await server.stop();
      }
    } else {
      const cluster = await ClusterServer.start({ env: { RATE_LIMITS: 'off', LOG_LEVEL: 'warn', BILLING_MODE: 'ledger' } });
      process.stdout.write(`cluster (${cluster.processes.length} processes) started in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      try {
        all.push(...(await benchMode(mode, cluster.url.replace(/\/$/, ''))));
      } finally {
        await cluster.close({ removeData: true });
      }
    }
  }
  const rows: Cell[][] = all.map((r) => {
    const s = summarise(r.latencies);
    return [r.mode, r.agents, r.op, r.calls, (r.calls / r.wallMs) * 1000, s.p50, s.p95, s.p99];
  });
  process.stdout.write('\n');
  printTable(['mode', 'agents', 'operation', 'calls', 'throughput /s', 'p50 ms', 'p95 ms', 'p99 ms'], rows);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:cluster failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);

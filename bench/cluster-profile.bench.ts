/**
 * `node -r @swc-node/register bench/cluster-profile.bench.ts`: where the cluster's time goes, per process
 * and per call. A diagnostic beside `npm run bench:cluster` and bench/cluster-hops.bench.ts (which time
 * calls), not a benchmark of record: on a shared 2-core machine latency varies by ±20-30 % between runs.
 *
 * Starts the test cluster (libs/testing's ClusterServer: every service its own process over NATS,
 * PostgreSQL, Redis, S3; RATE_LIMITS=off, BILLING_MODE=ledger) with every Node process under V8's sampling
 * profiler (`--cpu-prof`, one sample per PROFILE_INTERVAL_US, default 250 µs), then, for one agent and one
 * record:
 * 1. remembers PROFILE_REMEMBERS (default 300) synthetic memories with 8 in flight;
 * 2. recalls PROFILE_RECALLS (default 300) times, one at a time (limit 10).
 * Each phase's window is taken on the monotonic clock, which the profiles' timestamps also use. After the
 * cluster stops (the profiles are written at exit), prints per phase: throughput and latency, then per
 * process its busy time per call inside the window and the packages or
 * project folders that took most of it (a worker thread, such as the memory process's embedder thread, in
 * a row of its own). Busy time is the wall time of the samples that are not idle: CPU time while the
 * machine has a free core, and more under load, when a running thread also waits for a core (with 8
 * remembers in flight on 2 cores, it is well above CPU time). NATS, PostgreSQL and Redis are not Node
 * processes and not counted.
 * PROFILE_DIR keeps the .cpuprofile files (default: a temporary directory, removed) for Chrome DevTools.
 */
import 'reflect-metadata';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterServer } from '@agent-memory/test-support';
import { ApiClient, type BenchAgent } from './lib/client';
import { runPool, summarise } from './lib/stats';
import { printTable } from './lib/table';
import { generateMemories } from './synthetic-memories';

const REMEMBERS = Number(process.env.PROFILE_REMEMBERS ?? 300);
const RECALLS = Number(process.env.PROFILE_RECALLS ?? 300);
const INTERVAL_US = Number(process.env.PROFILE_INTERVAL_US ?? 250);
const IN_FLIGHT = 8;
const TOP = 6;

/** The monotonic clock in microseconds, as V8's profiles stamp their samples. */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

interface Phase {
  name: string;
  calls: number;
  fromUs: number;
  toUs: number;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** What a sample's code belongs to: its npm package, its project folder (`services/memory`), a `node:` module, or a V8 category. */
function owner(frame: { functionName: string; url: string }): string {
  const url = frame.url;
  if (!url) return `(${frame.functionName || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const project = /\/(services|libs|apps|bench|test)\/([^/]+)\//.exec(url);
  return project ? `${project[1]}/${project[2]}` : url;
}

/** Busy µs inside [fromUs, toUs] of one profile: the total of the samples that are not idle, and by {@link owner}. */
function cpuIn(profile: CpuProfile, fromUs: number, toUs: number): { total: number; byOwner: Map<string, number> } {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byOwner = new Map<string, number>();
  let at = profile.startTime;
  let total = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (at < fromUs || at > toUs) return;
    const frame = frames.get(id)!;
    if (frame.functionName === '(idle)') return;
    const us = profile.timeDeltas[i];
    total += us;
    const key = owner(frame);
    byOwner.set(key, (byOwner.get(key) ?? 0) + us);
  });
  return { total, byOwner };
}

async function main(): Promise<void> {
  const keep = process.env.PROFILE_DIR;
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'cluster-profile-'));
  process.stdout.write(`cluster-profile on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); ${REMEMBERS} remembers with ${IN_FLIGHT} in flight, ${RECALLS} recalls one at a time; profiles in ${dir}\n`);
  const cluster = await ClusterServer.start({
    env: { RATE_LIMITS: 'off', LOG_LEVEL: 'warn', BILLING_MODE: 'ledger', NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir} --cpu-prof-interval=${INTERVAL_US}` },
  });
  const names = new Map(cluster.processes.map((p) => [p.child.pid, `${p.name}${p.replica > 0 ? `#${p.replica}` : ''}`]));
  const phases: Phase[] = [];
  const rows: (string | number)[][] = [];
  try {
    const api = new ApiClient(cluster.url);
    const agent = await api.post<BenchAgent>('/api/v1/agents', { name: 'cluster-profile' });
    const memories = generateMemories(REMEMBERS, 5);
    // Warm-up: the model, the connections, the gateway's caches.
    for (let i = 0; i < 5; i++) await api.remember(agent, `warm-up memory ${i}`, `warm/${i}`);
    for (let i = 0; i < 5; i++) await api.recall(agent, `warm-up ${i}`, 10);

    let fromUs = nowUs();
    let started = performance.now();
    const latencies: number[] = [];
    await runPool(memories, IN_FLIGHT, async (memory) => {
      const t = performance.now();
      await api.remember(agent, memory.content);
      latencies.push(performance.now() - t);
    });
    let seconds = (performance.now() - started) / 1000;
    phases.push({ name: `remember, ${IN_FLIGHT} in flight`, calls: REMEMBERS, fromUs, toUs: nowUs() });
    let s = summarise(latencies);
    rows.push([`remember, ${IN_FLIGHT} in flight`, REMEMBERS / seconds, s.p50, s.p99]);
    // Let the background work of the remembers (contextual entries, the ledger batch) settle first.
    await new Promise((r) => setTimeout(r, 2_000));

    const recallLatencies: number[] = [];
    fromUs = nowUs();
    started = performance.now();
    for (let i = 0; i < RECALLS; i++) {
      const t = performance.now();
      await api.recall(agent, `${memories[i % memories.length].query} r${Math.floor(i / memories.length)}`, 10);
      recallLatencies.push(performance.now() - t);
    }
    seconds = (performance.now() - started) / 1000;
    phases.push({ name: 'recall, 1 in flight', calls: RECALLS, fromUs, toUs: nowUs() });
    s = summarise(recallLatencies);
    rows.push(['recall, 1 in flight', RECALLS / seconds, s.p50, s.p99]);
  } finally {
    await cluster.close({ removeData: true });
  }
  printTable(['phase', 'calls/s', 'p50 ms', 'p99 ms'], rows, 1);

  // The profiles are written as each process (and each worker thread: the memory process's embedder)
  // exits: CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile.
  const profiles = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => {
      const [, , , pid, thread] = f.split('.');
      const name = names.get(Number(pid));
      return { name: name && thread !== '0' ? `${name} (thread ${thread})` : name, pid: Number(pid), profile: JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile };
    })
    .filter((p): p is { name: string; pid: number; profile: CpuProfile } => p.name !== undefined)
    .sort((a, b) => a.name.localeCompare(b.name));
  // A process killed after its stop timeout writes no profile: say so rather than leave its row out.
  const missing = [...names].filter(([pid]) => !profiles.some((p) => p.pid === pid)).map(([, name]) => name);
  if (missing.length > 0) process.stdout.write(`no profile written by: ${missing.join(', ')} (not counted below)\n`);
  for (const phase of phases) {
    process.stdout.write(`\n## ${phase.name}: busy ms per call, by process (top ${TOP} owners of its samples)\n`);
    let sum = 0;
    const table = profiles.map(({ name, profile }) => {
      const { total, byOwner } = cpuIn(profile, phase.fromUs, phase.toUs);
      sum += total;
      const top = [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, TOP).map(([key, us]) => `${key} ${(us / 1000 / phase.calls).toFixed(2)}`);
      return [name, total / 1000 / phase.calls, top.join(', ')];
    });
    table.push(['all Node processes', sum / 1000 / phase.calls, '']);
    printTable(['process', 'busy ms/call', 'top owners (ms/call)'], table, 2);
  }
  if (!keep) rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

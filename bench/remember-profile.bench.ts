/**
 * `node -r @swc-node/register bench/remember-profile.bench.ts`: where a remember's time goes. Starts the
 * standalone service in-process (bench/lib/server.ts), wraps PGlite's protocol entry points (`execProtocolRaw`, and `execProtocolRawStream`, with which
 * the prepared client runs its statements; every statement goes through one of them) to count and
 * time every statement the embedded database runs, then remembers PROFILE_N (default 200) synthetic
 * memories one at a time and PROFILE_N with 8 in flight, and prints per remember: latency p50, the
 * statements run (grouped by their SQL text, first 100 characters) with their count and time per remember,
 * the total time spent inside PGlite, and this process's CPU time per remember (service and client;
 * less sensitive to other load on the machine than latency), the event loop's utilisation and its busy
 * time per remember, and the share of the wall time during which a transaction was open (PGlite runs
 * one at a time, so near 100 % the database's single session is what bounds the rate). PROFILE_CPU=<file> writes a V8 CPU profile
 * of the 8-in-flight phase (open it in Chrome DevTools). A diagnostic, not a benchmark: the figures of record come from
 * `npm run bench` (bench/recall-latency.bench.ts).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PGlite } from '@electric-sql/pglite';
import { ApiClient, type BenchAgent } from './lib/client';
import { startServer, warmUp } from './lib/server';
import { runPool, since, summarise } from './lib/stats';
import { generateMemories } from './synthetic-memories';

const N = Number(process.env.PROFILE_N ?? 200);

interface Stat {
  count: number;
  ms: number;
}
const stats = new Map<string, Stat>();
let pgliteMs = 0;
/** Wall time with a transaction open (BEGIN sent, COMMIT or ROLLBACK not yet answered), ms: PGlite runs one at a time. */
let transactionOpenMs = 0;
let transactionOpenedAt: number | undefined;
/** The event loop's utilisation since the phase began (performance.eventLoopUtilization). */
let loopAtPhaseStart = performance.eventLoopUtilization();

/** SQL text of each named prepared statement seen in a Parse message (the prepared client's executions name it). */
const preparedSql = new Map<string, string>();

/**
 * A label for a frontend message: `Q <sql>` for a simple query, `P <sql>` for a Parse, `B <sql>` for the
 * Bind of a named prepared statement (libs/platform/src/database/pglite-prepared.ts sends Bind, Execute
 * and Sync in one call), else the message's type letter.
 */
function label(message: Uint8Array): string {
  const kind = String.fromCharCode(message[0]);
  const cstring = (from: number): { text: string; end: number } => {
    let end = from;
    while (end < message.length && message[end] !== 0) end++;
    return { text: Buffer.from(message.subarray(from, end)).toString('utf8'), end };
  };
  const short = (sql: string) => sql.replace(/\s+/g, ' ').slice(0, 100);
  if (kind === 'Q') return `Q ${short(cstring(5).text)}`;
  if (kind === 'P') {
    const name = cstring(5);
    const sql = cstring(name.end + 1).text;
    if (name.text) preparedSql.set(name.text, sql);
    return `P ${short(sql)}`;
  }
  if (kind === 'B') {
    const portal = cstring(5);
    const statement = cstring(portal.end + 1).text;
    const sql = preparedSql.get(statement);
    return sql === undefined ? 'B' : `B ${short(sql)}`;
  }
  return kind;
}

type ProtocolCall = (m: Uint8Array, o?: unknown) => Promise<unknown>;
const proto = PGlite.prototype as unknown as Record<'execProtocolRaw' | 'execProtocolRawStream', ProtocolCall>;
// Every way a statement reaches the backend: execProtocolRaw (PGlite's own `query` and `exec`, and
// execProtocolStream, with which the prepared client of libs/platform/src/database/pglite-prepared.ts
// prepares), and execProtocolRawStream, with which that client runs Bind, Execute and Sync.
for (const method of ['execProtocolRaw', 'execProtocolRawStream'] as const) {
  const original = proto[method];
  proto[method] = async function (this: unknown, message: Uint8Array, options?: unknown) {
    const t = performance.now();
    try {
      return await original.call(this, message, options);
    } finally {
      const ms = since(t);
      pgliteMs += ms;
      const key = label(message);
      if (key === 'Q BEGIN') transactionOpenedAt = t;
      else if ((key === 'Q COMMIT' || key === 'Q ROLLBACK') && transactionOpenedAt !== undefined) {
        transactionOpenMs += performance.now() - transactionOpenedAt;
        transactionOpenedAt = undefined;
      }
      const s = stats.get(key) ?? { count: 0, ms: 0 };
      s.count++;
      s.ms += ms;
      stats.set(key, s);
    }
  };
}

function report(title: string, n: number, latencies: number[], wallMs: number, cpu: NodeJS.CpuUsage, call = 'remember'): void {
  const s = summarise(latencies);
  const cpuMs = (cpu.user + cpu.system) / 1000 / n;
  const loop = performance.eventLoopUtilization(loopAtPhaseStart);
  process.stdout.write(`\n## ${title}: ${n} ${call}s, ${(n / (wallMs / 1000)).toFixed(1)}/s, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms; process CPU ${cpuMs.toFixed(2)} ms per ${call}; PGlite ${(pgliteMs / n).toFixed(2)} ms per ${call}\n`);
  process.stdout.write(`event loop busy ${(100 * loop.utilization).toFixed(0)} % (${((loop.active / n)).toFixed(2)} ms per ${call}); a transaction open ${((100 * transactionOpenMs) / wallMs).toFixed(0)} % of the wall time (${(transactionOpenMs / n).toFixed(2)} ms per ${call})\n`);
  for (const [key, v] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) {
    process.stdout.write(`${(v.count / n).toFixed(2).padStart(6)} x ${(v.ms / n).toFixed(3).padStart(7)} ms  ${key}\n`);
  }
  stats.clear();
  pgliteMs = 0;
  transactionOpenMs = 0;
  loopAtPhaseStart = performance.eventLoopUtilization();
}

/**
 * Recalls each of `queries` once, one at a time, in the record of 2N memories the remembers filled, and
 * reports them like the remembers (PROFILE_CPU_RECALL=<file>: a V8 CPU profile of this phase).
 */
async function profileRecalls(api: ApiClient, agent: BenchAgent, queries: string[]): Promise<void> {
  for (const q of queries.slice(0, 5)) await api.recall(agent, `${q} (warm-up)`, 10);
  stats.clear();
  pgliteMs = 0;
  const profile = process.env.PROFILE_CPU_RECALL;
  const session = new Session();
  if (profile) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (const q of queries) {
    const s = performance.now();
    await api.recall(agent, q, 10);
    latencies.push(since(s));
  }
  const wall = since(t);
  const used = process.cpuUsage(cpu);
  if (profile) {
    const { profile: p } = await session.post('Profiler.stop');
    writeFileSync(profile, JSON.stringify(p));
    session.disconnect();
  }
  report('recall, 1 in flight', queries.length, latencies, wall, used, 'recall');
}

async function main(): Promise<void> {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url);
    await warmUp(api);
    const agent = await api.createAgent('remember-profile');
    const memories = generateMemories(2 * N, 7);
    stats.clear();
    pgliteMs = 0;
    transactionOpenMs = 0;
    loopAtPhaseStart = performance.eventLoopUtilization();
    const serial: number[] = [];
    let cpu = process.cpuUsage();
    let t = performance.now();
    for (let i = 0; i < N; i++) {
      const s = performance.now();
      await api.remember(agent, memories[i].content, `p/m${i}`);
      serial.push(since(s));
    }
    report('1 in flight', N, serial, since(t), process.cpuUsage(cpu));
    const concurrent: number[] = [];
    const profile = process.env.PROFILE_CPU;
    const session = new Session();
    if (profile) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    cpu = process.cpuUsage();
    t = performance.now();
    await runPool(Array.from({ length: N }, (_, i) => N + i), 8, async (i) => {
      const s = performance.now();
      await api.remember(agent, memories[i].content, `p/m${i}`);
      concurrent.push(since(s));
    });
    const wall = since(t);
    const used = process.cpuUsage(cpu);
    if (profile) {
      const { profile: cpu } = await session.post('Profiler.stop');
      writeFileSync(profile, JSON.stringify(cpu));
      session.disconnect();
    }
    report('8 in flight', N, concurrent, wall, used);
    await profileRecalls(api, agent, memories.slice(0, N).map((m) => m.query));
  } finally {
    await server.stop();
  }
}

void main();

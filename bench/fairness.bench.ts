/**
 * `npm run bench:fairness`: how much ten busy tenants slow down a bystander's recall (docs/configuration.md,
 * "Fairness between agents").
 *
 * One standalone service over HTTP, with the production rate limits ON (libs/testing's test server):
 * 1. ten writer agents, each with BENCH_RECORDS_PER_WRITER (default 3) records, send ~50 KB memories
 *    (no `type`, so each one is classified, summarised and embedded as up to 8 chunks) at up to
 *    BENCH_WRITES_PER_MINUTE per agent (default 84: under the 100/min per agent and, spread over the
 *    records, under the 30 writes/min per record), each with BENCH_IN_FLIGHT (default 1) writes in
 *    flight: the next write starts when an answer came back (and the pace allows), for BENCH_SECONDS
 *    (default 60);
 * 2. one bystander agent with 20 short memories in two records recalls once a second, the records in
 *    turn (a distinct query each time, so no cache can answer it), one call at a time; its latency is
 *    measured around the HTTP call;
 * 3. before the load, the bystander's idle recall is measured the same way (20 calls).
 * Prints bystander recall p50/p95/p99/max idle and under load, and the writers' outcomes per status.
 * MEMORY_WORK_* variables are passed to the service (to compare admission settings).
 */
import { ApiClient } from '@agent-memory/testing';
import { startStandaloneServer } from '@agent-memory/test-support';
import { seededRandom, summarise } from './lib/stats';
import { printTable } from './lib/table';

const WRITERS = Number(process.env.BENCH_WRITERS ?? 10);
const RECORDS_PER_WRITER = Number(process.env.BENCH_RECORDS_PER_WRITER ?? 3);
const WRITES_PER_MINUTE = Number(process.env.BENCH_WRITES_PER_MINUTE ?? 84);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const IN_FLIGHT_PER_WRITER = Number(process.env.BENCH_IN_FLIGHT ?? 1);
const MEMORY_BYTES = 50 * 1024;

const WORDS = (
  'project deadline meeting budget review customer invoice travel flight hotel garden recipe kitchen doctor appointment ' +
  'migration database release sprint holiday birthday present concert ticket library novel chapter invoice payment ' +
  'contract lawyer mortgage interest savings account bicycle repair weather forecast mountain river lake harbour ' +
  'engineer designer teacher student lecture exam grade language lesson guitar piano painting pottery camera lens'
).split(' ');

/** A ~50 KB text (at most {@link MEMORY_BYTES} bytes of UTF-8) of seeded pseudo-sentences, unique per seed. */
function bigMemory(seed: number): string {
  const random = seededRandom(seed);
  const parts: string[] = [`Note ${seed}.`];
  let bytes = parts[0].length;
  for (;;) {
    const n = 8 + Math.floor(random() * 12);
    const words = Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]);
    const sentence = ` ${words[0][0].toUpperCase()}${words.join(' ').slice(1)} ${seed % 1000}.`;
    if (bytes + sentence.length > MEMORY_BYTES - 16) break;
    parts.push(sentence);
    bytes += sentence.length;
  }
  return parts.join('');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  // MEMORY_WORK_* (admission control) pass through, to compare settings (docs/configuration.md).
  const passThrough = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('MEMORY_WORK_') && e[1] !== undefined));
  const server = await startStandaloneServer({ env: { RATE_LIMITS: 'on', LOG_LEVEL: 'fatal', ...passThrough } });
  const api = new ApiClient(server.url.replace(/\/$/, ''));
  try {
    const post = (path: string, key: string, body: unknown) => api.request('POST', path, { key, body });
    // The bystander: a few short memories to recall from; the first call also loads the model.
    const bystander = await api.createAgent({ name: 'bystander' });
    // Two records, recalled in turn: one recall a second stays under the 60 queries/min per record.
    const bystanderRecords = [bystander.recordId, ((await post('/api/v1/records', bystander.agentKey, { name: 'bystander 2' })).data as { id: string }).id];
    // `.data` throws unless the write succeeded
    for (let i = 0; i < 20; i++) void (await post(`/api/v1/records/${bystanderRecords[i % 2]}/remember`, bystander.agentKey, { content: `Bystander fact ${i}: ${WORDS[i]} and ${WORDS[i + 20]} on day ${i}.`, type: 'fact' })).data;
    let q = 0;
    const recallOnce = async (): Promise<number> => {
      const started = performance.now();
      const res = await post(`/api/v1/records/${bystanderRecords[q % 2]}/recall`, bystander.agentKey, { query: `what happened with ${WORDS[q % WORDS.length]} on day ${q++}?`, limit: 5 });
      if (res.status !== 200) throw new Error(`bystander recall answered ${res.status} ${res.code}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 3; i++) await recallOnce();
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) {
      idle.push(await recallOnce());
      await sleep(100);
    }

    const writers = await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const agent = await api.createAgent({ name: `writer ${w}` });
        const records = [agent.recordId];
        for (let r = 1; r < RECORDS_PER_WRITER; r++) records.push(((await post('/api/v1/records', agent.agentKey, { name: `writer ${w} record ${r}` })).data as { id: string }).id);
        return { key: agent.agentKey, records };
      }),
    );
    const outcomes = new Map<string, number>();
    const writeLatencies: number[] = [];
    const count = (label: string) => outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
    const deadline = performance.now() + SECONDS * 1000;
    const interval = 60_000 / WRITES_PER_MINUTE;
    let seed = 1;
    // Each writer: IN_FLIGHT loops that write back to back, paced together to at most WRITES_PER_MINUTE.
    const writerLoops = writers.flatMap((writer) => {
      let nextStart = performance.now();
      let n = 0;
      return Array.from({ length: IN_FLIGHT_PER_WRITER }, async () => {
        while (performance.now() < deadline) {
          const wait = nextStart - performance.now();
          nextStart = Math.max(nextStart, performance.now()) + interval;
          if (wait > 0) await sleep(wait);
          if (performance.now() >= deadline) break;
          const record = writer.records[n++ % writer.records.length];
          const started = performance.now();
          try {
            const res = await post(`/api/v1/records/${record}/remember`, writer.key, { content: bigMemory(seed++) });
            count(`${res.status}${res.code ? ` ${res.code}` : ''}`);
            if (res.status === 200) writeLatencies.push(performance.now() - started);
          } catch {
            count('network error');
          }
        }
      });
    });
    const loaded: number[] = [];
    const bystanderLoop = (async () => {
      await sleep(5_000); // let the writers' queues build up
      while (performance.now() < deadline) {
        const tick = performance.now();
        loaded.push(await recallOnce());
        await sleep(Math.max(0, 1000 - (performance.now() - tick)));
      }
    })();
    await Promise.all([...writerLoops, bystanderLoop]);

    const row = (label: string, values: number[]) => {
      const s = summarise(values);
      return [label, String(s.count), s.p50.toFixed(0), s.p95.toFixed(0), s.p99.toFixed(0), s.max.toFixed(0)];
    };
    console.log(`\nFairness: ${WRITERS} writers x ${IN_FLIGHT_PER_WRITER} in flight, at most ${WRITES_PER_MINUTE} writes/min of ${MEMORY_BYTES} B over ${RECORDS_PER_WRITER} records each, ${SECONDS} s, rate limits on\n`);
    printTable(['bystander recall (ms)', 'n', 'p50', 'p95', 'p99', 'max'], [row('idle', idle), row('under load', loaded)]);
    console.log('');
    printTable(['writer remember (ms, 200s)', 'n', 'p50', 'p95', 'p99', 'max'], [row('under load', writeLatencies)]);
    console.log('\nwriter outcomes: ' + [...outcomes].map(([k, v]) => `${k}: ${v}`).join(', '));
  } finally {
    await server.close({ removeData: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

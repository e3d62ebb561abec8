/**
 * `node -r @swc-node/register bench/cluster-hops.bench.ts`: where the cluster's extra recall latency goes.
 * A diagnostic beside `npm run bench:cluster` (which prints the gap itself), not a benchmark of record.
 *
 * Starts the test cluster (libs/testing's ClusterServer: every service its own process over NATS,
 * PostgreSQL, Redis, S3; RATE_LIMITS=off, BILLING_MODE=HOPS_BILLING_MODE, default `ledger`; `off` leaves
 * out the ledger write after each priced call), remembers HOPS_MEMORIES (default 100) synthetic memories
 * in one record, then times one call at a time, HOPS_CALLS (default 200) per row:
 *
 * 1. recall over HTTP: gateway, then memory (embedding, the vector-index process, PostgreSQL);
 * 2. the same recall as a bus request `memory.v1.recall` sent straight to the memory service;
 * 3. GET of the record over HTTP: gateway, then the records service;
 * 4. the same as a bus request `records.v1.get` (one PostgreSQL read through Prisma);
 * 5. a bare NATS request/reply of 2.8 KB between two nats.js connections on a private nats-server of the
 *    same binary (no service, no framework);
 * 6. a Redis GET on the cluster's Redis (ioredis), and 7. `SELECT 1` on its PostgreSQL database (pg).
 *
 * Row 1 minus row 2 is the gateway's own share of a recall; row 4 minus rows 5 and 7 is what one bus hop
 * costs beyond its transport and its query (client and service framework: signing, validation, Nest,
 * Prisma). Figures depend on the machine and vary by about ±1 ms between runs on the 2-core development
 * machine, shared by ~12 processes here: compare rows of one run.
 */
import 'reflect-metadata';
import { cpus } from 'node:os';
import { RecallResponseSchema, RecordSchema, SUBJECTS } from '@agent-memory/shared';
import { startNatsServer } from '@agent-memory/testing';
import { ClusterServer } from '@agent-memory/test-support';
import Redis from 'ioredis';
import { connect } from 'nats';
import { Client } from 'pg';
import { ApiClient } from './lib/client';
import { summarise } from './lib/stats';
import { printTable } from './lib/table';
import { generateMemories } from './synthetic-memories';

const MEMORIES = Number(process.env.HOPS_MEMORIES ?? 100);
const CALLS = Number(process.env.HOPS_CALLS ?? 200);

/** Latencies (ms) of `n` calls of `call`, one at a time. */
async function timed(n: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await call(i);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

async function main(): Promise<void> {
  process.stdout.write(`cluster-hops on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); ${MEMORIES} memories, ${CALLS} calls per row\n`);
  const cluster = await ClusterServer.start({ env: { RATE_LIMITS: 'off', LOG_LEVEL: 'warn', BILLING_MODE: process.env.HOPS_BILLING_MODE ?? 'ledger' } });
  const bare = await startNatsServer();
  try {
    const api = new ApiClient(cluster.url);
    const agent = await api.post<{ agentKey: string; recordId: string; agentId: string }>('/api/v1/agents', { name: 'cluster-hops' });
    const memories = generateMemories(MEMORIES, 5);
    for (const memory of memories) await api.remember(agent, memory.content);
    const question = (i: number, tag: string) => `${memories[i % memories.length].query} ${tag}${Math.floor(i / memories.length)}`;
    const bus = cluster.busClient();
    const [requester, responder] = await Promise.all([connect({ servers: bare.url }), connect({ servers: bare.url })]);
    const echo = responder.subscribe('cluster-hops.echo');
    void (async () => {
      for await (const message of echo) message.respond(message.data);
    })();
    await responder.flush();
    const redis = new Redis(cluster.redis.url);
    const pg = new Client({ connectionString: cluster.database.url });
    await pg.connect();
    const payload = new Uint8Array(2800).fill(120);
    const getRecord = async () => {
      const response = await fetch(`${cluster.url}/api/v1/records/${agent.recordId}`, { headers: { authorization: `Bearer ${agent.agentKey}` } });
      await response.arrayBuffer();
    };
    // Warm-up: the model, the connections, the gateway's caches (the second call with a key is cached).
    for (let i = 0; i < 5; i++) {
      await api.recall(agent, `warm-up ${i}`, 10);
      await getRecord();
    }
    const rows: [string, number[]][] = [];
    rows.push(['1. recall over HTTP (gateway, memory, vector-index, PostgreSQL)', await timed(CALLS, (i) => api.recall(agent, question(i, 'h'), 10))]);
    rows.push(['2. bus memory.v1.recall (memory, vector-index, PostgreSQL)', await timed(CALLS, (i) => bus.request(SUBJECTS.memory.recall, { agentId: agent.agentId, recordId: agent.recordId, body: { query: question(i, 'b'), limit: 10 } }, RecallResponseSchema))]);
    rows.push(['3. GET record over HTTP (gateway, records)', await timed(CALLS, getRecord)]);
    rows.push(['4. bus records.v1.get (one PostgreSQL read)', await timed(CALLS, () => bus.request(SUBJECTS.records.get, { agentId: agent.agentId, recordId: agent.recordId }, RecordSchema))]);
    rows.push(['5. bare NATS request/reply, 2.8 KB', await timed(CALLS, () => requester.request('cluster-hops.echo', payload, { timeout: 2000 }))]);
    rows.push(['6. Redis GET', await timed(CALLS, () => redis.get('cluster-hops:nothing'))]);
    rows.push(['7. PostgreSQL SELECT 1', await timed(CALLS, () => pg.query('SELECT 1'))]);
    const p50 = rows.map(([, latencies]) => summarise(latencies).p50);
    printTable(
      ['call', 'p50 ms', 'p95 ms', 'p99 ms'],
      rows.map(([name, latencies]) => {
        const s = summarise(latencies);
        return [name, s.p50, s.p95, s.p99];
      }),
      3,
    );
    process.stdout.write(`\ngateway's share of a recall (1 - 2): ${(p50[0] - p50[1]).toFixed(2)} ms; gateway's share of a GET (3 - 4): ${(p50[2] - p50[3]).toFixed(2)} ms\n`);
    process.stdout.write(`one bus hop beyond transport and query (4 - 5 - 7): ${(p50[3] - p50[4] - p50[6]).toFixed(2)} ms\n`);
    await Promise.all([requester.close(), responder.close(), pg.end()]);
    redis.disconnect();
  } finally {
    await bare.stop();
    await cluster.close({ removeData: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

import { ApiClient } from '@agent-memory/testing';
import { eventually, startStandaloneServer, type TestServer } from '@agent-memory/test-support';
import type { FairScheduler } from '@agent-memory/platform';
import { MEMORY_PRISMA, type MemoryPrismaClient } from '../../services/memory/src/persistence/prisma';
import { MEMORY_WORK_SCHEDULER } from '../../services/memory/src/use-cases/admission';

/**
 * Fairness between agents (docs/configuration.md, "Fairness between agents"): with one slot for expensive
 * work, a bystander's recall sent while busy agents have many large writes queued is served before the
 * busy agents' queued writes, not after all of them (FIFO). Asserted on the order in which the memory
 * service's scheduler starts the jobs (a write's model work is its one job; its save runs outside the
 * scheduler, concurrently with the next job, so HTTP completion order would say when saves end, not the
 * scheduler's order), not on time. Over HTTP, so the recall's own way through the gateway (which shares
 * the process and PGlite with the writes) counts too; a few writes may start meanwhile, hence the bound
 * of a quarter.
 * Standalone only: it watches the memory service's idempotency claims to know that the writes arrived.
 * The model runs on tfjs-wasm (EMBEDDER_RUNTIME=tfjs): the order is what is asserted, and it needs the
 * writes' model work to be slow enough that many of them still wait when the recall arrives; with the
 * native engine (5-8 times faster) too few do on a fast machine for the order to say anything.
 */
let server: TestServer;
let api: ApiClient;
beforeAll(async () => {
  server = await startStandaloneServer({
    env: { EMBEDDER_RUNTIME: 'tfjs', RATE_LIMITS: 'off', BUS_REQUEST_TIMEOUT_MS: '600000', MEMORY_WORK_CONCURRENCY: '1', MEMORY_WORK_PER_AGENT_CONCURRENCY: '1', MEMORY_WORK_PER_AGENT_QUEUE: '64' },
  });
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

/** Large writes of each of the 4 busy agents, and all of them. */
const WRITES_PER_AGENT = 8;
const WRITES = 4 * WRITES_PER_AGENT;

const WORDS = 'river harbour budget invoice garden lecture concert flight recipe doctor mortgage camera bicycle novel sprint'.split(' ');
/** About `bytes` of distinct pseudo-sentences (at least 8 embedding chunks of 1,000 characters). */
function largeMemory(seed: number, bytes = 9_000): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const sentence = `${WORDS[(seed + i) % WORDS.length]} ${WORDS[(seed * 7 + i * 3) % WORDS.length]} note ${seed}-${i} about ${WORDS[(i * 5) % WORDS.length]}. `;
    parts.push(sentence);
    length += sentence.length;
  }
  return parts.join('');
}

it('serves a bystander’s recall before the busy agents’ queued writes', async () => {
  const bystander = await api.createAgent({ name: 'bystander' });
  for (const content of ['The team meets on Thursdays.', 'The budget review is in March.']) {
    expect((await api.request('POST', `/api/v1/records/${bystander.recordId}/remember`, { key: bystander.agentKey, body: { content, type: 'fact' } })).status).toBe(200);
  }
  // Warm the model and the routes up, so the first busy write does not include the model load.
  expect((await api.request('POST', `/api/v1/records/${bystander.recordId}/recall`, { key: bystander.agentKey, body: { query: 'warm-up' } })).status).toBe(200);

  const busy = await Promise.all(Array.from({ length: 4 }, (_, i) => api.createAgent({ name: `busy ${i}` })));
  // The agent of each job the memory service's scheduler starts, in start order.
  const scheduler = server.app.get<FairScheduler>(MEMORY_WORK_SCHEDULER, { strict: false });
  const started: string[] = [];
  const run = scheduler.run.bind(scheduler);
  scheduler.run = ((agentId: string, cost: number, work: () => Promise<unknown>, options?: { admitted?: boolean }) =>
    run(agentId, cost, () => (started.push(agentId), work()), options)) as FairScheduler['run'];
  const completed: string[] = [];
  const writes = busy.flatMap((agent, a) =>
    Array.from({ length: WRITES_PER_AGENT }, async (_, k) => {
      const body = { content: largeMemory(a * 100 + k), idempotency_key: `busy-${a}-${k}` };
      const res = await api.request('POST', `/api/v1/records/${agent.recordId}/remember`, { key: agent.agentKey, body });
      expect(res.status).toBe(200);
      completed.push(`busy-${a}#${k}`);
    }),
  );
  // Each write claims its idempotency key before any model work: once all 32 claims exist, every write is
  // in the memory service, waiting for the model (or being embedded), and the recall comes after them.
  const prisma = server.app.get<MemoryPrismaClient>(MEMORY_PRISMA, { strict: false });
  await eventually(async () => expect(await prisma.memoryIdempotencyKey.count({ where: { key: { startsWith: 'busy-' } } })).toBe(WRITES), 60_000);
  const before = started.length;
  const recall = await api.request('POST', `/api/v1/records/${bystander.recordId}/recall`, { key: bystander.agentKey, body: { query: 'When does the team meet?' } });
  expect(recall.status).toBe(200);
  completed.push('bystander');
  await Promise.all(writes);

  expect(completed).toHaveLength(WRITES + 1);
  // Writes not started when the recall was sent that started before it: with first-come-first-served the
  // recall waits behind all of them; with fair queuing behind the job in progress and the few writes that
  // start while the recall passes the gateway (a trace showed the recall started right after the job in
  // progress when it reached the scheduler).
  expect(started.filter((agent) => agent !== bystander.agentId)).toHaveLength(WRITES);
  const writesBeforeRecall = started.indexOf(bystander.agentId, before) - before;
  const queuedWhenRecallArrived = WRITES - before;
  // The writes reach the scheduler over a few seconds while earlier ones run. The bound below needs enough
  // of them still waiting to mean something: with 24 writes, 7 to 11 waited on a slow 2-core machine, hence 32.
  expect(queuedWhenRecallArrived).toBeGreaterThanOrEqual(8);
  expect(writesBeforeRecall).toBeLessThanOrEqual(queuedWhenRecallArrived / 4);
}, 300_000);

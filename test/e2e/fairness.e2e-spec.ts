import { ApiClient, eventually, startStandaloneServer, type TestServer } from '@agent-memory/testing';
import { MEMORY_PRISMA, type MemoryPrismaClient } from '../../services/memory/src/persistence/prisma';

/**
 * Fairness between agents (docs/configuration.md, "Fairness between agents"): with one slot for expensive
 * work, a bystander's recall sent while busy agents have many large writes queued is served before the
 * busy agents' queued writes, not after all of them (FIFO). Asserted on completion order, not on time.
 * Over HTTP, so the recall's own way through the gateway (which shares the process and PGlite with the
 * writes) counts too; a few writes may finish meanwhile, hence the bound of a quarter.
 * Standalone only: it watches the memory service's idempotency claims to know that the writes arrived.
 */
let server: TestServer;
let api: ApiClient;
beforeAll(async () => {
  server = await startStandaloneServer({
    env: { RATE_LIMITS: 'off', BUS_REQUEST_TIMEOUT_MS: '600000', MEMORY_WORK_CONCURRENCY: '1', MEMORY_WORK_PER_AGENT_CONCURRENCY: '1', MEMORY_WORK_PER_AGENT_QUEUE: '64' },
  });
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

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
  const completed: string[] = [];
  const writes = busy.flatMap((agent, a) =>
    Array.from({ length: 6 }, async (_, k) => {
      const body = { content: largeMemory(a * 100 + k), idempotency_key: `busy-${a}-${k}` };
      const res = await api.request('POST', `/api/v1/records/${agent.recordId}/remember`, { key: agent.agentKey, body });
      expect(res.status).toBe(200);
      completed.push(`busy-${a}#${k}`);
    }),
  );
  // Each write claims its idempotency key before any model work: once all 24 claims exist, every write is
  // in the memory service, waiting for the model (or being embedded), and the recall comes after them.
  const prisma = server.app.get<MemoryPrismaClient>(MEMORY_PRISMA, { strict: false });
  await eventually(async () => expect(await prisma.memoryIdempotencyKey.count({ where: { key: { startsWith: 'busy-' } } })).toBe(24), 60_000);
  const before = completed.length;
  const recall = await api.request('POST', `/api/v1/records/${bystander.recordId}/recall`, { key: bystander.agentKey, body: { query: 'When does the team meet?' } });
  expect(recall.status).toBe(200);
  completed.push('bystander');
  await Promise.all(writes);

  expect(completed).toHaveLength(25);
  // Writes queued when the recall arrived that completed before it: with first-come-first-served the
  // recall waits behind all of them; with fair queuing behind the job in progress and the few writes that
  // finish while the recall passes the gateway (measured: 3 of 21; first come, first served: 9 of 20 to 12 of 12).
  const writesBeforeRecall = completed.indexOf('bystander') - before;
  const queuedWhenRecallArrived = 24 - before;
  expect(queuedWhenRecallArrived).toBeGreaterThanOrEqual(12);
  expect(writesBeforeRecall).toBeLessThanOrEqual(queuedWhenRecallArrived / 4);
}, 300_000);

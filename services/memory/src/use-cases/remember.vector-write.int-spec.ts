import 'reflect-metadata';
import { newId } from '@agent-memory/shared';
import type { HookedBlobStore } from '@agent-memory/testing';
import { DEFAULT_MEMORY_QUOTA } from '../persistence/memory-quota';
import type { MemoryPrismaClient } from '../persistence/prisma';
import type { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import { startMemoryReplicas } from './memory-replicas.fixture';
import type { RememberUseCase } from './remember.use-case';

/**
 * Where a remember writes a new memory's vector inside its transaction (MemoryRepository.saveRemember),
 * on the machine's PostgreSQL with the real embedder and embedded index: before the quota charge, which
 * locks the agent's usage row until COMMIT, so the agent's other writes do not wait through the index
 * write; a charge refused after it leaves no vector behind.
 */
describe('remember: a new memory\'s vector and the usage row', () => {
  let prisma: MemoryPrismaClient;
  let index: EmbeddedVectorIndex;
  let blobs: HookedBlobStore;
  let remember: RememberUseCase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const started = await startMemoryReplicas(1);
    ({ index, close, blobs } = started);
    ({ prisma, remember } = started.replicas[0]);
    await started.embedder.embed(['warm-up']);
  }, 120_000);
  afterAll(() => close?.());
  afterEach(() => jest.restoreAllMocks());

  it('the usage row is free while the vector is written; a quota charge refused after it rolls back and leaves no vector', async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    const first = await remember.execute({ agentId, recordId, body: { content: 'The loading dock opens at six.', type: 'fact' } });
    const upsert = index.upsert.bind(index);
    let usageUpdated: boolean | undefined;
    jest.spyOn(index, 'upsert').mockImplementationOnce(async (points) => {
      // Another session fills the agent's quota while this write's vector goes in. It would wait on the
      // usage row (and give up after the lock timeout) were the write's transaction holding it.
      usageUpdated = await prisma
        .$transaction(async (tx) => {
          await tx.$executeRaw`SET LOCAL lock_timeout = '2s'`;
          await tx.$executeRaw`UPDATE "memory"."agent_usage" SET memory_count = ${DEFAULT_MEMORY_QUOTA.maxMemories} WHERE agent_id = ${agentId}`;
        })
        .then(
          () => true,
          () => false,
        );
      await upsert(points);
    });
    await expect(remember.execute({ agentId, recordId, body: { content: 'Visitors sign in at the east gate.', type: 'fact' } })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(usageUpdated).toBe(true);
    expect((await prisma.memory.findMany({ where: { recordId }, select: { id: true } })).map((r) => r.id)).toEqual([first.result.id]);
    // the refused write's vector (under its fresh id) was deleted: only the first memory's is left
    expect(await index.count(recordId)).toBe(1);
  }, 60_000);

  it('any error inside the transaction after the vector write (here the index answering an error after applying it) rolls back, and the vector and blob are deleted', async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    const first = await remember.execute({ agentId, recordId, body: { content: 'The canteen closes at three.', type: 'fact' } });
    const upsert = index.upsert.bind(index);
    jest.spyOn(index, 'upsert').mockImplementationOnce(async (points) => {
      await upsert(points);
      throw new Error('index connection reset');
    });
    await expect(remember.execute({ agentId, recordId, body: { content: 'The canteen opens at eight.', type: 'fact' } })).rejects.toThrow('index connection reset');
    expect((await prisma.memory.findMany({ where: { recordId }, select: { id: true } })).map((r) => r.id)).toEqual([first.result.id]);
    expect(await index.count(recordId)).toBe(1);
    expect(await blobs.list(`records/${recordId}/`)).toHaveLength(1);
  }, 60_000);
});

import 'reflect-metadata';
import { newId } from '@agent-memory/shared';
import type { MemoryPrismaClient } from '../persistence/prisma';
import type { PrismaMemoryRepository } from '../persistence/prisma-memory.repository';
import type { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import { startMemoryReplicas } from './memory-replicas.fixture';
import type { RememberUseCase } from './remember.use-case';

/**
 * Where a remember writes the memory's own vector (remember.use-case.ts), on the machine's PostgreSQL with
 * the real embedder and embedded index: a new memory's just before its transaction, under its fresh id, so
 * that no row lock waits on the index; a replace's inside its transaction, under the existing id. A write
 * that finds a row at its path only under the lock, or whose record was deleted, leaves no vector behind.
 */
describe('remember: the vector write and the transaction', () => {
  let prisma: MemoryPrismaClient;
  let repository: PrismaMemoryRepository;
  let index: EmbeddedVectorIndex;
  let remember: RememberUseCase;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const started = await startMemoryReplicas(1);
    ({ index, close } = started);
    ({ prisma, remember, repository } = started.replicas[0]);
    await started.embedder.embed(['warm-up']);
  }, 120_000);
  afterAll(() => close?.());
  afterEach(() => jest.restoreAllMocks());

  const rows = (recordId: string) => prisma.memory.findMany({ where: { recordId }, select: { id: true, path: true } });

  it("a new memory's vector is written before its transaction: the agent's usage row is not locked meanwhile, and the row follows", async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    await remember.execute({ agentId, recordId, body: { content: 'The loading dock opens at six.', type: 'fact' } });
    const upsert = index.upsert.bind(index);
    const seen: { rowsDuring: number; usageLockFree: boolean }[] = [];
    jest.spyOn(index, 'upsert').mockImplementation(async (points) => {
      // Another session takes the agent's usage row at once (NOWAIT): it would fail were the write's
      // transaction holding it (its quota charge locks that row until COMMIT).
      const usageLockFree = await prisma
        .$transaction((tx) => tx.$queryRaw`SELECT agent_id FROM "memory"."agent_usage" WHERE agent_id = ${agentId} FOR UPDATE NOWAIT`)
        .then(
          () => true,
          () => false,
        );
      seen.push({ rowsDuring: (await rows(recordId)).length, usageLockFree });
      await upsert(points);
    });
    const { result } = await remember.execute({ agentId, recordId, body: { content: 'Visitors sign in at the east gate.', type: 'fact' } });
    expect(seen[0]).toEqual({ rowsDuring: 1, usageLockFree: true });
    expect((await rows(recordId)).map((r) => r.id)).toContain(result.id);
    expect(await index.count(recordId)).toBe(2);
  }, 60_000);

  it('a replace writes its vector inside the transaction, under the existing id; no vector is left under its fresh id', async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    const first = await remember.execute({ agentId, recordId, body: { content: 'The meeting room is on floor two.', type: 'fact', path: 'facts/room' } });
    const upserted: string[] = [];
    const upsert = index.upsert.bind(index);
    jest.spyOn(index, 'upsert').mockImplementation(async (points) => {
      upserted.push(...points.map((p) => p.id));
      await upsert(points);
    });
    const second = await remember.execute({ agentId, recordId, body: { content: 'The meeting room moved to floor three.', type: 'fact', path: 'facts/room' } });
    expect(second.result.id).toBe(first.result.id);
    expect(upserted[0]).toBe(first.result.id);
    expect(await rows(recordId)).toEqual([{ id: first.result.id, path: 'facts/room' }]);
    expect(await index.count(recordId)).toBe(1);
  }, 60_000);

  it('a row that appears at the path after the quota view is replaced in place, and the vector written under the fresh id is deleted', async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    const first = await remember.execute({ agentId, recordId, body: { content: 'The printer on floor one needs toner.', type: 'fact', path: 'facts/printer' } });
    // The quota view does not see the row (as when another replica wrote it a moment after the view).
    const view = repository.quotaView.bind(repository);
    jest.spyOn(repository, 'quotaView').mockImplementationOnce(async (...args) => ({ ...(await view(...args)), existing: null }));
    const second = await remember.execute({ agentId, recordId, body: { content: 'The printer on floor one was replaced.', type: 'fact', path: 'facts/printer' } });
    expect(second.result.id).toBe(first.result.id);
    expect(await rows(recordId)).toEqual([{ id: first.result.id, path: 'facts/printer' }]);
    expect(await index.count(recordId)).toBe(1);
  }, 60_000);

  it("a remember into a record deleted meanwhile answers NOT_FOUND and leaves no vector: the record's tenant goes", async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    await prisma.$executeRaw`INSERT INTO "memory"."deleted_records" (record_id) VALUES (${recordId})`;
    const deleteTenant = jest.spyOn(index, 'deleteTenant');
    await expect(remember.execute({ agentId, recordId, body: { content: 'The archive closes at noon.', type: 'fact' } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(deleteTenant).toHaveBeenCalledWith(recordId);
    expect(await rows(recordId)).toEqual([]);
    expect(await index.count(recordId)).toBe(0);
  }, 60_000);
});

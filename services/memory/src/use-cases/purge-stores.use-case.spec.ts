import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobData, JobName } from '@agent-memory/shared';
import { FilesystemBlobStore, InProcessJobQueue, PURGE_RETRY, type RetryPolicy } from '@agent-memory/platform';
import { openEmbeddedTestPrisma } from '@agent-memory/testing';
import type { MemoryRepository, PurgeTask } from '../persistence/memory.repository';
import { PrismaMemoryRepository } from '../persistence/prisma-memory.repository';
import { type MemoryPrismaClient, openMemoryPrisma } from '../persistence/prisma';
import type { VectorIndex } from '../vector-index/vector-index.port';
import type { ContextualIndexer } from './contextual-indexer';
import { PurgeStoresUseCase } from './purge-stores.use-case';

/** Two quick tries, so that a purge job dead-letters within the test; records the policy the use case asked for. */
const SHORT_RETRY: RetryPolicy = { attempts: 2, backoffMs: 10, maxBackoffMs: 10 };
class ShortRetryQueue extends InProcessJobQueue {
  requested?: RetryPolicy;
  override process<N extends JobName>(name: N, handler: (data: JobData<N>) => Promise<void>, retry?: RetryPolicy): void {
    this.requested = retry;
    super.process(name, handler, SHORT_RETRY);
  }
}

/** Vector index whose deletes fail while `failing` (Qdrant or the vector-index service down). */
function flakyIndex(): VectorIndex & { failing: boolean; deleted: string[] } {
  const index = {
    failing: false,
    deleted: [] as string[],
    async delete(_tenant: string, ids: readonly string[]) {
      if (index.failing) throw new Error('vector index unavailable');
      index.deleted.push(...ids);
    },
    async deleteTenant() {
      if (index.failing) throw new Error('vector index unavailable');
    },
    async compact() {},
  };
  return index as unknown as VectorIndex & { failing: boolean; deleted: string[] };
}

describe('PurgeStoresUseCase sweep (PGlite purge tasks, in-process queue)', () => {
  let close: () => Promise<void>;
  let prisma: MemoryPrismaClient;
  let dir: string;
  beforeAll(async () => {
    ({ prisma, close } = await openEmbeddedTestPrisma(openMemoryPrisma));
    dir = mkdtempSync(join(tmpdir(), 'am-purge-sweep-'));
  }, 60_000);
  afterAll(async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('re-queues a task whose job dead-lettered during an outage; it completes once the index works', async () => {
    const tasks = new Map<string, PurgeTask>();
    const repository = {
      findPurge: async (id: string) => tasks.get(id) ?? null,
      pendingPurges: async () => [...tasks.values()],
      purgesCreatedBefore: (before: Date, limit: number) => new PrismaMemoryRepository(prisma).purgesCreatedBefore(before, limit),
      completePurge: async (id: string) => {
        tasks.delete(id);
        await prisma.memoryPurgeTask.deleteMany({ where: { id } });
      },
    } as unknown as MemoryRepository;
    const index = flakyIndex();
    const blobs = new FilesystemBlobStore(join(dir, 'blobs'));
    const jobs = new ShortRetryQueue();
    const purge = new PurgeStoresUseCase(repository, index, blobs, jobs);
    await purge.start(60_000);
    expect(jobs.requested).toEqual(PURGE_RETRY);

    const task: PurgeTask = { id: 'prg_sweep', recordId: 'rec_1', memoryId: 'mem_1', blobKeys: ['records/rec_1/memories/mem_1'] };
    await prisma.memoryPurgeTask.create({ data: { ...task, createdAt: new Date(Date.now() - 3 * 60_000) } });
    tasks.set(task.id, task);
    await blobs.put(task.blobKeys[0], Buffer.from('m'));

    index.failing = true;
    expect(await purge.runOrQueue(task)).toBe(false);
    await jobs.drain();
    expect(await jobs.failed()).toHaveLength(1);

    index.failing = false;
    expect(await purge.sweepPending()).toBe(1);
    await jobs.drain();
    expect(tasks.size).toBe(0);
    expect(index.deleted).toEqual(['mem_1']);
    expect(await blobs.get(task.blobKeys[0])).toBeNull();
    expect(await purge.sweepPending()).toBe(0);
    await purge.stop();
    await purge.flushCompaction();
    await jobs.close();
  });

  it('a forget\'s task finishes its erasure, then re-indexes the record\'s stale borrowers; a context-only task deletes nothing; both stay pending until the re-index succeeds', async () => {
    const tasks = new Map<string, PurgeTask>();
    const steps: string[] = [];
    const repository = {
      findPurge: async (id: string) => tasks.get(id) ?? null,
      completePurge: async (id: string) => void tasks.delete(id),
      erasurePurged: async (id: string) => {
        steps.push(`erased ${id}`);
        const task = tasks.get(id);
        if (task) tasks.set(id, { ...task, contextOnly: true, blobKeys: [] });
      },
    } as unknown as MemoryRepository;
    const index = flakyIndex();
    const blobs = new FilesystemBlobStore(join(dir, 'blobs-context'));
    const repaired: Array<[string, readonly string[] | undefined]> = [];
    let repairFails = true;
    const contextual = {
      repairStale: async (recordId: string, only?: readonly string[]) => {
        steps.push(`repair ${recordId}`);
        if (repairFails) throw new Error('blob store down');
        repaired.push([recordId, only]);
        return 1;
      },
    } as unknown as ContextualIndexer;
    const jobs = new InProcessJobQueue();
    const purge = new PurgeStoresUseCase(repository, index, blobs, jobs, undefined, contextual);
    const forgetTask: PurgeTask = { id: 'prg_forget', recordId: 'rec_f', memoryId: 'mem_lender', blobKeys: ['records/rec_f/memories/mem_lender/x'] };
    const replaceTask: PurgeTask = { id: 'prg_replace', recordId: 'rec_r', memoryId: 'mem_replaced', blobKeys: [], contextOnly: true };
    await blobs.put(forgetTask.blobKeys[0], Buffer.from('lender'));
    for (const task of [forgetTask, replaceTask]) tasks.set(task.id, task);

    expect(await purge.runOrQueue({ ...forgetTask, borrowers: ['mem_b'] })).toBe(false);
    expect(await purge.runOrQueue(replaceTask)).toBe(false);
    // The forgotten memory's vector and blobs are gone even though the re-index failed, and the erasure is
    // recorded before the re-index starts (the task turned context-only); the tasks remain.
    expect(steps).toEqual(['erased prg_forget', 'repair rec_f', 'repair rec_r']);
    expect(index.deleted).toEqual(['mem_lender']);
    expect(await blobs.get(forgetTask.blobKeys[0])).toBeNull();
    expect([...tasks.keys()].sort()).toEqual(['prg_forget', 'prg_replace']);
    expect(tasks.get('prg_forget')).toMatchObject({ contextOnly: true, blobKeys: [] });

    // Retried as read back from the table: only the re-index is left, of every stale memory of the record.
    repairFails = false;
    expect(await purge.runOrQueue(tasks.get('prg_forget')!)).toBe(true);
    expect(await purge.runOrQueue(tasks.get('prg_replace')!)).toBe(true);
    expect(repaired).toEqual([['rec_f', undefined], ['rec_r', undefined]]);
    expect(tasks.size).toBe(0);
    expect(index.deleted).toEqual(['mem_lender']);

    // Inline with the borrowers the forget marked: only those; none marked: no re-index, completed at once.
    const inline: PurgeTask = { id: 'prg_inline', recordId: 'rec_i', memoryId: 'mem_i', blobKeys: [], borrowers: ['mem_s'] };
    const alone: PurgeTask = { id: 'prg_alone', recordId: 'rec_a', memoryId: 'mem_a', blobKeys: [], borrowers: [] };
    for (const task of [inline, alone]) tasks.set(task.id, task);
    expect(await purge.runOrQueue(inline)).toBe(true);
    expect(await purge.runOrQueue(alone)).toBe(true);
    expect(repaired.slice(2)).toEqual([['rec_i', ['mem_s']]]);
    expect(tasks.size).toBe(0);
    await purge.flushCompaction();
    await jobs.close();
  });

  it('deletes memory idempotency keys past TTL + 1 h, and pending ones a day old', async () => {
    const now = Date.now();
    const hoursAgo = (h: number): Date => new Date(now - h * 3600_000);
    await prisma.memoryIdempotencyKey.createMany({
      data: [
        { recordId: 'rec_1', key: 'completed-26h', requestHash: 'h', status: 'completed', createdAt: hoursAgo(26) },
        { recordId: 'rec_1', key: 'completed-24.5h', requestHash: 'h', status: 'completed', createdAt: hoursAgo(24.5) },
        { recordId: 'rec_1', key: 'pending-24.5h', requestHash: 'h', status: 'pending', createdAt: hoursAgo(24.5) },
        { recordId: 'rec_1', key: 'pending-1h', requestHash: 'h', status: 'pending', createdAt: hoursAgo(1) },
      ],
    });
    expect(await new PrismaMemoryRepository(prisma).idempotency.deleteExpired(now)).toBe(2);
    const left = (await prisma.memoryIdempotencyKey.findMany({ orderBy: { key: 'asc' } })).map((k) => k.key);
    expect(left).toEqual(['completed-24.5h', 'pending-1h']);
  });
});

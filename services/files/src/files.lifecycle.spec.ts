import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobData, JobName } from '@agent-memory/shared';
import { FilesystemBlobStore, InProcessJobQueue, type JobQueue, type RetryPolicy } from '@agent-memory/platform';
import { openEmbeddedTestPrisma } from '@agent-memory/testing';
import { assembleFiles } from './files-replicas.fixture';
import { type FilesPrismaClient, openFilesPrisma } from './persistence/prisma';

/** Two quick tries, so that a purge job dead-letters within the test. */
const SHORT_RETRY: RetryPolicy = { attempts: 2, backoffMs: 10, maxBackoffMs: 10 };
class ShortRetryQueue extends InProcessJobQueue {
  override process<N extends JobName>(name: N, handler: (data: JobData<N>) => Promise<void>): void {
    super.process(name, handler, SHORT_RETRY);
  }
}

/** A filesystem blob store whose deletes fail while `failing` (an S3 outage). */
class FlakyBlobs extends FilesystemBlobStore {
  failing = false;
  override async deletePrefix(prefix: string): Promise<void> {
    if (this.failing) throw new Error('S3 unavailable');
    return super.deletePrefix(prefix);
  }
}

describe('FilesLifecycle (PGlite, in-process queue)', () => {
  let close: () => Promise<void>;
  let prisma: FilesPrismaClient;
  let dir: string;
  beforeAll(async () => {
    ({ prisma, close } = await openEmbeddedTestPrisma(openFilesPrisma));
    dir = mkdtempSync(join(tmpdir(), 'am-files-upkeep-'));
  }, 60_000);
  afterAll(async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the sweep re-queues a purge whose job dead-lettered during an outage; it completes once the store works', async () => {
    const blobs = new FlakyBlobs(join(dir, 'blobs'));
    const jobs = new ShortRetryQueue();
    const files = assembleFiles(prisma, blobs, jobs);
    await files.purge.resume();
    await blobs.put('records/rec_sweep/files/a/1', Buffer.from('x'));

    blobs.failing = true;
    await files.purgeRecord.execute({ eventId: 'evt_1', agentId: 'agt_1', recordIds: ['rec_sweep'], deletedAt: new Date().toISOString() });
    await jobs.drain();
    expect(await jobs.failed()).toHaveLength(1);
    expect(await prisma.filePurgeTask.count()).toBe(1);
    // a fresh task is left to its own job; only tasks older than the minimum age are swept
    expect(await files.purge.sweepPending()).toBe(0);

    blobs.failing = false;
    expect(await files.purge.sweepPending(0)).toBe(1);
    await jobs.drain();
    expect(await prisma.filePurgeTask.count()).toBe(0);
    expect(await blobs.list('records/rec_sweep/')).toEqual([]);
    await jobs.close();
  });

  it('the periodic sweep runs where jobs run, not on a producer-only queue', async () => {
    await prisma.filePurgeTask.create({ data: { id: 'evt_2:rec_2', recordId: 'rec_2', createdAt: new Date(Date.now() - 3 * 60_000) } });
    const enqueued: unknown[] = [];
    const queue = (runsJobs: boolean): JobQueue => ({
      runsJobs,
      enqueue: async (name, data) => void enqueued.push({ name, data }),
      process: () => undefined,
      drain: async () => undefined,
      failed: async () => [],
      close: async () => undefined,
    });
    for (const runsJobs of [false, true]) {
      const { lifecycle } = assembleFiles(prisma, new FilesystemBlobStore(join(dir, 'blobs')), queue(runsJobs));
      lifecycle.start(20, 60_000);
      await new Promise((r) => setTimeout(r, 120));
      await lifecycle.onApplicationShutdown();
      expect(enqueued.length > 0).toBe(runsJobs);
    }
    expect(enqueued[0]).toEqual({ name: 'files.purge-record', data: { recordId: 'rec_2', eventId: 'evt_2:rec_2' } });
    await prisma.filePurgeTask.deleteMany({});
  });

  it('deletes idempotency keys past TTL + 1 h, and pending ones a day old, in one statement', async () => {
    const now = Date.now();
    const hoursAgo = (h: number): Date => new Date(now - h * 3600_000);
    await prisma.fileIdempotencyKey.createMany({
      data: [
        { recordId: 'rec_1', key: 'completed-26h', requestHash: 'h', status: 'completed', createdAt: hoursAgo(26) },
        { recordId: 'rec_1', key: 'completed-24.5h', requestHash: 'h', status: 'completed', createdAt: hoursAgo(24.5) },
        { recordId: 'rec_1', key: 'pending-24.5h', requestHash: 'h', status: 'pending', createdAt: hoursAgo(24.5) },
        { recordId: 'rec_1', key: 'pending-1h', requestHash: 'h', status: 'pending', createdAt: hoursAgo(1) },
        { recordId: 'rec_1', key: 'completed-now', requestHash: 'h', status: 'completed', createdAt: new Date(now) },
      ],
    });
    const { repository } = assembleFiles(prisma, new FilesystemBlobStore(join(dir, 'blobs')), new InProcessJobQueue());
    expect(await repository.idempotency.deleteExpired(now)).toBe(2);
    const left = (await prisma.fileIdempotencyKey.findMany({ orderBy: { key: 'asc' } })).map((k) => k.key);
    expect(left).toEqual(['completed-24.5h', 'completed-now', 'pending-1h']);
  });
});

import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, JOB_QUEUE, type JobQueue } from '@agent-memory/platform';
import { MemoryRepository, type PurgeTask } from '../persistence/memory.repository';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';

/**
 * Runs purge tasks against the vector index and the blob store (spec, "Forget": removed from object
 * storage, the vector index and the write logs). A task is deleted only once every store is clean; on
 * failure it is retried by the job queue, and tasks left by a crash are resumed at start-up.
 */
@Injectable()
export class PurgeStoresUseCase {
  private readonly logger = new Logger(PurgeStoresUseCase.name);
  private compactTimer?: NodeJS.Timeout;

  constructor(
    private readonly repository: MemoryRepository,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
  ) {}

  /** Registers the job handler and re-queues every pending task (call once at start-up). */
  async start(): Promise<void> {
    this.jobs.process('memory.purge', async ({ taskId }) => {
      const task = await this.repository.findPurge(taskId);
      if (task) await this.run(task);
    });
    for (const task of await this.repository.pendingPurges()) {
      await this.jobs.enqueue('memory.purge', { taskId: task.id }, { jobId: task.id });
    }
  }

  /** Purges now; if a store fails, queues the task for retry instead of throwing. Returns true when clean. */
  async runOrQueue(task: PurgeTask): Promise<boolean> {
    try {
      await this.run(task);
      return true;
    } catch (err) {
      this.logger.warn({ taskId: task.id, err }, 'Purge failed; queued for retry');
      await this.jobs.enqueue('memory.purge', { taskId: task.id }, { jobId: task.id });
      return false;
    }
  }

  private async run(task: PurgeTask): Promise<void> {
    if (task.memoryId) {
      await this.index.delete(task.recordId, [task.memoryId]);
      await this.blobs.delete(task.blobKeys);
    } else {
      await this.index.deleteTenant(task.recordId);
      await this.blobs.deletePrefix(`records/${task.recordId}/memories/`);
    }
    await this.repository.completePurge(task.id);
    this.scheduleCompaction();
  }

  /** Deleted vectors leave the disk within seconds of a purge; bursts of forgets share one compaction. */
  private scheduleCompaction(): void {
    clearTimeout(this.compactTimer);
    this.compactTimer = setTimeout(() => {
      this.index.compact().catch((err: unknown) => this.logger.error({ err }, 'Vector index compaction failed'));
    }, COMPACTION_DELAY_MS);
    this.compactTimer.unref();
  }

  /** Runs a pending compaction now (at shutdown, before the index closes). */
  async flushCompaction(): Promise<void> {
    if (this.compactTimer) {
      clearTimeout(this.compactTimer);
      this.compactTimer = undefined;
      await this.index.compact();
    }
  }
}

/** Delay between the last purge of a burst and the compaction that erases the deleted vectors from disk. */
export const COMPACTION_DELAY_MS = 2_000;

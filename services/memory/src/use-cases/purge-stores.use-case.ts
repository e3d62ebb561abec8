import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, JOB_QUEUE, type JobQueue, PURGE_RETRY, PURGE_SWEEP, type PeriodicTask, startPeriodicTask } from '@agent-memory/platform';
import { MemoryMaintenanceRepository } from '../persistence/memory-maintenance.repository';
import { MEMORY_RECLAIM, type MemoryReclaim } from '../persistence/memory-reclaim';
import { MemoryRepository, type PurgeTask } from '../persistence/memory.repository';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';

/**
 * Runs purge tasks against the vector index and the blob store (spec, "Forget": removed from object
 * storage, the vector index and the write logs). A task is deleted only once every store is clean; on
 * failure it is retried by the job queue ({@link PURGE_RETRY}: about a week), tasks left by a crash are
 * resumed at start-up, and where jobs run a sweep re-queues every task older than 2 minutes each minute
 * ({@link PURGE_SWEEP}), so no outage or lost job strands a purge.
 */
@Injectable()
export class PurgeStoresUseCase {
  private readonly logger = new Logger(PurgeStoresUseCase.name);
  private compactTimer?: NodeJS.Timeout;
  private sweep?: PeriodicTask;

  constructor(
    private readonly repository: MemoryRepository,
    private readonly maintenance: MemoryMaintenanceRepository,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    /** Rewrites the memory tables after purges, so no dead row keeps forgotten text (absent in unit tests). */
    @Optional() @Inject(MEMORY_RECLAIM) private readonly reclaim?: MemoryReclaim,
  ) {}

  /**
   * Registers the job handler, re-queues every pending task and, where jobs run, starts the periodic
   * sweep (call once at start-up; `sweepIntervalMs` is for tests).
   */
  async start(sweepIntervalMs: number = PURGE_SWEEP.intervalMs): Promise<void> {
    this.jobs.process(
      'memory.purge',
      async ({ taskId }) => {
        const task = await this.repository.findPurge(taskId);
        if (task) await this.run(task);
      },
      PURGE_RETRY,
    );
    try {
      for (const task of await this.repository.pendingPurges()) {
        await this.jobs.enqueue('memory.purge', { taskId: task.id }, { jobId: task.id });
      }
    } catch (err) {
      this.logger.warn({ err }, 'Could not re-queue pending purges at start-up; the purge sweep will');
    }
    if (this.jobs.runsJobs !== false) this.sweep = startPeriodicTask('memory-purge-sweep', sweepIntervalMs, () => this.sweepPending(), this.logger);
  }

  /**
   * Enqueues every purge task created more than `minAgeMs` ago (job id = task id, so a waiting or retrying
   * job absorbs it and a dead-lettered one is replaced). Returns how many were enqueued; stops at the
   * first enqueue failure (the queue is down: the next sweep tries again).
   */
  async sweepPending(minAgeMs: number = PURGE_SWEEP.minAgeMs): Promise<number> {
    const ids = await this.maintenance.purgeTaskIdsCreatedBefore(new Date(Date.now() - minAgeMs));
    for (const id of ids) await this.jobs.enqueue('memory.purge', { taskId: id }, { jobId: id });
    return ids.length;
  }

  /** Stops the sweep (at shutdown, before the job queue closes). */
  async stop(): Promise<void> {
    await this.sweep?.stop();
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
    this.reclaim?.request();
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

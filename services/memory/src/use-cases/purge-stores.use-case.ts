import { Inject, Injectable, Optional } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, JOB_QUEUE, type JobQueue, RecordPurges } from '@agent-memory/platform';
import { MEMORY_RECLAIM, type MemoryReclaim } from '../persistence/memory-reclaim';
import { MemoryRepository, type PurgeTask } from '../persistence/memory.repository';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';
import { ContextualIndexer } from './contextual-indexer';

/**
 * Runs purge tasks against the vector index and the blob store (docs/api.md, "Forget": removed from
 * object storage, the vector index and the write logs). A task is deleted only once every store is clean;
 * retries, start-up resumption and the periodic sweep are the shared {@link RecordPurges} it extends (job
 * `memory.purge`, payload `{ taskId }`; docs/architecture.md, "Record deletion"). A forget's task then
 * re-indexes the record's memories that borrowed context from the forgotten one (marked stale by the
 * forget; `ContextualIndexer.repairStale`), after its erasure is finished and recorded (the task becomes
 * context-only); a context-only task (a replaced lender) does only that.
 */
@Injectable()
export class PurgeStoresUseCase extends RecordPurges<'memory.purge', PurgeTask> {
  private compactTimer?: NodeJS.Timeout;

  constructor(
    private readonly repository: MemoryRepository,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) jobs: JobQueue,
    /** Rewrites the memory tables after purges, so no dead row keeps forgotten text (absent in unit tests). */
    @Optional() @Inject(MEMORY_RECLAIM) private readonly reclaim?: MemoryReclaim,
    /** Re-indexes stale borrowers (contextual indexing; absent in unit tests). */
    @Optional() private readonly contextual?: ContextualIndexer,
  ) {
    super(jobs, {
      sweepName: 'memory-purge-sweep',
      job: 'memory.purge',
      jobData: (task) => ({ taskId: task.id }),
      taskOfJob: ({ taskId }) => repository.findPurge(taskId),
      table: repository,
    });
  }

  /**
   * A forget's erasure (vector, blobs) comes first and is finished (the task turned context-only, compaction
   * and reclaim scheduled) before any re-index, so erasure never waits on one; then the stale borrowers are
   * re-indexed: `task.borrowers` only when given (the inline run), else every stale memory of the record.
   * Throws when a store fails (the job retries what is left).
   */
  protected async run(task: PurgeTask): Promise<void> {
    if (!task.contextOnly) {
      if (task.memoryId) {
        await this.index.delete(task.recordId, [task.memoryId]);
        await this.blobs.delete(task.blobKeys);
      } else {
        await this.index.deleteTenant(task.recordId);
        await this.blobs.deletePrefix(`records/${task.recordId}/memories/`);
      }
      const repairs = task.memoryId !== null && this.contextual !== undefined && (task.borrowers === undefined || task.borrowers.length > 0);
      if (repairs) await this.repository.erasurePurged(task.id);
      else await this.repository.completePurge(task.id);
      this.scheduleCompaction();
      this.reclaim?.request();
      if (!repairs) return;
    }
    await this.contextual?.repairStale(task.recordId, task.borrowers);
    await this.repository.completePurge(task.id);
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

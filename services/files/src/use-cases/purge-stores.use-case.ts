import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, JOB_QUEUE, type JobQueue, PURGE_SWEEP, type ReclaimScheduler, RecordPurges } from '@agent-memory/platform';
import { type FilePurgeTask, FilesRepository } from '../persistence/files.repository';
import { FILES_RECLAIM } from '../persistence/files-reclaim';
import { filesPrefix, rawPrefix } from './file-blobs';

/**
 * Purges a deleted record's files and raw blobs from the blob store, then deletes its purge tasks and asks
 * for a rewrite of the files tables. Retries, start-up resumption and the periodic sweep are the shared
 * {@link RecordPurges} (job `files.purge-record`, payload `{ recordId, eventId: <task id> }`;
 * docs/architecture.md, "Record deletion").
 */
@Injectable()
export class PurgeStoresUseCase {
  private readonly purges: RecordPurges<'files.purge-record', FilePurgeTask>;

  constructor(
    private readonly repository: FilesRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) jobs: JobQueue,
    /** Rewrites the files tables after a record's purge, so no dead row keeps its paths (docs/deployment.md). */
    @Optional() @Inject(FILES_RECLAIM) private readonly reclaim?: ReclaimScheduler,
  ) {
    this.purges = new RecordPurges(
      jobs,
      {
        sweepName: 'files-purge-sweep',
        job: 'files.purge-record',
        jobData: (task) => ({ recordId: task.recordId, eventId: task.id }),
        taskOfJob: async ({ recordId, eventId }) => ({ id: eventId, recordId }),
        table: repository,
        run: (task) => this.run(task),
      },
      new Logger(PurgeStoresUseCase.name),
    );
  }

  /** Registers the job handler and re-queues every pending task (at start-up). */
  resume(): Promise<void> {
    return this.purges.resume();
  }

  /** Starts the periodic sweep where jobs run (`intervalMs` is for tests). */
  startSweep(intervalMs: number = PURGE_SWEEP.intervalMs): void {
    this.purges.startSweep(intervalMs);
  }

  /** Enqueues a purge job for every task created more than `minAgeMs` ago (at most 1,000 a pass); returns how many. */
  sweepPending(minAgeMs: number = PURGE_SWEEP.minAgeMs): Promise<number> {
    return this.purges.sweepPending(minAgeMs);
  }

  /** Stops the sweep (at shutdown, before the job queue closes). */
  stop(): Promise<void> {
    return this.purges.stop();
  }

  /** Purges now; if the blob store fails, queues the task for retry instead of throwing. Returns true when clean. */
  runOrQueue(task: FilePurgeTask): Promise<boolean> {
    return this.purges.runOrQueue(task);
  }

  private async run(task: FilePurgeTask): Promise<void> {
    await this.blobs.deletePrefix(filesPrefix(task.recordId));
    await this.blobs.deletePrefix(rawPrefix(task.recordId));
    await this.repository.completePurges(task.recordId);
    this.reclaim?.request();
  }
}

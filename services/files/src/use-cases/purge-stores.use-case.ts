import { Inject, Injectable, Optional } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, JOB_QUEUE, type JobQueue, type ReclaimScheduler, RecordPurges } from '@agent-memory/platform';
import { type FilePurgeTask, FilesRepository } from '../persistence/files.repository';
import { FILES_RECLAIM } from '../persistence/files-reclaim';
import { filesPrefix, rawPrefix } from './file-blobs';

/**
 * Purges a deleted record's files and raw blobs from the blob store, then deletes its purge tasks and asks
 * for a rewrite of the files tables. Retries, start-up resumption and the periodic sweep are the shared
 * {@link RecordPurges} it extends (job `files.purge-record`, payload `{ recordId, eventId: <task id> }`;
 * docs/architecture.md, "Record deletion").
 */
@Injectable()
export class PurgeStoresUseCase extends RecordPurges<'files.purge-record', FilePurgeTask> {
  constructor(
    private readonly repository: FilesRepository,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) jobs: JobQueue,
    /** Rewrites the files tables after a record's purge, so no dead row keeps its paths (docs/deployment.md). */
    @Optional() @Inject(FILES_RECLAIM) private readonly reclaim?: ReclaimScheduler,
  ) {
    super(jobs, {
      sweepName: 'files-purge-sweep',
      job: 'files.purge-record',
      jobData: (task) => ({ recordId: task.recordId, eventId: task.id }),
      taskOfJob: ({ recordId, eventId }) => Promise.resolve({ id: eventId, recordId }),
      table: repository,
    });
  }

  protected async run(task: FilePurgeTask): Promise<void> {
    await this.blobs.deletePrefix(filesPrefix(task.recordId));
    await this.blobs.deletePrefix(rawPrefix(task.recordId));
    await this.repository.completePurges(task.recordId);
    this.reclaim?.request();
  }
}

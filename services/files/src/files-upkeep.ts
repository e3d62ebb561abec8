import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { expiredIdempotencyKeysWhere, IDEMPOTENCY_CLEANUP, JOB_QUEUE, type JobQueue, PURGE_SWEEP, type PeriodicTask, startPeriodicTask } from '@agent-memory/platform';
import { FILES_PRISMA } from './files.service';
import type { FilesPrismaClient } from './persistence/prisma';

/**
 * Background upkeep of the files service:
 * - the purge sweep ({@link PURGE_SWEEP}, where jobs run): every minute, `files.purge-record` jobs are
 *   enqueued again for purge tasks older than 2 minutes (job id = task id: absorbed while a job waits or
 *   retries, replaces a dead-lettered one), so a long blob-store outage never strands a purge;
 * - the idempotency-key clean-up ({@link IDEMPOTENCY_CLEANUP}): every 10 minutes, one DELETE.
 */
@Injectable()
export class FilesUpkeep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(FilesUpkeep.name);
  private readonly tasks: PeriodicTask[] = [];

  constructor(
    @Inject(FILES_PRISMA) private readonly prisma: FilesPrismaClient,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
  ) {}

  onApplicationBootstrap(): void {
    this.start();
  }

  /** Starts the periodic tasks (intervals are for tests). */
  start(sweepIntervalMs: number = PURGE_SWEEP.intervalMs, cleanupIntervalMs: number = IDEMPOTENCY_CLEANUP.intervalMs): void {
    if (this.jobs.runsJobs !== false) this.tasks.push(startPeriodicTask('files-purge-sweep', sweepIntervalMs, () => this.sweepPending(), this.logger));
    this.tasks.push(startPeriodicTask('files-idempotency-cleanup', cleanupIntervalMs, () => this.deleteExpiredIdempotencyKeys(), this.logger));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.tasks.splice(0).map((t) => t.stop()));
  }

  /** Enqueues a purge job for every task created more than `minAgeMs` ago (at most 1 000 a pass); returns how many. */
  async sweepPending(minAgeMs: number = PURGE_SWEEP.minAgeMs): Promise<number> {
    const tasks = await this.prisma.filePurgeTask.findMany({ where: { createdAt: { lt: new Date(Date.now() - minAgeMs) } }, orderBy: { createdAt: 'asc' }, take: 1_000 });
    for (const task of tasks) await this.jobs.enqueue('files.purge-record', { recordId: task.recordId, eventId: task.id }, { jobId: task.id });
    return tasks.length;
  }

  /** Deletes expired idempotency keys in one statement; returns how many. */
  async deleteExpiredIdempotencyKeys(now = Date.now()): Promise<number> {
    const { count } = await this.prisma.fileIdempotencyKey.deleteMany({ where: expiredIdempotencyKeysWhere(now) });
    return count;
  }
}

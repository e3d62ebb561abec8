import { Logger } from '@nestjs/common';
import type { JobData, JobName } from '@agent-memory/shared';
import { type JobQueue, PURGE_RETRY, PURGE_SWEEP } from '../jobs/job-queue.port';
import { type PeriodicTask, startPeriodicTask } from '../jobs/periodic-task';

/** A durable purge task row: what is still to be removed from stores outside the database. */
export interface PurgeTaskRow {
  id: string;
  recordId: string;
}

/** The purge-task table of one service (memory and files each own theirs), as its repository reads it. */
export interface PurgeTaskTable<T extends PurgeTaskRow> {
  /** Every pending task, oldest first. */
  pendingPurges(): Promise<T[]>;
  /** Tasks created before `before`, oldest first, at most `limit`. */
  purgesCreatedBefore(before: Date, limit: number): Promise<T[]>;
}

/** What a service plugs into {@link RecordPurges}. */
export interface RecordPurgesOptions<N extends JobName, T extends PurgeTaskRow> {
  /** Name of the periodic sweep in logs, e.g. `files-purge-sweep`. */
  sweepName: string;
  /** The job that runs one task (its name and payload are a stored contract: queued jobs carry them). */
  job: N;
  /** The job payload of a task (job id = task id). */
  jobData(task: T): JobData<N>;
  /** The task a job names, or null when it is already done. */
  taskOfJob(data: JobData<N>): Promise<T | null>;
  /** The service's purge-task table. */
  table: PurgeTaskTable<T>;
}

/**
 * Durable purges of deleted content from stores outside the database (blob store, vector index), the
 * same for every service that owns such stores (docs/architecture.md, "Record deletion"): the request that
 * deletes rows writes a purge task in the same transaction, then runs it at once ({@link runOrQueue}); on
 * failure a job retries it ({@link PURGE_RETRY}: about a week), tasks left by a crash are queued again at
 * start-up, and where jobs run a sweep re-queues every task older than {@link PURGE_SWEEP}`.minAgeMs`
 * each `intervalMs` (job id = task id: absorbed while a job waits or retries, replaces a dead-lettered
 * one), so no outage or lost job strands a purge. A service's purge use case extends it and implements
 * {@link run}.
 */
export abstract class RecordPurges<N extends JobName, T extends PurgeTaskRow> {
  private sweep?: PeriodicTask;
  /** Logs of the purges, named after the service's use case (the subclass). */
  protected readonly logger: Logger;

  constructor(
    private readonly jobs: JobQueue,
    private readonly options: RecordPurgesOptions<N, T>,
    logger?: Logger,
  ) {
    this.logger = logger ?? new Logger(new.target.name);
  }

  /** Purges the task's stores and deletes the task row; throws when a store fails (the job retries). */
  protected abstract run(task: T): Promise<void>;

  /**
   * {@link resume}, then {@link startSweep}: call once at start-up (`sweepIntervalMs` is for tests).
   */
  async start(sweepIntervalMs: number = PURGE_SWEEP.intervalMs): Promise<void> {
    await this.resume();
    this.startSweep(sweepIntervalMs);
  }

  /**
   * Registers the job handler and re-queues every pending task (tasks a crash interrupted). A queue that
   * is down does not stop the start: the tasks stay in the table and the sweep queues them later.
   */
  async resume(): Promise<void> {
    this.jobs.process(
      this.options.job,
      async (data: JobData<N>) => {
        const task = await this.options.taskOfJob(data);
        if (task) await this.run(task);
      },
      PURGE_RETRY,
    );
    try {
      for (const task of await this.options.table.pendingPurges()) await this.enqueue(task);
    } catch (err) {
      this.logger.warn({ err }, 'Could not re-queue pending purges at start-up; the purge sweep will');
    }
  }

  /** Starts the periodic sweep where jobs run (not on a producer-only queue); every `intervalMs`. */
  startSweep(intervalMs: number = PURGE_SWEEP.intervalMs): void {
    if (this.jobs.runsJobs !== false && !this.sweep) this.sweep = startPeriodicTask(this.options.sweepName, intervalMs, () => this.sweepPending(), this.logger);
  }

  /**
   * Enqueues every task created more than `minAgeMs` ago (at most 1,000 a pass). Returns how many were
   * enqueued; stops at the first enqueue failure (the queue is down: the next sweep tries again).
   */
  async sweepPending(minAgeMs: number = PURGE_SWEEP.minAgeMs): Promise<number> {
    const tasks = await this.options.table.purgesCreatedBefore(new Date(Date.now() - minAgeMs), 1_000);
    for (const task of tasks) await this.enqueue(task);
    return tasks.length;
  }

  /** Purges now; if a store fails, queues the task for retry instead of throwing. Returns true when clean. */
  async runOrQueue(task: T): Promise<boolean> {
    try {
      await this.run(task);
      return true;
    } catch (err) {
      this.logger.warn({ taskId: task.id, recordId: task.recordId, err }, 'Purge failed; queued for retry');
      await this.enqueue(task);
      return false;
    }
  }

  /**
   * What a service's `records.v1.record-deleted` consumer does (docs/architecture.md, "Record deletion"):
   * for each of `event.recordIds` in order, `deleteRecordRows(recordId, taskId)` (the service's one
   * transaction: tombstone, rows, and the purge task it returns, id `<eventId>:<recordId>` so a redelivered
   * event reuses it), then {@link runOrQueue} of that task. Idempotent: a redelivered event finds nothing
   * left. Throws when a transaction fails (the event is redelivered); a store failure only queues the task.
   */
  async purgeDeletedRecords(event: { eventId: string; recordIds: readonly string[] }, deleteRecordRows: (recordId: string, taskId: string) => Promise<T>): Promise<void> {
    for (const recordId of event.recordIds) {
      await this.runOrQueue(await deleteRecordRows(recordId, `${event.eventId}:${recordId}`));
    }
  }

  /** Stops the sweep (at shutdown, before the job queue closes). */
  async stop(): Promise<void> {
    await this.sweep?.stop();
    this.sweep = undefined;
  }

  private enqueue(task: T): Promise<void> {
    return this.jobs.enqueue(this.options.job, this.options.jobData(task), { jobId: task.id });
  }
}

import type { JobData, JobName } from '@agent-memory/shared';

/** Retry policy of a job: `attempts` tries in all, exponential backoff from `backoffMs`, capped at `maxBackoffMs`. */
export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 12, backoffMs: 200, maxBackoffMs: 60_000 };

/**
 * Retry policy of purge jobs (memory.purge, files.purge-record): a store outage of any realistic length
 * must not strand a purge (docs/api.md, "Memories": forget removes data from every store). 10 000 tries, backoff
 * capped at 60 s: about a week of retrying before the job is dead-lettered; the purge sweep
 * ({@link PURGE_SWEEP}) re-queues it even then, since the durable task row stays until the purge succeeds.
 */
export const PURGE_RETRY: RetryPolicy = { attempts: 10_000, backoffMs: 1_000, maxBackoffMs: 60_000 };

/**
 * The periodic purge sweep of the process that runs purge jobs: every `intervalMs`, pending purge tasks
 * created more than `minAgeMs` ago are enqueued again with the task id as job id (absorbed while a job is
 * waiting or retrying; replaces a dead-lettered one). Younger tasks are left to the request that made them.
 */
export const PURGE_SWEEP = { intervalMs: 60_000, minAgeMs: 2 * 60_000 } as const;

/**
 * Port: the asynchronous job queue (docs/architecture.md, "Background work"). Adapters: `in-process.job-queue.ts` (standalone)
 * and BullMQ (cluster). Jobs are typed by the union in `libs/shared/src/jobs.ts`; handlers must be
 * idempotent, since a job may run more than once.
 */
export interface JobQueue {
  /** Queues a job; `jobId` de-duplicates a job already waiting with the same id. */
  enqueue<N extends JobName>(name: N, data: JobData<N>, options?: { jobId?: string }): Promise<void>;
  /** Registers the handler of a job name; a thrown error schedules a retry. */
  process<N extends JobName>(name: N, handler: (data: JobData<N>) => Promise<void>, retry?: RetryPolicy): void;
  /** Resolves when no job is waiting or running (tests, graceful shutdown). */
  drain(): Promise<void>;
  /** Jobs that exhausted their retries (dead-letter view). */
  failed(): Promise<Array<{ name: JobName; data: unknown; error: string; attempts: number }>>;
  close(): Promise<void>;
  /**
   * False on an instance that only enqueues (a cluster API process, BullMQ role `producer`); sweeps that
   * re-queue durable work run only where jobs run. Absent means true.
   */
  readonly runsJobs?: boolean;
}
export const JOB_QUEUE = Symbol('JobQueue');

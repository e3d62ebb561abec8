import type { JobData, JobName } from '@agent-memory/shared';

/** Retry policy of a job: `attempts` tries in all, exponential backoff from `backoffMs`, capped at `maxBackoffMs`. */
export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 12, backoffMs: 200, maxBackoffMs: 60_000 };

/**
 * Port: the asynchronous job queue (DESIGN.md §1). Adapters: `in-process.job-queue.ts` (standalone)
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
}
export const JOB_QUEUE = Symbol('JobQueue');

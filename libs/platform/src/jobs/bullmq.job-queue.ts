import { Logger } from '@nestjs/common';
import { type Job, type JobsOptions, Queue, type RedisOptions, UnrecoverableError, Worker } from 'bullmq';
import { JOBS, type JobData, type JobName, QUEUES } from '@agent-memory/shared';
import { formatZodError } from '../validation/zod-format';
import { DEFAULT_RETRY, type JobQueue, type RetryPolicy } from './job-queue.port';

/** Job names whose queue is not the job name with `.` turned into `-` (kept from before that convention). */
const QUEUE_NAME_EXCEPTIONS: Partial<Record<JobName, string>> = { 'files.purge-record': QUEUES.filesPurge };

/**
 * The BullMQ queue of a job name: one queue per job name, named by an entry of `QUEUES` in libs/shared
 * (`memory.purge` → `memory-purge`; `files.purge-record` → `files-purge`). Do not rename: queued jobs of a
 * running system live under these names. (A spec checks that every job maps to a `QUEUES` entry.)
 */
export function queueNameOf(name: JobName): string {
  return QUEUE_NAME_EXCEPTIONS[name] ?? name.replaceAll('.', '-');
}

/** {@link queueNameOf} for every job of the `JOBS` union. */
export const JOB_QUEUE_NAMES = Object.fromEntries((Object.keys(JOBS) as JobName[]).map((name) => [name, queueNameOf(name)])) as Readonly<Record<JobName, string>>;

/** Name of the custom backoff strategy: exponential from `backoffMs`, capped at `maxBackoffMs` (BullMQ's own has no cap). */
const CAPPED_EXPONENTIAL = 'capped-exponential';

/** Jobs left after their last attempt are kept this long, at most this many per queue (the dead-letter view). */
const KEEP_FAILED = { age: 14 * 24 * 3600, count: 10_000 };

/**
 * What this instance does with `process()`: `producer` (an API process: enqueue only; `process()` only
 * records the retry policy used at enqueue), `worker` or `both` (also start a BullMQ Worker per job name).
 */
export type JobQueueRole = 'producer' | 'worker' | 'both';

/** Options of {@link BullMqJobQueue}. */
export interface BullMqJobQueueOptions {
  /** Redis: a `redis://` URL (REDIS_URL) or ioredis options. BullMQ opens its own connections from it. */
  connection: string | RedisOptions;
  /** Namespace of every BullMQ key (`<prefix>:<queue>:…`); default `am:jobs`. Tests use a unique one per run. */
  prefix?: string;
  /** Default `both`. */
  role?: JobQueueRole;
  /** Jobs run at once per job name by this instance's workers; default 4. */
  concurrency?: number;
  /** Retry policies known before `process()` is called (a producer that never registers handlers); else {@link DEFAULT_RETRY}. */
  retry?: Partial<Record<JobName, RetryPolicy>>;
  /** How often `drain()` polls the queue counts, ms; default 50. */
  drainPollMs?: number;
  /** `enqueue` rejects when Redis has not taken the job within this many ms; default {@link ENQUEUE_TIMEOUT_MS}. */
  enqueueTimeoutMs?: number;
}

/**
 * Default bound of one `enqueue`, ms. The queue connections have no offline queue, so while Redis is down
 * `enqueue` rejects at once; this bounds the other cases (connection still opening, a half-open socket).
 * Callers keep durable state (purge task rows re-queued by a periodic sweep), so failing fast loses nothing.
 */
export const ENQUEUE_TIMEOUT_MS = 2_000;

/** One dead-lettered job (see {@link JobQueue.failed}). */
export interface DeadJob {
  name: JobName;
  data: unknown;
  error: string;
  attempts: number;
}

/** Depth of one queue, for the queue-depth metric. */
export interface QueueCounts {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

type Handler = (data: never) => Promise<void>;

/**
 * Cluster {@link JobQueue} on BullMQ (Redis) (docs/architecture.md, "Ports and adapters"): the same job contracts (`JOBS` in
 * libs/shared) and retry semantics as the standalone `InProcessJobQueue`, but durable and shared by
 * every process on the same Redis and prefix.
 *
 * - One BullMQ queue per job name ({@link queueNameOf}); the BullMQ job name is the `JobName`.
 * - `enqueue` validates the data against the job's zod schema (throws the `ZodError`), sets `attempts`
 *   and the capped exponential backoff from the job's retry policy, and de-duplicates on `jobId`: a job
 *   with that id that is waiting, delayed or running absorbs the new one; one that already failed for good
 *   (or completed) is replaced, as in the in-process queue.
 * - Workers validate the data again before the handler runs; invalid data fails at once, without retries
 *   (`UnrecoverableError`). A thrown error is retried after `min(backoffMs · 2^(n-1), maxBackoffMs)` ms
 *   (n = failed attempts so far) until `attempts` tries in all; then the job stays in BullMQ's failed set,
 *   which {@link failed} lists (kept 14 days, at most 10 000 per queue). Completed jobs are removed.
 * - Handlers must be idempotent: a job whose worker dies mid-run is retried after BullMQ's lock expires.
 */
export class BullMqJobQueue implements JobQueue {
  private readonly logger = new Logger('JobQueue');
  private readonly connection: RedisOptions;
  private readonly prefix: string;
  private readonly role: JobQueueRole;
  private readonly concurrency: number;
  private readonly drainPollMs: number;
  private readonly enqueueTimeoutMs: number;
  private readonly queues = new Map<JobName, Queue>();
  private readonly workers = new Map<JobName, Worker>();
  private readonly handlers = new Map<JobName, Handler>();
  private readonly retry = new Map<JobName, RetryPolicy>();
  private closing?: Promise<void>;

  constructor(options: BullMqJobQueueOptions) {
    this.connection = typeof options.connection === 'string' ? { url: options.connection } : options.connection;
    this.prefix = options.prefix ?? 'am:jobs';
    this.role = options.role ?? 'both';
    this.concurrency = options.concurrency ?? 4;
    this.drainPollMs = options.drainPollMs ?? 50;
    this.enqueueTimeoutMs = options.enqueueTimeoutMs ?? ENQUEUE_TIMEOUT_MS;
    for (const [name, policy] of Object.entries(options.retry ?? {}) as Array<[JobName, RetryPolicy]>) this.retry.set(name, policy);
    for (const name of Object.keys(JOB_QUEUE_NAMES) as JobName[]) {
      // No offline queue: while Redis is down a command fails at once instead of waiting for reconnection.
      const queue = new Queue(queueNameOf(name), { connection: { ...this.connection, enableOfflineQueue: false }, prefix: this.prefix });
      queue.on('error', (err) => this.logger.error({ queue: queue.name, err }, 'Queue connection error'));
      this.queues.set(name, queue);
    }
  }

  /** False on a `producer` instance: it never runs jobs (see {@link JobQueue.runsJobs}). */
  get runsJobs(): boolean {
    return this.role !== 'producer';
  }

  /**
   * Queues a job (see the class comment for validation and de-duplication). Throws `ZodError` on invalid
   * data; rejects within `enqueueTimeoutMs` (default 2 s) when Redis is unreachable, never hangs.
   */
  async enqueue<N extends JobName>(name: N, data: JobData<N>, options: { jobId?: string } = {}): Promise<void> {
    const parsed = JOBS[name].parse(data);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Enqueue of ${name} timed out after ${this.enqueueTimeoutMs} ms (Redis unreachable?)`)), this.enqueueTimeoutMs);
    });
    try {
      await Promise.race([this.add(name, parsed as JobData<N>, options), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async add<N extends JobName>(name: N, parsed: JobData<N>, options: { jobId?: string }): Promise<void> {
    const queue = this.queueOf(name);
    const policy = this.policyOf(name);
    const opts: JobsOptions = {
      attempts: policy.attempts,
      backoff: { type: CAPPED_EXPONENTIAL, delay: policy.backoffMs },
      removeOnComplete: true,
      removeOnFail: KEEP_FAILED,
    };
    if (options.jobId !== undefined) {
      opts.jobId = bullJobId(options.jobId);
      const state = await queue.getJobState(opts.jobId);
      if (state === 'failed' || state === 'completed') await queue.remove(opts.jobId);
    }
    await queue.add(name, parsed, opts);
  }

  /**
   * Registers the handler and retry policy of a job name. On a `worker`/`both` instance this starts one
   * BullMQ Worker for the job's queue (`concurrency` jobs at once); a second call replaces the handler.
   * On a `producer` instance it only records the retry policy that `enqueue` applies.
   */
  process<N extends JobName>(name: N, handler: (data: JobData<N>) => Promise<void>, retry: RetryPolicy = DEFAULT_RETRY): void {
    this.retry.set(name, retry);
    if (this.role === 'producer' || this.closing) return;
    this.handlers.set(name, handler);
    if (this.workers.has(name)) return;
    const worker = new Worker(queueNameOf(name), (job: Job) => this.handle(job), {
      connection: { ...this.connection },
      prefix: this.prefix,
      concurrency: this.concurrency,
      settings: { backoffStrategy: (attemptsMade: number, type?: string, _err?: Error, job?: { name: string }) => this.backoffMs(attemptsMade, type, job?.name) },
    });
    worker.on('error', (err) => this.logger.error({ queue: worker.name, err }, 'Worker error'));
    worker.on('failed', (job, err) => {
      if (!job) return;
      const last = job.finishedOn !== undefined;
      const log = { job: job.name, jobId: job.id, attempt: job.attemptsMade, error: err.message };
      if (last) this.logger.error(log, 'Job failed for good');
      else this.logger.warn(log, 'Job failed, retrying');
    });
    this.workers.set(name, worker);
  }

  private async handle(job: Job): Promise<void> {
    const name = job.name as JobName;
    const handler = this.handlers.get(name);
    if (!handler || !(name in JOBS)) throw new UnrecoverableError(`No handler for job ${job.name} in queue ${job.queueName}`);
    const parsed = JOBS[name].safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`Invalid ${name} job data: ${formatZodError(parsed.error, 'data')}`);
    try {
      await handler(parsed.data as never);
    } catch (err) {
      // this worker's policy may allow fewer attempts than the producer set on the job
      if (job.attemptsMade + 1 >= this.policyOf(name).attempts) throw new UnrecoverableError((err as Error).message);
      throw err;
    }
  }

  /** Delay before the next try, ms: `min(backoffMs · 2^(attemptsMade-1), maxBackoffMs)` of the job's policy. */
  private backoffMs(attemptsMade: number, type: string | undefined, name: string | undefined): number {
    if (type !== CAPPED_EXPONENTIAL) return 0;
    const policy = this.policyOf(name as JobName);
    return Math.min(policy.backoffMs * 2 ** Math.max(0, attemptsMade - 1), policy.maxBackoffMs);
  }

  private policyOf(name: JobName): RetryPolicy {
    return this.retry.get(name) ?? DEFAULT_RETRY;
  }

  private queueOf(name: JobName): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`Unknown job name: ${name}`);
    return queue;
  }

  /**
   * Resolves when no queue has a waiting, prioritized, active or delayed job (polls `getJobCounts`
   * every `drainPollMs`). Counts every process's jobs, not only this instance's; failed jobs do not count.
   */
  async drain(): Promise<void> {
    for (;;) {
      if (this.closing) return;
      const counts = await Promise.all(
        [...this.queues.values()].map((q) => q.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'waiting-children')),
      );
      if (counts.every((c) => Object.values(c).every((n) => n === 0))) return;
      await new Promise((resolve) => setTimeout(resolve, this.drainPollMs));
    }
  }

  /** The dead-letter view: jobs that exhausted their attempts (or were unrecoverable), newest first, at most 1 000 per queue. */
  async failed(): Promise<DeadJob[]> {
    const dead: DeadJob[] = [];
    for (const queue of this.queues.values()) {
      for (const job of await queue.getFailed(0, 999)) {
        if (!job) continue;
        dead.push({ name: job.name as JobName, data: job.data, error: job.failedReason, attempts: job.attemptsMade });
      }
    }
    return dead;
  }

  /** Per-queue depth (waiting includes prioritized jobs), for a queue-depth metric. */
  async counts(): Promise<QueueCounts[]> {
    return Promise.all(
      [...this.queues.values()].map(async (queue) => {
        const c = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
        return { queue: queue.name, waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 };
      }),
    );
  }

  /**
   * Graceful shutdown: each worker stops taking jobs and waits for its running jobs to finish
   * (`worker.close()`), then the queues and their Redis connections close. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.workers.values()].map((w) => w.close()));
      await Promise.all([...this.queues.values()].map((q) => q.close()));
    })();
    return this.closing;
  }
}

/** BullMQ refuses custom ids that look like integers or contain `:`; ours are opaque, so escape them. */
function bullJobId(jobId: string): string {
  return `id-${jobId.replaceAll('%', '%25').replaceAll(':', '%3A')}`;
}

import { Logger } from '@nestjs/common';
import { JOBS, type JobData, type JobName } from '@agent-memory/shared';
import { DEFAULT_RETRY, type JobQueue, type RetryPolicy } from './job-queue.port';

interface Pending {
  name: JobName;
  data: unknown;
  jobId?: string;
  attempts: number;
}

/**
 * Standalone {@link JobQueue}: runs jobs in this process with the same contracts and retries as BullMQ.
 * Not durable by itself: owners keep durable state (e.g. memories marked `purging`) and re-queue it at
 * start-up, so a crash loses no work.
 */
export class InProcessJobQueue implements JobQueue {
  private readonly logger = new Logger('JobQueue');
  private readonly handlers = new Map<JobName, { handler: (data: never) => Promise<void>; retry: RetryPolicy }>();
  private readonly waiting = new Map<string, Pending>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly dead: Array<{ name: JobName; data: unknown; error: string; attempts: number }> = [];
  private running = 0;
  private idleWaiters: Array<() => void> = [];
  private closed = false;
  /** Always true: this queue runs its jobs in this process. */
  readonly runsJobs = true;

  async enqueue<N extends JobName>(name: N, data: JobData<N>, options: { jobId?: string } = {}): Promise<void> {
    JOBS[name].parse(data);
    if (options.jobId && this.waiting.has(`${name}:${options.jobId}`)) return;
    this.schedule({ name, data, jobId: options.jobId, attempts: 0 }, 0);
  }

  process<N extends JobName>(name: N, handler: (data: JobData<N>) => Promise<void>, retry: RetryPolicy = DEFAULT_RETRY): void {
    this.handlers.set(name, { handler: handler, retry });
  }

  private schedule(job: Pending, delayMs: number): void {
    if (this.closed) return;
    const key = job.jobId ? `${job.name}:${job.jobId}` : `${job.name}:${Math.random()}`;
    this.waiting.set(key, job);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.waiting.delete(key);
      void this.run(job);
    }, delayMs);
    // a job waiting for its next retry must not keep the process (or a test run) alive; close() clears it
    timer.unref();
    this.timers.add(timer);
  }

  private async run(job: Pending): Promise<void> {
    const entry = this.handlers.get(job.name);
    if (!entry) {
      // the handler registers during module init; try again shortly
      this.schedule(job, 50);
      return;
    }
    this.running++;
    job.attempts++;
    try {
      await entry.handler(JOBS[job.name].parse(job.data) as never);
    } catch (err) {
      const message = (err as Error).message;
      if (job.attempts >= entry.retry.attempts) {
        this.logger.error({ job: job.name, attempts: job.attempts, err }, 'Job failed for good');
        this.dead.push({ name: job.name, data: job.data, error: message, attempts: job.attempts });
      } else {
        const delay = Math.min(entry.retry.backoffMs * 2 ** (job.attempts - 1), entry.retry.maxBackoffMs);
        this.logger.warn({ job: job.name, attempt: job.attempts, delayMs: delay, error: message }, 'Job failed, retrying');
        this.schedule(job, delay);
      }
    } finally {
      this.running--;
      this.notifyIdle();
    }
  }

  private notifyIdle(): void {
    if (this.running === 0 && this.waiting.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      waiters.forEach((w) => w());
    }
  }

  drain(): Promise<void> {
    if (this.running === 0 && this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async failed(): Promise<Array<{ name: JobName; data: unknown; error: string; attempts: number }>> {
    return [...this.dead];
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.waiting.clear();
    this.notifyIdle();
  }
}

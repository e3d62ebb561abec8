import { RATE_LIMITS } from '@agent-memory/shared';

/** Time source of the pacer; specs pass a fake one. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Called before a wait: how long (ms) and why (`pacing` = our own budget, `retry-after` = the service said so). */
export type WaitListener = (ms: number, reason: 'pacing' | 'retry-after' | 'retry') => void;

/**
 * Keeps a run of writes to one record within the service's limit of 30 writes per sliding 60 s per
 * record (docs/api.md, "Rate limits"), so that a long import waits on its own instead of being refused:
 * before each write it waits until fewer than `perWindow` of its own writes fall in the last `windowMs`.
 * Writes by other clients to the same record are not seen here: their 429s are waited out with
 * {@link retryWrite}.
 */
export class WritePacer {
  private readonly sent: number[] = [];

  constructor(
    readonly perWindow: number = RATE_LIMITS.recordWritesPerMinute,
    readonly windowMs: number = RATE_LIMITS.windowSeconds * 1000,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Waits (if needed) until one more write fits in the window, then counts it as sent. */
  async take(onWait?: WaitListener): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      while (this.sent.length > 0 && this.sent[0] <= now - this.windowMs) this.sent.shift();
      if (this.sent.length < this.perWindow) {
        this.sent.push(now);
        return;
      }
      const wait = this.sent[0] + this.windowMs - now;
      onWait?.(wait, 'pacing');
      await this.clock.sleep(wait);
    }
  }

  /**
   * The least time (seconds) `count` more writes take at this pace from a fresh window: the first
   * `perWindow` at once, then one every `windowMs / perWindow` (the figure announced before an import).
   */
  minimumSeconds(count: number): number {
    const beyond = Math.max(0, count - this.perWindow);
    return (beyond * this.windowMs) / this.perWindow / 1000;
  }

  /**
   * The least time (seconds) from now until `count` more writes are sent, given the writes already in
   * the window: each write waits for the one `perWindow` places before it to leave the window. O(count).
   */
  secondsFor(count: number): number {
    if (count <= 0) return 0;
    const now = this.clock.now();
    const times = this.sent.filter((t) => t > now - this.windowMs);
    for (let i = 0; i < count; i++) {
      const earlier = times.length - this.perWindow;
      times.push(earlier >= 0 ? Math.max(now, times[earlier] + this.windowMs) : now);
    }
    return (times[times.length - 1] - now) / 1000;
  }
}

/** How {@link retryWrite} retries. */
export interface RetryPolicy {
  /** Attempts for failures other than 429 (network errors, 500): the write is repeated with the same idempotency key. */
  maxAttempts: number;
  /** First backoff for those failures (ms), doubled each time. */
  backoffMs: number;
  /** Wait when a 429 carries no `Retry-After` (ms). */
  defaultRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, backoffMs: 1000, defaultRetryAfterMs: 5000 };

/**
 * Runs one idempotent write (`write` must send the same idempotency key on every call, so repeating it
 * never writes or charges twice: docs/api.md, "After a 500 or a timeout"). A 429 RATE_LIMITED is waited
 * out for its `Retry-After` and retried without limit (the limit always frees up); a network error or a
 * 500 is retried `maxAttempts` times with doubling backoff; any other error is thrown at once.
 */
export async function retryWrite<T>(write: () => Promise<T>, options: { onWait?: WaitListener; clock?: Clock; policy?: RetryPolicy } = {}): Promise<T> {
  const clock = options.clock ?? systemClock;
  const policy = options.policy ?? DEFAULT_RETRY;
  let failures = 0;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      const e = error as { code?: unknown; retryAfterSeconds?: unknown };
      if (e.code === 'RATE_LIMITED') {
        const ms = typeof e.retryAfterSeconds === 'number' ? e.retryAfterSeconds * 1000 : policy.defaultRetryAfterMs;
        options.onWait?.(ms, 'retry-after');
        await clock.sleep(ms);
        continue;
      }
      const transient = e.code === 'NETWORK_ERROR' || e.code === 'INTERNAL_ERROR';
      failures += 1;
      if (!transient || failures >= policy.maxAttempts) throw error;
      const ms = policy.backoffMs * 2 ** (failures - 1);
      options.onWait?.(ms, 'retry');
      await clock.sleep(ms);
    }
  }
}

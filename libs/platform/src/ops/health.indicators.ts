import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type HealthIndicatorFunction, type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { OPS_OPTIONS, type ResolvedOpsOptions } from './ops.options';
import { type ReadinessCheck, ReadinessRegistry } from './readiness.registry';

/** Raised by {@link withTimeout}. */
export class CheckTimeoutError extends Error {}

/** Rejects with `CheckTimeoutError('timed out after <ms> ms')` when `promise` has not settled within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The terminus health indicators of the ops endpoints: `eventLoop` for liveness (cheap, no
 * dependency is touched) and one indicator per {@link ReadinessRegistry} check for readiness, each bounded
 * by `readinessCheckTimeoutMs` so that a hung dependency makes `/readyz` answer 503 instead of hanging.
 * A failing check's own error is logged, not answered (the gateway's `/readyz` is public).
 */
@Injectable()
export class OpsHealthIndicators implements OnModuleInit, OnModuleDestroy {
  // 20 ms sampling: a blocked loop shows as one long sample at negligible cost.
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 20 });
  private readonly log = new Logger('Readiness');

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly registry: ReadinessRegistry,
    @Inject(OPS_OPTIONS) private readonly options: ResolvedOpsOptions,
  ) {}

  onModuleInit(): void {
    this.loopDelay.enable();
  }

  onModuleDestroy(): void {
    this.loopDelay.disable();
  }

  /** Whether a liveness probe was answered yet: the first one opens the window of stalls that count. */
  private probed = false;

  /**
   * Liveness: `up` with `maxDelayMs`, the longest event-loop stall since the previous call (ms), or
   * `down` when that exceeded `livenessMaxEventLoopDelayMs`. Answering at all already proves the loop turns.
   * The first call opens the window: stalls before it belong to start-up (a memory process loads its models
   * synchronously, several seconds on a loaded machine) and do not fail liveness; readiness covers start-up.
   */
  eventLoop(): HealthIndicatorResult<'eventLoop'> {
    const maxDelayMs = this.probed ? Math.round(this.loopDelay.max / 1e6) : 0;
    this.probed = true;
    this.loopDelay.reset();
    const session = this.indicators.check('eventLoop');
    return maxDelayMs > this.options.livenessMaxEventLoopDelayMs
      ? session.down({ maxDelayMs, message: `the event loop was blocked for ${maxDelayMs} ms` })
      : session.up({ maxDelayMs });
  }

  /** One terminus indicator per registered readiness check, in registration order. */
  readinessIndicators(): HealthIndicatorFunction[] {
    return this.registry.entries().map(([name, check]) => () => this.runCheck(name, check));
  }

  private async runCheck(name: string, check: ReadinessCheck): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(name);
    try {
      await withTimeout(Promise.resolve().then(check), this.options.readinessCheckTimeoutMs);
      return session.up();
    } catch (err) {
      if (err instanceof CheckTimeoutError) return session.down({ message: err.message });
      this.log.warn(`readiness check "${name}" failed: ${err instanceof Error ? err.message : String(err)}`);
      return session.down({ message: 'check failed (reason in the log)' });
    }
  }
}

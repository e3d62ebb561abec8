import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { RATE_LIMITERS, type PolicyLimiter, type RateLimiters } from './rate-limit/rate-limit.service';
import { SlidingWindowMemoryLimiter } from './rate-limit/sliding-window';

/**
 * The in-process sliding-window limiter behind a policy's limiter, if any: the limiter itself (standalone),
 * or the in-memory insurance limiter `rate-limiter-flexible` keeps on a Redis limiter (cluster).
 */
function memoryLimiterOf(limiter: PolicyLimiter): SlidingWindowMemoryLimiter | undefined {
  if (limiter instanceof SlidingWindowMemoryLimiter) return limiter;
  const insurance = (limiter as { insuranceLimiter?: unknown }).insuranceLimiter;
  return insurance instanceof SlidingWindowMemoryLimiter ? insurance : undefined;
}

/**
 * The gateway's background work (docs/architecture.md, "Background work"): each in-memory rate limiter
 * prunes its emptied keys on a timer started with it (./rate-limit/sliding-window.ts); at shutdown those
 * timers are cleared here.
 */
@Injectable()
export class GatewayLifecycle implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMITERS) private readonly limiters: RateLimiters) {}

  onApplicationShutdown(): void {
    const { agent, recordWrite, recordQuery, anonymous } = this.limiters;
    for (const limiter of [agent, recordWrite, recordQuery, anonymous]) memoryLimiterOf(limiter)?.close();
  }
}

import { RateLimiterRes } from 'rate-limiter-flexible';
import { inMemoryRateLimiters } from './gateway.module';
import { GatewayLifecycle } from './gateway.lifecycle';
import type { PolicyLimiter, RateLimiters } from './rate-limit/rate-limit.service';
import { SlidingWindowMemoryLimiter } from './rate-limit/sliding-window';

describe('GatewayLifecycle', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('clears the pruning timers of the in-memory limiters at shutdown', () => {
    const limiters = inMemoryRateLimiters(10);
    expect(jest.getTimerCount()).toBe(4);
    new GatewayLifecycle(limiters).onApplicationShutdown();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('clears the timer of the insurance limiter behind a store limiter (cluster), and skips limiters with none', () => {
    const insurance = new SlidingWindowMemoryLimiter({ points: 5, duration: 60 });
    const store = (insuranceLimiter?: unknown): PolicyLimiter =>
      ({ points: 5, insuranceLimiter, consume: () => Promise.resolve(new RateLimiterRes()) }) as PolicyLimiter;
    const limiters: RateLimiters = { agent: store(insurance), recordWrite: store(), recordQuery: store({}), anonymous: store() };
    expect(jest.getTimerCount()).toBe(1);
    new GatewayLifecycle(limiters).onApplicationShutdown();
    expect(jest.getTimerCount()).toBe(0);
  });
});

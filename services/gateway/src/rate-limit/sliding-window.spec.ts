import { RateLimiterRes } from 'rate-limiter-flexible';
import { SlidingWindowMemoryLimiter } from './sliding-window';

/** Consumes `n` one by one; counts admitted and refused, failing on anything but a RateLimiterRes. */
async function consumeMany(limiter: SlidingWindowMemoryLimiter, key: string, n: number): Promise<{ allowed: number; rejected: number }> {
  let allowed = 0;
  let rejected = 0;
  for (let i = 0; i < n; i++) {
    try {
      await limiter.consume(key);
      allowed++;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      rejected++;
    }
  }
  return { allowed, rejected };
}

describe('SlidingWindowMemoryLimiter (docs/api.md "Rate limits": sliding window)', () => {
  let clock = 0;
  const limiters: SlidingWindowMemoryLimiter[] = [];
  const make = (points: number, duration = 60) => {
    const l = new SlidingWindowMemoryLimiter({ points, duration, keyPrefix: 'test', now: () => clock });
    limiters.push(l);
    return l;
  };
  beforeEach(() => (clock = 1_000_000));
  afterAll(() => limiters.forEach((l) => l.close()));

  it('admits the limit, refuses the next with the time until the oldest request leaves the window', async () => {
    const l = make(5);
    const first = await l.consume('k');
    expect(first).toMatchObject({ remainingPoints: 4, consumedPoints: 1, isFirstInDuration: true, msBeforeNext: 60_000 });
    clock += 10_000;
    expect(await consumeMany(l, 'k', 5)).toEqual({ allowed: 4, rejected: 1 });
    const refused = await l.consume('k').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimiterRes);
    expect((refused as RateLimiterRes).msBeforeNext).toBe(50_000); // the first request leaves at +60 s
    expect((refused as RateLimiterRes).consumedPoints).toBeGreaterThan(l.points);
  });

  it('has no burst at a window boundary: at most the limit in any window, unlike fixed windows', async () => {
    const l = make(10);
    clock += 50_000; // late in what a fixed window would count as the first minute
    expect(await consumeMany(l, 'k', 10)).toEqual({ allowed: 10, rejected: 0 });
    clock += 15_000; // a fixed window would have restarted at +60 s and admitted 10 more here
    expect(await consumeMany(l, 'k', 10)).toEqual({ allowed: 0, rejected: 10 });
    clock += 45_000 + 1; // now the ten have left the window
    expect(await consumeMany(l, 'k', 12)).toEqual({ allowed: 10, rejected: 2 });
  });

  it('does not count refused requests: a client retrying all the time is admitted as the window slides', async () => {
    const l = make(3, 3);
    expect(await consumeMany(l, 'k', 3)).toEqual({ allowed: 3, rejected: 0 });
    for (let t = 0; t < 2_900; t += 100) {
      clock += 100;
      await expect(l.consume('k')).rejects.toBeInstanceOf(RateLimiterRes);
    }
    clock += 101; // 3.001 s after the three: they have left the window
    await expect(l.consume('k')).resolves.toMatchObject({ remainingPoints: 2 });
  });

  it('keeps keys apart, reads without consuming, deletes, and prunes keys whose window emptied', async () => {
    const l = make(2, 1);
    await l.consume('a');
    await l.consume('b');
    await l.consume('b');
    expect(await l.get('a')).toMatchObject({ consumedPoints: 1, remainingPoints: 1 });
    expect(await l.get('nobody')).toBeNull();
    await expect(l.consume('b')).rejects.toBeInstanceOf(RateLimiterRes);
    await expect(l.consume('a')).resolves.toMatchObject({ remainingPoints: 0 });
    expect(await l.delete('a')).toBe(true);
    await expect(l.consume('a')).resolves.toMatchObject({ remainingPoints: 1 });
    expect(l.prune()).toBe(2);
    clock += 1_001;
    expect(l.prune()).toBe(0);
  });
});

import { retryWrite, WritePacer, type Clock } from './pacer';

/** A clock whose sleep advances time at once (and records the waits). */
function fakeClock(): Clock & { waits: number[] } {
  let now = 1_000_000;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  };
}

describe('WritePacer (30 writes per sliding 60 s per record, docs/api.md "Rate limits")', () => {
  it('lets the first 30 go at once, then waits until the oldest leaves the window', async () => {
    const clock = fakeClock();
    const pacer = new WritePacer(30, 60_000, clock);
    for (let i = 0; i < 30; i++) await pacer.take();
    expect(clock.waits).toEqual([]);
    await pacer.take();
    expect(clock.waits).toEqual([60_000]);
    await pacer.take();
    expect(clock.waits).toEqual([60_000]); // the first 30 were all at the same instant: all left together
  });

  it('never has more than perWindow writes in any window', async () => {
    const clock = fakeClock();
    const pacer = new WritePacer(3, 1000, clock);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      await pacer.take();
      times.push(clock.now());
      await clock.sleep(100);
    }
    for (const t of times) expect(times.filter((u) => u > t - 1000 && u <= t).length).toBeLessThanOrEqual(3);
  });

  it('knows the least time left from the writes already in the window', async () => {
    const clock = fakeClock();
    const pacer = new WritePacer(30, 60_000, clock);
    expect(pacer.secondsFor(30)).toBe(0);
    for (let i = 0; i < 30; i++) await pacer.take();
    await clock.sleep(10_000);
    // the window is full since 10 s: the next write goes in 50 s, 30 more by then, the 31st 60 s later
    expect(pacer.secondsFor(1)).toBe(50);
    expect(pacer.secondsFor(30)).toBe(50);
    expect(pacer.secondsFor(31)).toBe(110);
  });

  it('announces the least time of a run: nothing for 30, 2 s per write beyond', () => {
    const pacer = new WritePacer();
    expect(pacer.minimumSeconds(30)).toBe(0);
    expect(pacer.minimumSeconds(120)).toBe(180);
  });
});

describe('retryWrite', () => {
  const error = (code: string, extra: object = {}) => Object.assign(new Error(code), { code, ...extra });

  it('waits out a 429 for its Retry-After, as many times as it comes, and answers the write', async () => {
    const clock = fakeClock();
    const write = jest.fn().mockRejectedValueOnce(error('RATE_LIMITED', { retryAfterSeconds: 7 })).mockRejectedValueOnce(error('RATE_LIMITED', { retryAfterSeconds: 2 })).mockResolvedValue('ok');
    const waits: string[] = [];
    await expect(retryWrite(write, { clock, onWait: (ms, why) => waits.push(`${why}:${ms}`) })).resolves.toBe('ok');
    expect(write).toHaveBeenCalledTimes(3);
    expect(waits).toEqual(['retry-after:7000', 'retry-after:2000']);
  });

  it('retries network errors and 500s with doubling backoff up to maxAttempts, then throws', async () => {
    const clock = fakeClock();
    const write = jest.fn().mockRejectedValue(error('NETWORK_ERROR'));
    await expect(retryWrite(write, { clock, policy: { maxAttempts: 3, backoffMs: 100, defaultRetryAfterMs: 1 } })).rejects.toThrow('NETWORK_ERROR');
    expect(write).toHaveBeenCalledTimes(3);
    expect(clock.waits).toEqual([100, 200]);
  });

  it('throws any other error at once (a 400 or a 403 does not get better by repeating)', async () => {
    const write = jest.fn().mockRejectedValue(error('VALIDATION_ERROR'));
    await expect(retryWrite(write, { clock: fakeClock() })).rejects.toThrow('VALIDATION_ERROR');
    expect(write).toHaveBeenCalledTimes(1);
  });
});

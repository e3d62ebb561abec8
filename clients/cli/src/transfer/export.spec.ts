import { RATE_LIMITS } from '@agent-memory/shared';
import { pacedCall } from './export';
import type { Clock } from './pacer';

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

describe('pacedCall (export pacing, docs/api.md "Rate limits")', () => {
  it('keeps listing pages to 60 a minute per record, the tighter of the two limits, and says so', async () => {
    const clock = fakeClock();
    const waits: string[] = [];
    const call = pacedCall((ms, reason, limit) => waits.push(`${reason} ${ms} ${limit}`), clock);
    for (let i = 0; i < RATE_LIMITS.recordQueriesPerMinute; i++) await call(async () => i, 'listing');
    expect(clock.waits).toEqual([]);
    expect(await call(async () => 'page 61', 'listing')).toBe('page 61');
    expect(clock.waits).toEqual([60_000]);
    expect(waits).toEqual(['pacing 60000 60 listing pages a minute per record']);
  });

  it('lets other requests (file reads) go up to 100 a minute per agent, counting the listing pages too', async () => {
    const clock = fakeClock();
    const waits: string[] = [];
    const call = pacedCall((ms, reason, limit) => waits.push(`${reason} ${limit}`), clock);
    for (let i = 0; i < 10; i++) await call(async () => i, 'listing');
    for (let i = 0; i < RATE_LIMITS.agentPerMinute - 10; i++) await call(async () => i);
    expect(clock.waits).toEqual([]);
    await call(async () => 'read 91');
    expect(clock.waits).toEqual([60_000]);
    expect(waits).toEqual(['pacing 100 requests a minute per agent']);
  });
});

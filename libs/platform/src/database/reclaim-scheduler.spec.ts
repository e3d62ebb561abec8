import { Logger } from '@nestjs/common';
import type { Database } from './database.port';
import { quoteTable } from './pglite.database';
import { ReclaimScheduler } from './reclaim-scheduler';

/** A database whose `reclaim` records its calls and resolves when told to. */
function fakeDatabase() {
  const calls: string[][] = [];
  let fail = false;
  const db = {
    reclaim: jest.fn(async (tables: readonly string[]) => {
      calls.push([...tables]);
      if (fail) {
        fail = false;
        throw new Error('lock timeout');
      }
    }),
  } as unknown as Database;
  return { db, calls, failNext: () => (fail = true) };
}

const quiet = new Logger('test');
beforeAll(() => jest.spyOn(quiet, 'error').mockImplementation(() => undefined));

describe('ReclaimScheduler', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs once per burst, at most delayMs after the first request (throttled: later requests do not postpone it)', async () => {
    const { db, calls } = fakeDatabase();
    const scheduler = new ReclaimScheduler(db, ['memory.memories'], 1_000, quiet);
    scheduler.request();
    await jest.advanceTimersByTimeAsync(600);
    scheduler.request(); // a debounce would restart the clock here
    await jest.advanceTimersByTimeAsync(400);
    expect(calls).toEqual([['memory.memories']]);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(calls).toHaveLength(1);
    scheduler.request();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(2);
  });

  it('retries a failed run after another delay', async () => {
    const { db, calls, failNext } = fakeDatabase();
    const scheduler = new ReclaimScheduler(db, ['files.files'], 100, quiet);
    failNext();
    scheduler.request();
    await jest.advanceTimersByTimeAsync(100);
    expect(calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(100);
    expect(calls).toHaveLength(2);
  });

  it('flush runs a pending reclaim at once and then accepts no more requests', async () => {
    const { db, calls } = fakeDatabase();
    const scheduler = new ReclaimScheduler(db, ['memory.memories'], 60_000, quiet);
    scheduler.request();
    await scheduler.flush();
    expect(calls).toHaveLength(1);
    scheduler.request();
    await jest.advanceTimersByTimeAsync(120_000);
    expect(calls).toHaveLength(1);
  });

  it('flush without a pending request does not touch the database', async () => {
    const { db, calls } = fakeDatabase();
    await new ReclaimScheduler(db, ['memory.memories'], 10, quiet).flush();
    expect(calls).toEqual([]);
  });
});

describe('quoteTable', () => {
  it('quotes schema and table and refuses anything else', () => {
    expect(quoteTable('memory.idempotency_keys')).toBe('"memory"."idempotency_keys"');
    for (const bad of ['memories', 'memory.memories; DROP TABLE x', 'Memory.memories', 'a.b.c', 'memory."x"']) expect(() => quoteTable(bad)).toThrow('Invalid table name');
  });
});

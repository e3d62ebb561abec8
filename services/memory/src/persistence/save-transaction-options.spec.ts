import { saveTransactionOptions } from './prisma-memory.repository';

describe('saveTransactionOptions (a remember’s save transaction)', () => {
  const now = 1_800_000_000_000;

  it('waits to start as long as the request’s deadline leaves', () => {
    expect(saveTransactionOptions(now + 600_000, now)).toEqual({ timeout: 30_000, maxWait: 600_000 });
    expect(saveTransactionOptions(now + 25_000, now)).toEqual({ timeout: 30_000, maxWait: 25_000 });
  });

  it('waits at least 10 s: without a deadline, with one close or already passed', () => {
    expect(saveTransactionOptions(undefined, now)).toEqual({ timeout: 30_000, maxWait: 10_000 });
    expect(saveTransactionOptions(now + 3_000, now)).toEqual({ timeout: 30_000, maxWait: 10_000 });
    expect(saveTransactionOptions(now - 1, now)).toEqual({ timeout: 30_000, maxWait: 10_000 });
  });
});

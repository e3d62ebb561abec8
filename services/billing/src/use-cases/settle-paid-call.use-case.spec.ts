import { mustRefund } from './settle-paid-call.use-case';

// The refund rule of a call paid with a Payment credential, given the ledger entry that charges its write.
const entry = (chargeId: string) => ({ chargeId }) as never;

describe('mustRefund', () => {
  it('keeps the payment of a first write unless another request charged its commit', () => {
    expect(mustRefund({ chargeId: 'chg_a', replayed: false }, entry('chg_a'))).toBe(false);
    expect(mustRefund({ chargeId: 'chg_a', replayed: false }, undefined)).toBe(false);
    expect(mustRefund({ chargeId: 'chg_a', replayed: false, commitId: 'c' }, entry('chg_b'))).toBe(true);
  });

  it('keeps the payment of a replay only when this very charge charged its commit', () => {
    expect(mustRefund({ chargeId: 'chg_a', replayed: true, commitId: 'c' }, entry('chg_a'))).toBe(false);
    expect(mustRefund({ chargeId: 'chg_a', replayed: true, commitId: 'c' }, entry('chg_b'))).toBe(true);
    expect(mustRefund({ chargeId: 'chg_a', replayed: true, commitId: 'c' }, undefined)).toBe(true);
    expect(mustRefund({ chargeId: 'chg_a', replayed: true }, undefined)).toBe(true);
  });
});

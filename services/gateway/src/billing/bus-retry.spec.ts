import { DomainError, PaymentRequiredError } from '@agent-memory/shared';
import { z } from 'zod';
import { BILLING_BUS_RETRY, isRetryable, requestWithRetry } from './bus-retry';

// The retry of idempotent billing messages. The bus here is a scripted stand-in: a transient transport
// failure cannot be produced on demand by the real one (the end-to-end suite injects one into a real server).

/** A bus whose first `failures` requests fail with `error`, then answer `{ ok: true }`; counts attempts and their times. */
function flakyBus(failures: number, error: unknown = new DomainError('INTERNAL_ERROR', 'The service is unavailable')) {
  const at: number[] = [];
  return {
    at,
    async request<S extends z.ZodTypeAny>(_subject: string, _payload: unknown, schema: S): Promise<z.output<S>> {
      at.push(Date.now());
      if (at.length <= failures) throw error;
      return schema.parse({ ok: true });
    },
  };
}

const Reply = z.object({ ok: z.boolean() });

describe('requestWithRetry', () => {
  it('is 5 attempts over about 3 s by default', () => {
    expect(BILLING_BUS_RETRY.delaysMs).toHaveLength(4);
    expect(BILLING_BUS_RETRY.delaysMs.reduce((a, b) => a + b, 0)).toBe(3_000);
  });

  it('answers after transient failures, waiting between attempts', async () => {
    const bus = flakyBus(2);
    await expect(requestWithRetry(bus, 'billing.v1.complete-payment', {}, Reply, { delaysMs: [20, 40, 80, 160] })).resolves.toEqual({ ok: true });
    expect(bus.at).toHaveLength(3);
    expect(bus.at[1] - bus.at[0]).toBeGreaterThanOrEqual(15);
    expect(bus.at[2] - bus.at[1]).toBeGreaterThanOrEqual(35);
  });

  it('gives up after the last attempt with the last error, and never repeats a definite answer', async () => {
    const down = flakyBus(100);
    await expect(requestWithRetry(down, 's', {}, Reply, { delaysMs: [1, 1, 1, 1] })).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(down.at).toHaveLength(5);
    const refused = flakyBus(100, new PaymentRequiredError('already used'));
    await expect(requestWithRetry(refused, 's', {}, Reply, { delaysMs: [1, 1, 1, 1] })).rejects.toBeInstanceOf(PaymentRequiredError);
    expect(refused.at).toHaveLength(1);
    expect(isRetryable(new Error('socket closed'))).toBe(true);
    expect(isRetryable(new DomainError('VALIDATION_ERROR', 'bad'))).toBe(false);
  });
});

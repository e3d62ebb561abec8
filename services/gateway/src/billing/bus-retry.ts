import { DomainError } from '@agent-memory/shared';
import type { BusClient } from '@agent-memory/platform';
import type { z } from 'zod';

/** Waits between attempts, ms: the number of attempts is one more than the delays. */
export interface RetryPolicy {
  delaysMs: readonly number[];
}

/**
 * Retries of the billing steps that follow money already moved or held (complete a payment, store its
 * reference, credit a refund, commit or release a reservation, record usage): 5 attempts over about 3 s
 * (200, 400, 800, 1 600 ms apart), so that a bus hiccup or a billing replica restarting does not leave a
 * settled payment uncredited (docs/billing.md). Only for idempotent messages (keyed by charge, challenge or
 * credit id): a repeat after a lost reply changes nothing.
 */
export const BILLING_BUS_RETRY: RetryPolicy = { delaysMs: [200, 400, 800, 1_600] };

/**
 * Whether a failed bus request may succeed when repeated: transport failures and internal errors (the
 * billing service's database, a timeout) are retried; a definite answer (PAYMENT_REQUIRED, VALIDATION_ERROR,
 * NOT_FOUND, ...) is not.
 */
export function isRetryable(err: unknown): boolean {
  return !(err instanceof DomainError) || err.code === 'INTERNAL_ERROR';
}

/**
 * `bus.request(subject, payload, replySchema)` with retries after retryable failures ({@link isRetryable}),
 * waiting `policy.delaysMs` between attempts. Resolves the first reply; rejects with the last error.
 * The message must be idempotent.
 */
export async function requestWithRetry<S extends z.ZodTypeAny>(
  bus: Pick<BusClient, 'request'>,
  subject: string,
  payload: unknown,
  replySchema: S,
  policy: RetryPolicy = BILLING_BUS_RETRY,
): Promise<z.output<S>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await bus.request(subject, payload, replySchema);
    } catch (err) {
      const delay = policy.delaysMs[attempt];
      if (delay === undefined || !isRetryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

import type { CallOptions } from '../types';

/**
 * The `idempotency_key` of one write call: the caller's, or a random UUID (`globalThis.crypto.randomUUID`,
 * Node 20+ and browsers) made once per call and sent on each of its attempts.
 */
export function idempotencyKey(options: CallOptions): string {
  return options.idempotencyKey ?? globalThis.crypto.randomUUID();
}

import type { CallOptions } from '../types';

/**
 * The `idempotency_key` of one write call: the caller's, or a random UUID made once per call and sent on
 * each of its attempts. `crypto.randomUUID` exists only in secure contexts (HTTPS, localhost) of browsers;
 * elsewhere (a page on plain http) the UUID is built from `crypto.getRandomValues`, which every context has.
 */
export function idempotencyKey(options: CallOptions): string {
  return options.idempotencyKey ?? randomUuid();
}

/** The part of WebCrypto a UUID needs; `randomUUID` is absent outside secure contexts. */
export interface RandomSource {
  getRandomValues(array: Uint8Array): Uint8Array;
  randomUUID?: () => string;
}

/** A random (version 4) UUID: `crypto.randomUUID()`, else RFC 9562 section 5.4 from `crypto.getRandomValues`. */
export function randomUuid(crypto: RandomSource = globalThis.crypto): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

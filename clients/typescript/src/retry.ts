/**
 * When the client repeats a call (README "Retries"; docs/api.md, "Rate limits", "Idempotency keys",
 * "After a 500 or a timeout"):
 * - 429 is always repeated (a refused call changed nothing), after `Retry-After` (or the `RateLimit`
 *   header's reset), as long as that wait is at most `maxRetryAfterMs`;
 * - a connection that could not be opened is repeated for every call (nothing reached the server);
 * - a lost answer, a client timeout, 500 ("not applied"), 502, 503 and 504 only for safe calls: free reads,
 *   and writes carrying an idempotency key (the server replays the first result and charges once); paid
 *   reads (recall, context, memory pages, read file) only with `paidReads`, as each repeat that reaches
 *   the server is charged again (docs/billing.md, "What is charged");
 * - nothing else: a non-idempotent write whose answer was lost is reported, never repeated.
 */

/** `retries` option of the client. */
export interface RetryOptions {
  /** Total attempts per call, including the first (default 3; 1 disables retries). */
  maxAttempts: number;
  /** Longest server-requested wait that is honoured (default 60 s); a longer `Retry-After` is reported as RateLimitedError. */
  maxRetryAfterMs: number;
  /** First backoff of network errors and 5xx; doubled per attempt with jitter (default 250 ms). */
  baseDelayMs: number;
  /**
   * Also repeat paid reads (recall, context, memory pages, read file) after a lost answer, a timeout or a
   * 5xx, accepting that each repeat reaching the server is a new charge (default false: reported instead).
   */
  paidReads: boolean;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 3, maxRetryAfterMs: 60_000, baseDelayMs: 250, paidReads: false };

/** Reads the `retries` option: a number is the number of retries after the first attempt. */
export function retryOptions(option: number | Partial<RetryOptions> | undefined): RetryOptions {
  if (typeof option === 'number') return { ...DEFAULT_RETRY, maxAttempts: Math.max(1, Math.floor(option) + 1) };
  return { ...DEFAULT_RETRY, ...option };
}

/** Backoff before attempt `attempt + 1` (attempt counts from 1): base × 2^(attempt-1), ±50 % jitter. */
export function backoffMs(options: RetryOptions, attempt: number, random = Math.random): number {
  const delay = options.baseDelayMs * 2 ** (attempt - 1);
  return Math.round(delay * (0.5 + random()));
}

/**
 * Seconds to wait before repeating a 429: `Retry-After` (seconds or HTTP date), else the `reset` of a
 * `RateLimit: limit=…, remaining=…, reset=…` (IETF draft) or `RateLimit-Reset` header, else 1.
 */
export function rateLimitWaitSeconds(headers: Headers, now = Date.now()): number {
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null) {
    const trimmed = retryAfter.trim();
    if (/^\d+$/.test(trimmed)) return Number(trimmed);
    const date = Date.parse(trimmed);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  const reset = /(?:^|[;,\s])(?:reset|t)=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1] ?? headers.get('ratelimit-reset');
  return reset !== null && reset !== undefined && /^\d+$/.test(reset) ? Number(reset) : 1;
}

/** True when `error` (what fetch threw) says the connection was never opened: safe to repeat any call. */
export function isConnectError(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

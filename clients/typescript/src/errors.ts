import type { ErrorCode } from '@agent-memory/shared';

/**
 * An error answer of the service: `{ success: false, error: { code, message } }` with its HTTP status
 * (docs/api.md, "Errors": VALIDATION_ERROR 400, UNAUTHORIZED 401, PAYMENT_REQUIRED 402, FORBIDDEN 403,
 * NOT_FOUND 404, RATE_LIMITED 429, INTERNAL_ERROR 500). `requestId` is the `x-request-id` the server
 * answered (quote it when reporting a problem); `details` holds the parsed body and extra headers.
 * Subclasses per code allow `instanceof`; `code` discriminates as well.
 */
export class AgentMemoryError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly requestId?: string;
  readonly details?: Record<string, unknown>;

  constructor(init: { code: ErrorCode; status: number; message: string; requestId?: string; details?: Record<string, unknown>; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details;
  }
}

/** 400: a body, query or path parameter breaks its schema (the message names the field and the limit). */
export class ValidationError extends AgentMemoryError {}
/** 401: no usable credential (missing, malformed, unknown, expired, revoked, or a bad wallet signature). */
export class UnauthorizedError extends AgentMemoryError {}
/**
 * 402: a paid call was not paid. `challenge` is the `WWW-Authenticate: Payment` challenge when the server
 * sent one (payable with `payments: { enabled: true }`); absent for test keys without sandbox credit.
 */
export class PaymentRequiredError extends AgentMemoryError {
  get challenge(): string | undefined {
    return this.details?.['wwwAuthenticate'] as string | undefined;
  }
}
/**
 * The client refused to pay a 402 challenge: its price is above `payments.maxPricePerCall` (or, for a
 * top-up, differs from the amount asked). Nothing was signed or paid. `code` stays PAYMENT_REQUIRED.
 */
export class PaymentRefusedError extends PaymentRequiredError {
  /** The challenge's price and the configured maximum, in micro-USD. */
  get priceMicroUsd(): bigint {
    return this.details?.['priceMicroUsd'] as bigint;
  }
  get maxPriceMicroUsd(): bigint {
    return this.details?.['maxPriceMicroUsd'] as bigint;
  }
}
/** 403: authenticated but not allowed (storage quota, raw blobs of a cloud agent, a test key elsewhere, a session on a write). */
export class ForbiddenError extends AgentMemoryError {}
/** 404: unknown route, or a record, memory, file or key that does not exist or is not the caller's. */
export class NotFoundError extends AgentMemoryError {}
/** 429: a rate limit, a full queue, or an idempotency key in progress; `retryAfterSeconds` from `Retry-After`. */
export class RateLimitedError extends AgentMemoryError {
  get retryAfterSeconds(): number | undefined {
    return this.details?.['retryAfterSeconds'] as number | undefined;
  }
}
/** 500 (or any other unexpected status, e.g. a proxy's 502/503): the message carries the error id of the server log. */
export class InternalError extends AgentMemoryError {}

/**
 * No HTTP answer: the connection failed, dropped, or the attempt timed out (`timedOut`). `code` is
 * `NETWORK_ERROR` (not a server code); `status` is 0. After a non-idempotent write the outcome is unknown
 * (docs/api.md, "After a 500 or a timeout"): the client retries only calls that are safe to repeat.
 */
export class AgentMemoryNetworkError extends Error {
  readonly code = 'NETWORK_ERROR' as const;
  readonly status = 0;
  constructor(
    message: string,
    readonly timedOut: boolean,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AgentMemoryNetworkError';
  }
}

const CLASS_BY_CODE: Record<ErrorCode, typeof AgentMemoryError> = {
  VALIDATION_ERROR: ValidationError,
  UNAUTHORIZED: UnauthorizedError,
  PAYMENT_REQUIRED: PaymentRequiredError,
  FORBIDDEN: ForbiddenError,
  NOT_FOUND: NotFoundError,
  RATE_LIMITED: RateLimitedError,
  INTERNAL_ERROR: InternalError,
};

/** The error code of an HTTP status when the body is not the envelope (a proxy's page). */
function codeOfStatus(status: number): ErrorCode {
  const byStatus: Record<number, ErrorCode> = { 400: 'VALIDATION_ERROR', 401: 'UNAUTHORIZED', 402: 'PAYMENT_REQUIRED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 429: 'RATE_LIMITED' };
  return byStatus[status] ?? 'INTERNAL_ERROR';
}

/** Builds the typed error of a failure answer (`body` parsed JSON or undefined). */
export function errorFromResponse(status: number, headers: Headers, body: unknown, extra: Record<string, unknown> = {}): AgentMemoryError {
  const envelope = body as { success?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
  // own keys only: `in` would also accept inherited names such as `constructor` or `toString`
  const known = typeof envelope?.error?.code === 'string' && Object.hasOwn(CLASS_BY_CODE, envelope.error.code);
  const code = known ? (envelope.error!.code as ErrorCode) : codeOfStatus(status);
  const message = typeof envelope?.error?.message === 'string' ? envelope.error.message : `HTTP ${status} without an error envelope`;
  const details: Record<string, unknown> = { ...extra };
  if (body !== undefined) details['body'] = body;
  const wwwAuthenticate = headers.get('www-authenticate');
  if (wwwAuthenticate && /^\s*Payment\s/i.test(wwwAuthenticate)) details['wwwAuthenticate'] = wwwAuthenticate;
  const retryAfter = parseRetryAfterSeconds(headers.get('retry-after'));
  if (retryAfter !== undefined) details['retryAfterSeconds'] = retryAfter;
  const Class = CLASS_BY_CODE[code];
  return new Class({ code, status, message, requestId: headers.get('x-request-id') ?? undefined, details });
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

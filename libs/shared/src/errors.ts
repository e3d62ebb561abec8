/**
 * Error codes and HTTP statuses of the interface (docs/api.md, "Errors"), and the typed domain errors
 * that services throw. Errors keep their code across the service bus and are mapped to the failure
 * envelope once, at the gateway.
 */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'PAYMENT_REQUIRED',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** HTTP status for each error code (docs/api.md, "Errors"). */
export const HTTP_STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
};

/** Base of every error a use case may raise on purpose; `message` is safe to show to the caller. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
/** 400: the request body, query or path is invalid. */
export class ValidationError extends DomainError {
  constructor(message: string) {
    super('VALIDATION_ERROR', message);
  }
}
/** 401: missing or invalid authentication. */
export class UnauthorizedError extends DomainError {
  constructor(message = 'Missing or invalid authentication') {
    super('UNAUTHORIZED', message);
  }
}
/**
 * 402: the call must be paid for. `wwwAuthenticate` is the `WWW-Authenticate: Payment` challenge the
 * gateway sends with it (docs/billing.md); it does not cross the bus.
 */
export class PaymentRequiredError extends DomainError {
  constructor(
    message = 'Payment required',
    readonly wwwAuthenticate?: string,
  ) {
    super('PAYMENT_REQUIRED', message);
  }
}
/** 403: authenticated, but not allowed to do this. */
export class ForbiddenError extends DomainError {
  constructor(message = 'Insufficient permissions') {
    super('FORBIDDEN', message);
  }
}
/** 404: the resource does not exist or belongs to another agent (no existence leak: docs/api.md, "Records"). */
export class NotFoundError extends DomainError {
  constructor(message = 'Resource not found') {
    super('NOT_FOUND', message);
  }
}
/** 429: a rate limit (docs/api.md, "Rate limits") was exceeded; `retryAfterSeconds` feeds the Retry-After header. */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message);
  }
}

/** The wire form of an error crossing the service bus; `retryAfterSeconds` travels with RATE_LIMITED. */
export interface BusError {
  code: ErrorCode;
  message: string;
  retryAfterSeconds?: number;
}

/** True when `value` has the shape of a {@link BusError} (code is one of {@link ERROR_CODES}). */
export function isBusError(value: unknown): value is BusError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BusError).message === 'string' &&
    (ERROR_CODES as readonly string[]).includes((value as BusError).code)
  );
}

/** Rebuilds a typed {@link DomainError} from its wire form (a {@link RateLimitedError} when it carries `retryAfterSeconds`). */
export function domainErrorFromBus(error: BusError): DomainError {
  if (error.code === 'RATE_LIMITED' && typeof error.retryAfterSeconds === 'number' && Number.isFinite(error.retryAfterSeconds)) {
    return new RateLimitedError(error.message, Math.max(1, Math.ceil(error.retryAfterSeconds)));
  }
  return new DomainError(error.code, error.message);
}

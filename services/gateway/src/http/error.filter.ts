import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { DomainError, fail, HTTP_STATUS_BY_CODE, LIMITS, PaymentRequiredError, RateLimitedError } from '@agent-memory/shared';
import type { GatewayRequest } from '../auth/request-context';
import { rateLimitHeaders } from '../rate-limit/rate-limit.service';

/** Maps Fastify and Nest HTTP errors (bad JSON, wrong content type, unknown route) to the codes of docs/api.md, "Errors". */
export function httpErrorToDomain(status: number, fastifyCode?: string, message?: string): DomainError {
  if (status === 404) return new DomainError('NOT_FOUND', 'Route not found');
  if (status === 413 || fastifyCode === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new DomainError('VALIDATION_ERROR', `body: request body is too large (memory content at most ${LIMITS.memoryContentBytes.max} bytes, file content at most ${LIMITS.fileContentBytes.max} bytes)`);
  }
  if (status === 415 || fastifyCode === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new DomainError('VALIDATION_ERROR', 'Content-Type must be application/json');
  if (fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new DomainError('VALIDATION_ERROR', 'body: a JSON object is required, the body was empty');
  if (fastifyCode === 'FST_ERR_CTP_INVALID_JSON_BODY' || fastifyCode?.startsWith('FST_ERR_CTP')) return new DomainError('VALIDATION_ERROR', 'body: malformed JSON');
  if (status === 400 && message && /JSON|[Bb]ody/.test(message)) return new DomainError('VALIDATION_ERROR', /empty/i.test(message) ? 'body: a JSON object is required, the body was empty' : 'body: malformed JSON');
  if (status === 400) return new DomainError('VALIDATION_ERROR', 'Invalid request');
  if (status === 401) return new DomainError('UNAUTHORIZED', 'Missing or invalid authentication');
  if (status === 403) return new DomainError('FORBIDDEN', 'Insufficient permissions');
  if (status === 405) return new DomainError('NOT_FOUND', 'Route not found');
  if (status === 429) return new DomainError('RATE_LIMITED', 'Too many requests');
  return new DomainError('INTERNAL_ERROR', 'Internal error');
}

/**
 * The one place where errors become the failure envelope (docs/api.md, "Errors"): domain errors keep
 * their code; framework errors are mapped; anything else is a 500 with an error id in the log and no
 * internals in the response.
 */
@Catch()
export class GatewayExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const req = http.getRequest<GatewayRequest>();
    const error = this.toDomain(exception, req);
    const status = HTTP_STATUS_BY_CODE[error.code];
    reply.headers(rateLimitHeaders(req));
    if (error instanceof RateLimitedError) reply.header('Retry-After', String(error.retryAfterSeconds));
    // A 402 states its price in a `WWW-Authenticate: Payment` challenge (docs/billing.md).
    if (error instanceof PaymentRequiredError && error.wwwAuthenticate) reply.header('WWW-Authenticate', error.wwwAuthenticate).header('Cache-Control', 'no-store');
    void reply.status(status).send(fail(error.code, error.message));
  }

  private toDomain(exception: unknown, req: GatewayRequest): DomainError {
    if (exception instanceof DomainError) {
      if (exception.code !== 'INTERNAL_ERROR') return exception;
      // Internal messages may name subjects or services: they go to the log under an error id, not to the caller.
      const errorId = randomUUID();
      this.logger.error({ errorId, requestId: req.id, message: exception.message }, 'Internal error');
      return new DomainError('INTERNAL_ERROR', `Internal error (error id ${errorId})`);
    }
    const fastifyError = exception as { statusCode?: number; code?: string };
    if (fastifyError?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || (exception instanceof HttpException && exception.getStatus() === 413)) {
      const limit = (req as { routeOptions?: { bodyLimit?: number } }).routeOptions?.bodyLimit;
      if (limit) return new DomainError('VALIDATION_ERROR', `body: request body is too large: at most ${limit} bytes on this endpoint (memory content at most ${LIMITS.memoryContentBytes.max} bytes, file content at most ${LIMITS.fileContentBytes.max} bytes of UTF-8)`);
    }
    if (typeof fastifyError?.code === 'string' && fastifyError.code.startsWith('FST_')) return httpErrorToDomain(fastifyError.statusCode ?? 400, fastifyError.code);
    if (exception instanceof HttpException) return httpErrorToDomain(exception.getStatus(), undefined, exception.message);
    if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode < 500) return httpErrorToDomain(fastifyError.statusCode, fastifyError.code);
    const errorId = randomUUID();
    this.logger.error({ errorId, requestId: req.id, err: exception }, 'Unhandled error');
    return new DomainError('INTERNAL_ERROR', `Internal error (error id ${errorId})`);
  }
}

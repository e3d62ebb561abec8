import { type ArgumentsHost, Catch, Logger, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';
import { ZodError } from 'zod';
import { type BusError, DomainError, RateLimitedError } from '@agent-memory/shared';
import { formatZodError } from '../validation/zod-format';

/**
 * Turns whatever a message handler throws into the `{ code, message }` wire form (docs/architecture.md, "Bus subjects"):
 * domain errors keep their code, zod errors become VALIDATION_ERROR, anything else is logged with an
 * error id and answered as INTERNAL_ERROR without internals.
 */
@Catch()
export class RpcDomainExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('Bus');

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => toBusError(exception, this.logger));
  }
}

/** Maps an exception to its bus wire form; unknown errors are logged. */
export function toBusError(exception: unknown, logger: Logger): BusError {
  if (exception instanceof RateLimitedError) return { code: exception.code, message: exception.message, retryAfterSeconds: exception.retryAfterSeconds };
  if (exception instanceof DomainError) return { code: exception.code, message: exception.message };
  if (exception instanceof ZodError) return { code: 'VALIDATION_ERROR', message: formatZodError(exception) };
  const errorId = Math.random().toString(36).slice(2, 10);
  logger.error({ errorId, err: exception }, `Unhandled error in message handler (error id ${errorId})`);
  return { code: 'INTERNAL_ERROR', message: `Internal error (error id ${errorId})` };
}

import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, type Observable } from 'rxjs';
import { ok } from '@agent-memory/shared';
import type { GatewayRequest } from '../auth/request-context';
import { rateLimitHeaders } from '../rate-limit/rate-limit.service';

/** Wraps every handler's result in the success envelope (docs/api.md) and adds the rate-limit headers. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    return next.handle().pipe(
      map((data: unknown) => {
        http.getResponse<FastifyReply>().headers(rateLimitHeaders(http.getRequest<GatewayRequest>()));
        return ok(data);
      }),
    );
  }
}

import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { NatsContext } from '@nestjs/microservices';
import type { MsgHdrs } from 'nats';
import { Observable } from 'rxjs';
import { runWithBusHeaders } from './bus-context';
import { busHeadersFrom } from './nats-headers';

/**
 * Server-side interceptor of the NATS transport: runs the handler inside the bus context carried by
 * the message's headers (the principal only when {@link DrainingNatsServer} verified its signature), so
 * logs and onward messages keep the caller's correlation id. The in-process transport sets the context
 * itself; there this is a no-op.
 */
@Injectable()
export class NatsBusContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const ctx = context.switchToRpc().getContext<unknown>();
    if (!(ctx instanceof NatsContext)) return next.handle();
    const headers = busHeadersFrom(ctx.getHeaders() as MsgHdrs | undefined);
    return new Observable((subscriber) => runWithBusHeaders(headers, () => next.handle().subscribe(subscriber)));
  }
}

import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { Observable } from 'rxjs';
import { Metrics } from './metrics';

/**
 * The subject label of a handled bus message: the handler's declared pattern (`@MessagePattern` /
 * `@EventPattern`), which is the same on NATS, JetStream (`evt.<pattern>` on the wire) and in process;
 * else the context's `getSubject()` (NatsContext, InProcessContext); else `unknown`.
 */
export function busSubjectOf(context: ExecutionContext): string {
  const declared: unknown = Reflect.getMetadata(PATTERN_METADATA, context.getHandler());
  const pattern: unknown = Array.isArray(declared) ? declared[0] : declared;
  if (typeof pattern === 'string') return pattern;
  if (pattern !== undefined && pattern !== null) return JSON.stringify(pattern);
  const rpc = context.switchToRpc().getContext<{ getSubject?: () => unknown } | undefined>();
  const subject = typeof rpc?.getSubject === 'function' ? rpc.getSubject() : undefined;
  return typeof subject === 'string' ? subject : 'unknown';
}

/**
 * Counts every handled bus message into `agent_memory_bus_messages_total{subject,outcome}` (outcome
 * `error` when the handler threw or its observable failed) and times it into
 * `agent_memory_bus_handler_duration_seconds{subject}`. Passes HTTP and other contexts through.
 *
 * Apply it to the microservice side of a hybrid app with `connectMicroserviceWith` (hybrid-microservice.ts)
 * (`{ interceptors: [app.get(BusMetricsInterceptor)] }`): an APP_INTERCEPTOR does not reach a
 * microservice connected without `inheritAppConfig`, and `useGlobalInterceptors` on an already
 * connected microservice is ignored.
 */
@Injectable()
export class BusMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: Metrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const subject = busSubjectOf(context);
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    return new Observable((subscriber) => {
      let settled = false;
      const settle = (outcome: 'ok' | 'error') => {
        if (settled) return;
        settled = true;
        this.metrics.observeBusMessage(subject, outcome, seconds());
      };
      const subscription = next.handle().subscribe({
        next: (value) => subscriber.next(value),
        error: (err: unknown) => {
          settle('error');
          subscriber.error(err);
        },
        complete: () => {
          settle('ok');
          subscriber.complete();
        },
      });
      return () => subscription.unsubscribe();
    });
  }
}

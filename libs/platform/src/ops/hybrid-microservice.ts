import type { ExceptionFilter, INestApplication, INestMicroservice, NestInterceptor, PipeTransform } from '@nestjs/common';

/** Enhancers applied to the message handlers of one connected microservice only (not to HTTP). */
export interface MicroserviceEnhancers {
  interceptors?: NestInterceptor[];
  filters?: ExceptionFilter[];
  pipes?: PipeTransform[];
}

/**
 * Connects a microservice (transport `options`, as for `app.connectMicroservice`) to the hybrid `app`
 * with its own global interceptors, filters and pipes, e.g. `{ interceptors: [new NatsBusContextInterceptor(),
 * app.get(BusMetricsInterceptor)] }`. Returns the microservice; start it with `app.startAllMicroservices()`.
 *
 * Why a helper (Nest 11.2 behaviour, checked in `bus-metrics.spec.ts`): Nest binds handlers to the
 * global enhancers of the moment a microservice initializes. `connectMicroservice` without
 * `deferInitialization` initializes at once, so a later `useGlobalInterceptors` is silently ignored;
 * with `deferInitialization` the microservice would call every `onModuleInit`/`onApplicationBootstrap`
 * of the app a second time. This defers, applies the enhancers, then marks the lifecycle hooks as done,
 * as Nest itself does for a non-deferred microservice (the app runs them once, in `init`).
 * The app's own global enhancers are not inherited unless `inheritAppConfig` is true.
 */
export function connectMicroserviceWith(
  app: INestApplication,
  options: Parameters<INestApplication['connectMicroservice']>[0],
  enhancers: MicroserviceEnhancers,
  hybrid: { inheritAppConfig?: boolean } = {},
): INestMicroservice {
  const microservice = app.connectMicroservice(options, { inheritAppConfig: hybrid.inheritAppConfig ?? false, deferInitialization: true });
  if (enhancers.interceptors?.length) microservice.useGlobalInterceptors(...enhancers.interceptors);
  if (enhancers.filters?.length) microservice.useGlobalFilters(...enhancers.filters);
  if (enhancers.pipes?.length) microservice.useGlobalPipes(...enhancers.pipes);
  const hooks = microservice as unknown as { setIsInitHookCalled?: (called: boolean) => void };
  if (typeof hooks.setIsInitHookCalled !== 'function') throw new Error('connectMicroserviceWith: this Nest version has no NestMicroservice.setIsInitHookCalled');
  hooks.setIsInitHookCalled(true);
  return microservice;
}

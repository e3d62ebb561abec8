import { type DynamicModule, type ForwardReference, Module, type NestInterceptor, type Type } from '@nestjs/common';
import { type AbstractHttpAdapter, NestFactory } from '@nestjs/core';
import type { CustomTransportStrategy } from '@nestjs/microservices';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger as PinoLogger } from 'nestjs-pino';
import { BusPrincipalInterceptor } from '../bus/bus-principal';
import { connectMicroserviceWith } from '../ops/hybrid-microservice';
import { BusMetricsInterceptor } from '../ops/bus-metrics.interceptor';
import { type LauncherLog, launcherLoggerModule, LauncherNestLogger } from './launcher-logger';

/** What a launcher composes into one process (docs/architecture.md, "Launchers"). */
export interface LaunchOptions {
  /** The platform module (adapters), the ops module and the service modules of this process. */
  imports: Array<Type<unknown> | DynamicModule | Promise<DynamicModule> | ForwardReference>;
  /** The process's logger ({@link createLauncherLog}; Nest and the access log write to it). */
  log: LauncherLog;
  /** Fastify adapter of the HTTP side (the gateway's, with its body limits, or a plain one). */
  httpAdapter: AbstractHttpAdapter;
  /** Keep the raw request body (the gateway verifies signatures over it). */
  rawBody: boolean;
  /** Signals that start a graceful shutdown; default every signal Nest knows. */
  shutdownSignals?: string[];
  /** Bus servers whose handlers this process serves (in-process bus, NATS queue group, JetStream events). */
  busServers: CustomTransportStrategy[];
  /**
   * Interceptor that sets the bus context from the transport's headers before the principal check reads it
   * (NATS: `NatsBusContextInterceptor`); none for the in-process bus, which carries it already.
   */
  busContext?: NestInterceptor;
  /** Last touches on the HTTP side before `init` (the gateway's envelope, filter, security headers, docs). */
  configure?: (app: NestFastifyApplication) => void;
}

/**
 * Builds, starts the bus servers of, and initializes one process of either launcher: the root module
 * (logger first, then `imports`), the pino logger for Nest's own lines (its start-up lines at debug), shutdown hooks, and every bus
 * server with the same enhancers: `busContext`, then the principal check (a handler acts only for the
 * agent the gateway authenticated), then the bus metrics. The gateway's HTTP envelope stays off the bus
 * handlers. Start-up errors are thrown to the caller, not turned into an exit. Call `listen` on the result.
 */
export async function launchApp(options: LaunchOptions): Promise<NestFastifyApplication> {
  @Module({ imports: [launcherLoggerModule(options.log), ...options.imports] })
  class LauncherRootModule {}

  const app = await NestFactory.create<NestFastifyApplication>(LauncherRootModule, options.httpAdapter, {
    bufferLogs: true,
    rawBody: options.rawBody,
    abortOnError: false,
  });
  app.useLogger(new LauncherNestLogger(app.get(PinoLogger)));
  // from here on Nest's lines go out as they happen (a start's progress), not buffered until listen
  app.flushLogs();
  app.enableShutdownHooks(options.shutdownSignals);
  // Enhancers are attached before the handlers are bound (connectMicroserviceWith).
  const interceptors = [...(options.busContext ? [options.busContext] : []), new BusPrincipalInterceptor(), app.get(BusMetricsInterceptor)];
  for (const strategy of options.busServers) connectMicroserviceWith(app, { strategy }, { interceptors });
  options.configure?.(app);
  await app.startAllMicroservices();
  await app.init();
  return app;
}

import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { Metrics } from './metrics';

/** Route label of a request no route matched (404s), so unknown URLs cannot grow the label set. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts every HTTP request of a Fastify app into `agent_memory_http_requests_total` and
 * `agent_memory_http_request_duration_seconds`, labelled with the route template
 * (`request.routeOptions.url`, e.g. `/api/v1/records/:recordId/recall`), never the raw URL.
 *
 * A Fastify `onResponse` hook rather than a Nest interceptor: guards run before interceptors, so an
 * interceptor would miss the 401/403/429 answers of the gateway's guards and the 404s of unknown routes,
 * and it would not see the status the exception filter finally sends. Installed by `OpsModule` itself;
 * a process without an HTTP adapter (a pure microservice) is left alone.
 */
@Injectable()
export class HttpMetricsHook implements OnModuleInit {
  private installed = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    // Installed once even if lifecycle hooks run twice (a microservice connected with deferInitialization).
    if (this.installed || !adapter || adapter.getType() !== 'fastify') return;
    this.installed = true;
    const fastify = adapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      this.metrics.observeHttp(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
}

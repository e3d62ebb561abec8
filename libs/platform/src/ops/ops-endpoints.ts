import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import { OpsHealthIndicators } from './health.indicators';
import { Metrics } from './metrics';

/** `Cache-Control` of every ops answer: probes and scrapes must never see a cached state. */
export const OPS_NO_CACHE = 'no-cache, no-store, must-revalidate';

/** One ops answer, transport-neutral: the HTTP status and the JSON body (terminus' shape). */
export interface OpsHealthAnswer {
  status: 200 | 503;
  body: unknown;
}

/**
 * The answers of the ops endpoints, shared by the routes on the process's HTTP app ({@link OpsController})
 * and the separate ops listener ({@link OpsListener}):
 *
 * - liveness: 200 `{ status: 'ok', info: { eventLoop: { status: 'up', maxDelayMs } }, error: {}, details }`;
 *   never touches a dependency.
 * - readiness: every {@link ReadinessRegistry} check; 200 `{ status: 'ok', info, error: {}, details }` when
 *   all are up, 503 `{ status: 'error' | 'shutting_down', info, error: { <check>: { status: 'down', message } }, details }`
 *   (terminus' shape) otherwise; `shutting_down` from SIGTERM on, so traffic drains before the process stops.
 * - metrics: the Prometheus text of {@link Metrics} and its content type.
 */
@Injectable()
export class OpsEndpoints {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: OpsHealthIndicators,
    private readonly metrics: Metrics,
  ) {}

  liveness(): Promise<OpsHealthAnswer> {
    return this.answer(() => this.health.check([() => this.indicators.eventLoop()]));
  }

  readiness(): Promise<OpsHealthAnswer> {
    return this.answer(() => this.health.check(this.indicators.readinessIndicators()));
  }

  async prometheus(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.metrics.contentType, text: await this.metrics.text() };
  }

  private async answer(check: () => Promise<unknown>): Promise<OpsHealthAnswer> {
    try {
      return { status: 200, body: await check() };
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      return { status: 503, body: err.getResponse() };
    }
  }
}

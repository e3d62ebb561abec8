import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { OpsHealthIndicators } from './health.indicators';
import { Metrics } from './metrics';

const NO_CACHE = 'no-cache, no-store, must-revalidate';

/**
 * The operations endpoints of every process (issue 3), answered straight on the Fastify reply so that no
 * app-wide interceptor or filter (the gateway's envelope) reshapes them:
 *
 * - `GET /healthz` liveness: 200 `{ status: 'ok', info: { eventLoop: { status: 'up', maxDelayMs } }, error: {}, details }`;
 *   never touches a dependency.
 * - `GET /readyz` readiness: every {@link ReadinessRegistry} check; 200 `{ status: 'ok', info, error: {}, details }`
 *   when all are up, 503 `{ status: 'error' | 'shutting_down', info, error: { <check>: { status: 'down', message } }, details }`
 *   (terminus' shape) otherwise; `shutting_down` from SIGTERM on, so traffic drains before the process stops.
 * - `GET /metrics` the Prometheus text of {@link Metrics}, with the registry's content type.
 */
@ApiExcludeController()
@Controller()
export class OpsController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: OpsHealthIndicators,
    private readonly metrics: Metrics,
  ) {}

  @Get('healthz')
  async liveness(@Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, () => this.health.check([() => this.indicators.eventLoop()]));
  }

  @Get('readyz')
  async readiness(@Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, () => this.health.check(this.indicators.readinessIndicators()));
  }

  @Get('metrics')
  async prometheus(@Res() reply: FastifyReply): Promise<void> {
    const text = await this.metrics.text();
    await reply.code(200).header('content-type', this.metrics.contentType).header('cache-control', NO_CACHE).send(text);
  }

  private async answer(reply: FastifyReply, check: () => Promise<unknown>): Promise<void> {
    let status = 200;
    let body: unknown;
    try {
      body = await check();
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      status = 503;
      body = err.getResponse();
    }
    await reply.code(status).header('cache-control', NO_CACHE).send(body);
  }
}

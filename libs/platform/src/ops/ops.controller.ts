import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { OPS_NO_CACHE, OpsEndpoints } from './ops-endpoints';

/**
 * `GET /healthz` (liveness) and `GET /readyz` (readiness) on the process's HTTP app ({@link OpsEndpoints}
 * for the shapes), answered straight on the Fastify reply so that no app-wide interceptor or filter
 * (the gateway's envelope) reshapes them.
 */
@ApiExcludeController()
@Controller()
export class OpsController {
  constructor(private readonly endpoints: OpsEndpoints) {}

  @Get('healthz')
  async liveness(@Res() reply: FastifyReply): Promise<void> {
    const { status, body } = await this.endpoints.liveness();
    await reply.code(status).header('cache-control', OPS_NO_CACHE).send(body);
  }

  @Get('readyz')
  async readiness(@Res() reply: FastifyReply): Promise<void> {
    const { status, body } = await this.endpoints.readiness();
    await reply.code(status).header('cache-control', OPS_NO_CACHE).send(body);
  }
}

/**
 * `GET /metrics` on the process's HTTP app: the Prometheus text, with the registry's content type. Only
 * mounted when `OpsOptions.metricsOnHttp` is set (a cluster service's ops port); on a public API it is
 * served by the separate ops listener instead (docs/configuration.md, `OPS_PORT`).
 */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(private readonly endpoints: OpsEndpoints) {}

  @Get('metrics')
  async prometheus(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, text } = await this.endpoints.prometheus();
    await reply.code(200).header('content-type', contentType).header('cache-control', OPS_NO_CACHE).send(text);
  }
}

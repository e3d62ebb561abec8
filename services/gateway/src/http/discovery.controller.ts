import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { llmsTxt } from './llms-txt';
import { PublicRoute } from './route-kinds';

/**
 * Discovery for agents outside `/api/v1` (docs/api.md, "Endpoints"): `GET /llms.txt`, a short plain-text
 * guide ({@link llmsTxt}) that MPP clients look for beside `/openapi.json` (`mppx validate` checks it).
 * Answered straight on the Fastify reply, as the ops endpoints are, so that the JSON envelope does not wrap it.
 */
@ApiExcludeController()
@Controller()
export class DiscoveryController {
  private readonly text: string;

  constructor(@Inject(GATEWAY_OPTIONS) options: GatewayOptions) {
    const payments = options.payments!;
    this.text = llmsTxt({
      billingMode: options.billingMode,
      anonymousPerMinute: options.anonymousPerMinute,
      payment: { realm: payments.realm, chainId: payments.chainId, currency: payments.currency },
    });
  }

  /** `GET /llms.txt`: the guide as `text/plain; charset=utf-8`, no auth, no rate limit (built once at start-up). */
  @Get('llms.txt')
  @PublicRoute()
  async llms(@Res() reply: FastifyReply): Promise<void> {
    await reply.code(200).header('content-type', 'text/plain; charset=utf-8').send(this.text);
  }
}

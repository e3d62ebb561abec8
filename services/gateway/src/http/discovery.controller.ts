import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { routeTableOf } from '../openapi/route-table';
import { llmsTxt } from './llms-txt';
import { PublicRoute } from './route-kinds';

/**
 * Discovery for agents outside `/api/v1` (docs/api.md, "Endpoints"): `GET /llms.txt`, a short plain-text
 * guide ({@link llmsTxt}; its main calls read from the same route table as the OpenAPI document) that MPP clients look for beside `/openapi.json` (`mppx validate` checks it).
 * Answered straight on the Fastify reply, as the ops endpoints are, so that the JSON envelope does not wrap it.
 */
@ApiExcludeController()
@Controller()
export class DiscoveryController {
  private text?: string;

  constructor(
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
    private readonly modules: ModulesContainer,
  ) {}

  /** `GET /llms.txt`: the guide as `text/plain; charset=utf-8`, no auth, no rate limit (built on the first request, when every controller is known, then kept). */
  @Get('llms.txt')
  @PublicRoute()
  async llms(@Res() reply: FastifyReply): Promise<void> {
    await reply.code(200).header('content-type', 'text/plain; charset=utf-8').send((this.text ??= this.build()));
  }

  private build(): string {
    const payments = this.options.payments!;
    return llmsTxt({
      billingMode: this.options.billingMode,
      anonymousPerMinute: this.options.anonymousPerMinute,
      payment: { realm: payments.realm, chainId: payments.chainId, currency: payments.currency },
      routes: routeTableOf(this.modules),
    });
  }
}

import { Body, Controller, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import { AgentKeyListSchema, EmptyBodySchema, RevokeKeyResponseSchema, RotateKeyBodySchema, RotateKeyResponseSchema, SUBJECTS } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { AgentKeyGuard } from '../auth/agent-key.guard';
import { type GatewayRequest, principalOf } from '../auth/request-context';
import { AgentRateLimitGuard } from '../rate-limit/rate-limit.guards';
import { RotateKeyDto } from './dto';
import { validate } from './validate';

/**
 * The caller's own agent keys (docs/authentication.md, "Agent keys"): list (no secrets), rotate (the new
 * key once; the previous keys stay valid for the grace period), revoke (at once). Free. Agent key or,
 * for `local` agents, wallet signature (never a passkey session: 403). Revoking, or rotating with
 * `graceSeconds: 0`, from here also drops a human's claim on the agent, so that a leaked key used to
 * claim it keeps no foothold.
 */
@ApiTags('agent keys')
@ApiBearerAuth()
@Controller('api/v1/agents/keys')
@UseGuards(AgentKeyGuard, AgentRateLimitGuard)
export class AgentKeysController {
  constructor(private readonly bus: BusClient) {}

  @Get()
  list(@Req() req: GatewayRequest) {
    return this.bus.request(SUBJECTS.agents.listKeys, { agentId: principalOf(req).agentId }, AgentKeyListSchema);
  }

  @Post('rotate')
  @HttpCode(200)
  @ApiBody({ type: RotateKeyDto, required: false })
  rotate(@Req() req: GatewayRequest, @Body() body: unknown) {
    const { graceSeconds } = validate(RotateKeyBodySchema, body === undefined ? {} : body, 'body');
    return this.bus.request(SUBJECTS.agents.rotateKey, { agentId: principalOf(req).agentId, graceSeconds, requestedBy: 'agent' }, RotateKeyResponseSchema);
  }

  @Post(':keyId/revoke')
  @HttpCode(200)
  revoke(@Req() req: GatewayRequest, @Param('keyId') keyId: string, @Body() body: unknown) {
    validate(EmptyBodySchema, body === undefined ? {} : body, 'body');
    return this.bus.request(SUBJECTS.agents.revokeKey, { agentId: principalOf(req).agentId, keyId, requestedBy: 'agent' }, RevokeKeyResponseSchema);
  }
}

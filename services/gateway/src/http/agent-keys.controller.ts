import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AgentKeyListSchema, RevokeKeyResponseSchema, RotateKeyResponseSchema, SUBJECTS } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { Principal } from '../auth/principal.decorator';
import { EmptyBodyDto, RotateKeyDto } from './dto';
import { AgentRoute } from './route-kinds';

/**
 * The caller's own agent keys (docs/authentication.md, "Agent keys"): list (no secrets), rotate (the new
 * key once; the previous keys stay valid for the grace period), revoke (at once). Free. Agent key or,
 * for `local` agents, wallet signature (never a passkey session: 403). Revoking, or rotating with
 * `graceSeconds: 0`, from here also drops a human's claim on the agent, so that a leaked key used to
 * claim it keeps no foothold.
 */
@ApiTags('agent keys')
@Controller('api/v1/agents/keys')
export class AgentKeysController {
  constructor(private readonly bus: BusClient) {}

  @Get()
  @Returns(AgentKeyListSchema, { summary: 'List the agent\'s keys (no secrets)' })
  @AgentRoute()
  list(@Principal() principal: Principal) {
    return this.bus.request(SUBJECTS.agents.listKeys, { agentId: principal.agentId }, AgentKeyListSchema);
  }

  @Post('rotate')
  @HttpCode(200)
  @Returns(RotateKeyResponseSchema, { summary: 'Rotate the agent key', description: 'The new key is shown once; the previous keys stay valid for `graceSeconds`.' })
  @AgentRoute()
  rotate(@Principal() principal: Principal, @Body() { graceSeconds }: RotateKeyDto) {
    return this.bus.request(SUBJECTS.agents.rotateKey, { agentId: principal.agentId, graceSeconds, requestedBy: 'agent' }, RotateKeyResponseSchema);
  }

  @Post(':keyId/revoke')
  @HttpCode(200)
  @Returns(RevokeKeyResponseSchema, { summary: 'Revoke an agent key at once', errors: ['NOT_FOUND'] })
  @AgentRoute()
  revoke(@Principal() principal: Principal, @Param('keyId') keyId: string, @Body() _body: EmptyBodyDto) {
    return this.bus.request(SUBJECTS.agents.revokeKey, { agentId: principal.agentId, keyId, requestedBy: 'agent' }, RevokeKeyResponseSchema);
  }
}

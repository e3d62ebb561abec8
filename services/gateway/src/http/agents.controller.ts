import { Body, Controller, Get, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import { AgentSchema, CreateAgentBodySchema, CreateAgentResponseSchema, SUBJECTS } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { AgentKeyGuard } from '../auth/agent-key.guard';
import { type GatewayRequest, principalOf } from '../auth/request-context';
import { AgentRateLimitGuard, AnonymousRateLimitGuard } from '../rate-limit/rate-limit.guards';
import { CreateAgentDto } from './dto';
import { validate } from './validate';

/** Agents (spec, "Agents"): free. */
@ApiTags('agents')
@Controller('api/v1/agents')
export class AgentsController {
  constructor(private readonly bus: BusClient) {}

  /** Create agent: no Authorization; returns the agent key (shown once), record id and wallet address. */
  @Post()
  @HttpCode(201)
  @UseGuards(AnonymousRateLimitGuard)
  @ApiBody({ type: CreateAgentDto })
  create(@Body() body: unknown) {
    return this.bus.request(SUBJECTS.agents.create, { body: validate(CreateAgentBodySchema, body, 'body') }, CreateAgentResponseSchema);
  }

  /** Get agent: the caller's own agent. */
  @Get()
  @ApiBearerAuth()
  @UseGuards(AgentKeyGuard, AgentRateLimitGuard)
  get(@Req() req: GatewayRequest) {
    return this.bus.request(SUBJECTS.agents.get, { agentId: principalOf(req).agentId }, AgentSchema);
  }
}

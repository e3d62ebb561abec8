import { Body, Controller, Delete, Get, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import {
  AgentSchema,
  ClaimsReleaseByAgentReplySchema,
  CreateAgentBodySchema,
  CreateAgentResponseSchema,
  EmptyBodySchema,
  SUBJECTS,
  WalletChallengeBodySchema,
  WalletChallengeResponseSchema,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { AgentKeyGuard } from '../auth/agent-key.guard';
import { type GatewayRequest, principalOf } from '../auth/request-context';
import { AgentRateLimitGuard, AnonymousRateLimitGuard } from '../rate-limit/rate-limit.guards';
import { CreateAgentDto, WalletChallengeDto } from './dto';
import { validate } from './validate';

/** Agents (spec, "Agents"): free. */
@ApiTags('agents')
@Controller('api/v1/agents')
export class AgentsController {
  constructor(private readonly bus: BusClient) {}

  /**
   * Create agent: no Authorization; returns the agent key (shown once), record id and wallet address. A
   * client-supplied `walletAddress` needs a `walletProof` (see walletChallenge).
   */
  @Post()
  @HttpCode(201)
  @UseGuards(AnonymousRateLimitGuard)
  @ApiBody({ type: CreateAgentDto })
  create(@Body() body: unknown) {
    return this.bus.request(SUBJECTS.agents.create, { body: validate(CreateAgentBodySchema, body, 'body') }, CreateAgentResponseSchema);
  }

  /**
   * Wallet challenge (docs/authentication.md, "Binding your own wallet"): the EIP-4361 message a client
   * signs with its wallet to create an agent with that `walletAddress`. No Authorization; free; single
   * use; valid 5 minutes.
   */
  @Post('wallet-challenge')
  @HttpCode(200)
  @UseGuards(AnonymousRateLimitGuard)
  @ApiBody({ type: WalletChallengeDto })
  walletChallenge(@Body() body: unknown) {
    return this.bus.request(SUBJECTS.agents.walletChallenge, validate(WalletChallengeBodySchema, body, 'body'), WalletChallengeResponseSchema);
  }

  /** Get agent: the caller's own agent. */
  @Get()
  @ApiBearerAuth()
  @UseGuards(AgentKeyGuard, AgentRateLimitGuard)
  get(@Req() req: GatewayRequest) {
    return this.bus.request(SUBJECTS.agents.get, { agentId: principalOf(req).agentId }, AgentSchema);
  }

  /**
   * The agent drops a human's claim on it (docs/authentication.md, "Claiming and managing an agent"):
   * `{ released: true }`, or `false` when no one had claimed it. Agent key or wallet signature only: a
   * passkey session is 403 (the human has `DELETE /humans/me/agents/{agentId}`).
   */
  @Delete('claim')
  @HttpCode(200)
  @ApiBearerAuth()
  @UseGuards(AgentKeyGuard, AgentRateLimitGuard)
  releaseClaim(@Req() req: GatewayRequest, @Body() body: unknown) {
    validate(EmptyBodySchema, body === undefined ? {} : body, 'body');
    return this.bus.request(SUBJECTS.humans.releaseClaimByAgent, { agentId: principalOf(req).agentId }, ClaimsReleaseByAgentReplySchema);
  }
}

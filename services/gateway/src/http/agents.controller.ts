import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AgentSchema, ClaimsReleaseByAgentReplySchema, CreateAgentResponseSchema, SUBJECTS, WalletChallengeResponseSchema } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { Principal } from '../auth/principal.decorator';
import { CreateAgentDto, EmptyBodyDto, WalletChallengeDto } from './dto';
import { AgentRoute, PublicRoute } from './route-kinds';

/** Agents (docs/api.md, "Agents and keys"): free. */
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
  @Returns(CreateAgentResponseSchema, { summary: 'Create an agent', description: 'The agent key is shown once; keep it secret. A client-supplied `walletAddress` needs a `walletProof` (see the wallet challenge).' })
  @PublicRoute({ limit: 'client' })
  create(@Body() body: CreateAgentDto) {
    return this.bus.request(SUBJECTS.agents.create, { body }, CreateAgentResponseSchema);
  }

  /**
   * Wallet challenge (docs/authentication.md, "Binding your own wallet"): the EIP-4361 message a client
   * signs with its wallet to create an agent with that `walletAddress`. No Authorization; free; single
   * use; valid 5 minutes.
   */
  @Post('wallet-challenge')
  @HttpCode(200)
  @Returns(WalletChallengeResponseSchema, { summary: 'Get a wallet challenge to bind your own wallet', description: 'The EIP-4361 message to sign with the wallet before creating an agent with that `walletAddress`; single use, valid 5 minutes.' })
  @PublicRoute({ limit: 'client' })
  walletChallenge(@Body() body: WalletChallengeDto) {
    return this.bus.request(SUBJECTS.agents.walletChallenge, body, WalletChallengeResponseSchema);
  }

  /** Get agent: the caller's own agent. */
  @Get()
  @Returns(AgentSchema, { summary: 'Get the calling agent' })
  @AgentRoute()
  get(@Principal() principal: Principal) {
    return this.bus.request(SUBJECTS.agents.get, { agentId: principal.agentId }, AgentSchema);
  }

  /**
   * The agent drops a human's claim on it (docs/authentication.md, "Claiming and managing an agent"):
   * `{ released: true }`, or `false` when no one had claimed it. Agent key or wallet signature only: a
   * passkey session is 403 (the human has `DELETE /humans/me/agents/{agentId}`).
   */
  @Delete('claim')
  @HttpCode(200)
  @Returns(ClaimsReleaseByAgentReplySchema, { summary: 'Drop a human\'s claim on this agent', description: '`released: false` when no human had claimed it. A passkey session is 403.' })
  @AgentRoute()
  releaseClaim(@Principal() principal: Principal, @Body() _body: EmptyBodyDto) {
    return this.bus.request(SUBJECTS.humans.releaseClaimByAgent, { agentId: principal.agentId }, ClaimsReleaseByAgentReplySchema);
  }
}

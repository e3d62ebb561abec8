import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiSecurity, ApiTags } from '@nestjs/swagger';
import {
  EmptyBodySchema,
  AgentKeyListSchema,
  AgentSchema,
  ClaimAgentBodySchema,
  ClaimedAgentListSchema,
  ClaimedAgentSchema,
  ClaimsDeleteReplySchema,
  HumanSchema,
  ListRecordsQuerySchema,
  RecordListSchema,
  RevokeKeyResponseSchema,
  RotateKeyBodySchema,
  RotateKeyResponseSchema,
  SUBJECTS,
  UsageQuerySchema,
  UsageSummarySchema,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { ClaimedAgentGuard, HumanSessionGuard } from '../auth/human-session.guard';
import { type GatewayRequest, humanOf, principalOf } from '../auth/request-context';
import { ClaimAgentDto, RotateKeyDto } from './dto';
import { validate } from './validate';

/**
 * A signed-in human's account and the agents it claimed (docs/authentication.md, "Humans"): claim an
 * agent with its key once, then list, read (records, usage; records, memories and files through the
 * record routes with the same credential) and manage keys (rotate, revoke). `Authorization: Passkey`.
 */
@ApiTags('humans')
@ApiSecurity('passkey')
@Controller('api/v1/humans/me')
@UseGuards(HumanSessionGuard)
export class HumansController {
  constructor(private readonly bus: BusClient) {}

  @Get()
  me(@Req() req: GatewayRequest) {
    return this.bus.request(SUBJECTS.humans.get, { humanId: humanOf(req).humanId }, HumanSchema);
  }

  @Get('agents')
  agents(@Req() req: GatewayRequest) {
    return this.bus.request(SUBJECTS.humans.listClaims, { humanId: humanOf(req).humanId }, ClaimedAgentListSchema);
  }

  /** Claim: present the agent's key once; the agent is then this human's (201). */
  @Post('agents')
  @HttpCode(201)
  @ApiBody({ type: ClaimAgentDto })
  claim(@Req() req: GatewayRequest, @Body() body: unknown) {
    const { agentKey } = validate(ClaimAgentBodySchema, body, 'body');
    return this.bus.request(SUBJECTS.humans.claim, { humanId: humanOf(req).humanId, agentKey }, ClaimedAgentSchema);
  }

  @Get('agents/:agentId')
  @UseGuards(ClaimedAgentGuard)
  agent(@Req() req: GatewayRequest) {
    return this.bus.request(SUBJECTS.agents.get, { agentId: principalOf(req).agentId }, AgentSchema);
  }

  /** Gives the agent up (its keys keep working; another human may then claim it). */
  @Delete('agents/:agentId')
  @HttpCode(200)
  @UseGuards(ClaimedAgentGuard)
  release(@Req() req: GatewayRequest) {
    return this.bus.request(SUBJECTS.humans.releaseClaim, { humanId: humanOf(req).humanId, agentId: principalOf(req).agentId }, ClaimsDeleteReplySchema);
  }

  @Get('agents/:agentId/records')
  @UseGuards(ClaimedAgentGuard)
  records(@Req() req: GatewayRequest, @Query() query: unknown) {
    return this.bus.request(SUBJECTS.records.list, { agentId: principalOf(req).agentId, query: validate(ListRecordsQuerySchema, query, 'query') }, RecordListSchema);
  }

  /** The agent's usage ledger, both environments (same query as GET /api/v1/billing/usage). */
  @Get('agents/:agentId/usage')
  @UseGuards(ClaimedAgentGuard)
  usage(@Req() req: GatewayRequest, @Query() query: unknown) {
    const q = validate(UsageQuerySchema, query, 'query');
    const at = (d: string | undefined) => (d === undefined ? undefined : new Date(d).toISOString());
    return this.bus.request(
      SUBJECTS.billing.usage,
      { agentId: principalOf(req).agentId, limit: q.limit, offset: q.offset, operation: q.operation, from: at(q.from), to: at(q.to) },
      UsageSummarySchema,
    );
  }

  @Get('agents/:agentId/keys')
  @UseGuards(ClaimedAgentGuard)
  keys(@Req() req: GatewayRequest) {
    return this.bus.request(SUBJECTS.agents.listKeys, { agentId: principalOf(req).agentId }, AgentKeyListSchema);
  }

  @Post('agents/:agentId/keys/rotate')
  @HttpCode(200)
  @UseGuards(ClaimedAgentGuard)
  @ApiBody({ type: RotateKeyDto, required: false })
  rotate(@Req() req: GatewayRequest, @Body() body: unknown) {
    const { graceSeconds } = validate(RotateKeyBodySchema, body === undefined ? {} : body, 'body');
    return this.bus.request(SUBJECTS.agents.rotateKey, { agentId: principalOf(req).agentId, graceSeconds, requestedBy: 'human' }, RotateKeyResponseSchema);
  }

  @Post('agents/:agentId/keys/:keyId/revoke')
  @HttpCode(200)
  @UseGuards(ClaimedAgentGuard)
  revoke(@Req() req: GatewayRequest, @Param('keyId') keyId: string, @Body() body: unknown) {
    validate(EmptyBodySchema, body === undefined ? {} : body, 'body');
    return this.bus.request(SUBJECTS.agents.revokeKey, { agentId: principalOf(req).agentId, keyId, requestedBy: 'human' }, RevokeKeyResponseSchema);
  }
}

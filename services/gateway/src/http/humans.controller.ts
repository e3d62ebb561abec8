import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  AgentKeyListSchema,
  AgentSchema,
  ClaimedAgentListSchema,
  ClaimedAgentSchema,
  ClaimsDeleteReplySchema,
  HumanSchema,
  RecordListSchema,
  RevokeKeyResponseSchema,
  RotateKeyResponseSchema,
  SUBJECTS,
  UsageSummarySchema,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { Principal, SignedInHuman } from '../auth/principal.decorator';
import { ClaimAgentDto, EmptyBodyDto, ListRecordsQueryDto, RotateKeyDto, UsageQueryDto } from './dto';
import { HumanRoute } from './route-kinds';

/**
 * A signed-in human's account and the agents it claimed (docs/authentication.md, "Passkeys (humans)"): claim an
 * agent with its key once, then list, read (records, usage; records, memories and files through the
 * record routes with the same credential) and manage keys (rotate, revoke). `Authorization: Passkey`.
 * On the `agents/:agentId` routes the principal is that claimed agent.
 */
@ApiTags('humans')
@Controller('api/v1/humans/me')
export class HumansController {
  constructor(private readonly bus: BusClient) {}

  @Get()
  @Returns(HumanSchema, { summary: 'The signed-in human\'s account' })
  @HumanRoute()
  me(@SignedInHuman() human: SignedInHuman) {
    return this.bus.request(SUBJECTS.humans.get, { humanId: human.humanId }, HumanSchema);
  }

  @Get('agents')
  @Returns(ClaimedAgentListSchema, { summary: 'The agents the human claimed' })
  @HumanRoute()
  agents(@SignedInHuman() human: SignedInHuman) {
    return this.bus.request(SUBJECTS.humans.listClaims, { humanId: human.humanId }, ClaimedAgentListSchema);
  }

  /** Claim: present the agent's key once; the agent is then this human's (201). */
  @Post('agents')
  @HttpCode(201)
  @Returns(ClaimedAgentSchema, { summary: 'Claim an agent with its key', description: 'Present the agent\'s key once; the agent is then this human\'s. A key that is not valid (unknown, revoked, rotated away) or an agent claimed by another account: 403.', errors: ['FORBIDDEN'] })
  @HumanRoute()
  claim(@SignedInHuman() human: SignedInHuman, @Body() { agentKey }: ClaimAgentDto) {
    return this.bus.request(SUBJECTS.humans.claim, { humanId: human.humanId, agentKey }, ClaimedAgentSchema);
  }

  @Get('agents/:agentId')
  @Returns(AgentSchema, { summary: 'A claimed agent' })
  @HumanRoute({ claimedAgent: true })
  agent(@Principal() principal: Principal) {
    return this.bus.request(SUBJECTS.agents.get, { agentId: principal.agentId }, AgentSchema);
  }

  /** Gives the agent up (its keys keep working; another human may then claim it). */
  @Delete('agents/:agentId')
  @HttpCode(200)
  @Returns(ClaimsDeleteReplySchema, { summary: 'Give a claimed agent up', description: 'Its keys keep working; another human may then claim it.' })
  @HumanRoute({ claimedAgent: true })
  release(@SignedInHuman() human: SignedInHuman, @Principal() principal: Principal) {
    return this.bus.request(SUBJECTS.humans.releaseClaim, { humanId: human.humanId, agentId: principal.agentId }, ClaimsDeleteReplySchema);
  }

  @Get('agents/:agentId/records')
  @Returns(RecordListSchema, { summary: 'A claimed agent\'s records' })
  @HumanRoute({ claimedAgent: true })
  records(@Principal() principal: Principal, @Query() query: ListRecordsQueryDto) {
    return this.bus.request(SUBJECTS.records.list, { agentId: principal.agentId, query }, RecordListSchema);
  }

  /** The agent's usage ledger, both environments (same query as GET /api/v1/billing/usage). */
  @Get('agents/:agentId/usage')
  @Returns(UsageSummarySchema, { summary: 'A claimed agent\'s usage ledger (both environments)' })
  @HumanRoute({ claimedAgent: true })
  usage(@Principal() principal: Principal, @Query() q: UsageQueryDto) {
    const at = (d: string | undefined) => (d === undefined ? undefined : new Date(d).toISOString());
    return this.bus.request(
      SUBJECTS.billing.usage,
      { agentId: principal.agentId, limit: q.limit, offset: q.offset, operation: q.operation, from: at(q.from), to: at(q.to) },
      UsageSummarySchema,
    );
  }

  @Get('agents/:agentId/keys')
  @Returns(AgentKeyListSchema, { summary: 'A claimed agent\'s keys' })
  @HumanRoute({ claimedAgent: true })
  keys(@Principal() principal: Principal) {
    return this.bus.request(SUBJECTS.agents.listKeys, { agentId: principal.agentId }, AgentKeyListSchema);
  }

  @Post('agents/:agentId/keys/rotate')
  @HttpCode(200)
  @Returns(RotateKeyResponseSchema, { summary: 'Rotate a claimed agent\'s key' })
  @HumanRoute({ claimedAgent: true })
  rotate(@Principal() principal: Principal, @Body() { graceSeconds }: RotateKeyDto) {
    return this.bus.request(SUBJECTS.agents.rotateKey, { agentId: principal.agentId, graceSeconds, requestedBy: 'human' }, RotateKeyResponseSchema);
  }

  @Post('agents/:agentId/keys/:keyId/revoke')
  @HttpCode(200)
  @Returns(RevokeKeyResponseSchema, { summary: 'Revoke a claimed agent\'s key' })
  @HumanRoute({ claimedAgent: true })
  revoke(@Principal() principal: Principal, @Param('keyId') keyId: string, @Body() _body: EmptyBodyDto) {
    return this.bus.request(SUBJECTS.agents.revokeKey, { agentId: principal.agentId, keyId, requestedBy: 'human' }, RevokeKeyResponseSchema);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  AGENTS_ACTIVITY_MAX_AGENTS,
  AgentKeyListSchema,
  BillingAgentsActivityReplySchema,
  type ClaimedAgent,
  ClaimedAgentListSchema,
  type ClaimedAgentOverview,
  ClaimedAgentOverviewListSchema,
  ClaimedAgentOverviewSchema,
  ClaimedAgentSchema,
  ClaimsDeleteReplySchema,
  HumanSchema,
  HumanWithSessionSchema,
  NotFoundError,
  PasskeyIdSchema,
  PasskeysDeleteReplySchema,
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
import { UsageRecorder } from '../billing/usage-recorder';

/**
 * A signed-in human's account and the agents it claimed (docs/authentication.md, "Passkeys (humans)"): claim an
 * agent with its key once, then list, read (records, usage; records, memories and files through the
 * record routes with the same credential) and manage keys (rotate, revoke). `Authorization: Passkey`.
 * On the `agents/:agentId` routes the principal is that claimed agent; a Sign in with Ethereum session
 * reaches only the agents of its wallet (another agent of the account: 403; docs/authentication.md).
 */
@ApiTags('humans')
@Controller('api/v1/humans/me')
export class HumansController {
  constructor(
    private readonly bus: BusClient,
    private readonly recorder: UsageRecorder,
  ) {}

  /**
   * The account and the session the call was made with: `session.method` (`passkey` or `siwe`) and, for a
   * Sign in with Ethereum session, `session.walletAddress`, the wallet whose agents alone it reaches.
   */
  @Get()
  @Returns(HumanWithSessionSchema, {
    summary: 'The signed-in human\'s account, and the session of the call',
    description: 'The account with its passkeys, and `session`: how it was opened (`passkey`, or `siwe` for Sign in with Ethereum), its wallet (`siwe`: it reaches only the agents with this wallet; else null) and its expiry.',
  })
  @HumanRoute()
  async me(@SignedInHuman() human: SignedInHuman) {
    const account = await this.bus.request(SUBJECTS.humans.get, { humanId: human.humanId }, HumanSchema);
    return { ...account, session: { method: human.method, walletAddress: human.walletAddress, expiresAt: human.expiresAt } };
  }

  /**
   * Deletes one of the human's passkeys (docs/authentication.md, "Passkeys (humans)"): never the last one
   * (403); another human's or an unknown id: 404; a Sign in with Ethereum session of an account with
   * passkeys: 403. Every other session of the human ends; the calling one stays open.
   */
  @Delete('passkeys/:passkeyId')
  @HttpCode(200)
  @Returns(PasskeysDeleteReplySchema, {
    summary: 'Delete one of the human\'s passkeys',
    description: 'Answers the passkeys the account keeps. The last passkey cannot be deleted (403, nothing changes); a Sign in with Ethereum session may not delete passkeys (403: sign in with a passkey); another account\'s or an unknown id: 404. Every other session of the account ends; the calling session stays open.',
    errors: ['FORBIDDEN', 'NOT_FOUND'],
  })
  @HumanRoute()
  deletePasskey(@SignedInHuman() human: SignedInHuman, @Param('passkeyId') passkeyId: string) {
    if (!PasskeyIdSchema.safeParse(passkeyId).success) throw new NotFoundError('Passkey not found');
    return this.bus.request(SUBJECTS.humans.deletePasskey, { humanId: human.humanId, sessionId: human.sessionId, passkeyId }, PasskeysDeleteReplySchema);
  }

  /**
   * The claimed agents, most recent claim first, each with its balances (live and test) and
   * `lastActivityAt` (its last ledger entry): two bus round trips whatever the number of agents. A Sign in
   * with Ethereum session lists only the agents of its wallet (docs/authentication.md).
   */
  @Get('agents')
  @Returns(ClaimedAgentOverviewListSchema, {
    summary: 'The agents the human claimed, with their balances and last activity',
    description: 'A Sign in with Ethereum session lists only the agents of the wallet that signed it in; a passkey session, all of them.',
  })
  @HumanRoute()
  async agents(@SignedInHuman() human: SignedInHuman) {
    const { agents } = await this.bus.request(SUBJECTS.humans.listClaims, { humanId: human.humanId, sessionId: human.sessionId }, ClaimedAgentListSchema);
    return { agents: await this.withActivity(agents) };
  }

  /** Claim: present the agent's key once; the agent is then this human's (201). A Sign in with Ethereum session: 403. */
  @Post('agents')
  @HttpCode(201)
  @Returns(ClaimedAgentSchema, {
    summary: 'Claim an agent with its key',
    description: 'Present the agent\'s key once; the agent is then this human\'s. A key that is not valid (unknown, revoked, rotated away), an agent claimed by another account, or a Sign in with Ethereum session (sign in with a passkey to claim more agents): 403.',
    errors: ['FORBIDDEN'],
  })
  @HumanRoute()
  claim(@SignedInHuman() human: SignedInHuman, @Body() { agentKey }: ClaimAgentDto) {
    return this.bus.request(SUBJECTS.humans.claim, { humanId: human.humanId, sessionId: human.sessionId, agentKey }, ClaimedAgentSchema);
  }

  /** A claimed agent as in the list: with `claimedAt`, its balances and `lastActivityAt`. */
  @Get('agents/:agentId')
  @Returns(ClaimedAgentOverviewSchema, { summary: 'A claimed agent, with its balances and last activity' })
  @HumanRoute({ claimedAgent: true })
  async agent(@SignedInHuman() human: SignedInHuman, @Principal() principal: Principal) {
    const { agents } = await this.bus.request(SUBJECTS.humans.listClaims, { humanId: human.humanId, sessionId: human.sessionId }, ClaimedAgentListSchema);
    const claimed = agents.find((a) => a.id === principal.agentId);
    // Released between the claim check and this read.
    if (!claimed) throw new NotFoundError('Agent not found');
    return (await this.withActivity([claimed]))[0];
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
  async usage(@Principal() principal: Principal, @Query() q: UsageQueryDto) {
    const at = (d: string | undefined) => (d === undefined ? undefined : new Date(d).toISOString());
    await this.recorder.settled(principal.agentId);
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

  /**
   * Adds each agent's balances and last activity from billing: one `billing.v1.agents-activity` message per
   * {@link AGENTS_ACTIVITY_MAX_AGENTS} agents (one for any human's list in practice), not one per agent.
   */
  private async withActivity(agents: ClaimedAgent[]): Promise<ClaimedAgentOverview[]> {
    await Promise.all(agents.map((agent) => this.recorder.settled(agent.id)));
    const chunks: string[][] = [];
    for (let i = 0; i < agents.length; i += AGENTS_ACTIVITY_MAX_AGENTS) chunks.push(agents.slice(i, i + AGENTS_ACTIVITY_MAX_AGENTS).map((a) => a.id));
    const replies = await Promise.all(chunks.map((agentIds) => this.bus.request(SUBJECTS.billing.agentsActivity, { agentIds }, BillingAgentsActivityReplySchema)));
    const activity = new Map(replies.flatMap((r) => r.agents).map((a) => [a.agentId, a]));
    return agents.map((agent) => {
      const found = activity.get(agent.id);
      if (!found) throw new Error(`billing.v1.agents-activity answered nothing for ${agent.id}`);
      return { ...agent, balance: found.balance, lastActivityAt: found.lastActivityAt };
    });
  }
}

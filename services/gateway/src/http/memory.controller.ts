import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import {
  ContextQuerySchema,
  ContextResponseSchema,
  ForgetResponseSchema,
  ForgetTargetSchema,
  MemoryRememberReplySchema,
  RecallBodySchema,
  RecallResponseSchema,
  RememberBodySchema,
  resolveForgetTarget,
  SUBJECTS,
  ValidationError,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { AgentKeyGuard } from '../auth/agent-key.guard';
import { AllowPasskey } from '../auth/allow-passkey.decorator';
import { RecordAccessGuard } from '../auth/record-access.guard';
import { type GatewayRequest, principalOf } from '../auth/request-context';
import { PaidCall, PaymentAuthGuard } from '../billing/payment-auth.guard';
import { UsageRecorder } from '../billing/usage-recorder';
import { AgentRateLimitGuard, RecordRateLimit, RecordRateLimitGuard } from '../rate-limit/rate-limit.guards';
import { ForgetDto, RecallDto, RememberDto } from './dto';
import { validate } from './validate';

/** Memories (spec, "Memory and files"): paid, 0.05 USD a call, by agent key (balance) or Payment credential (docs/billing.md). */
@ApiTags('memories')
@ApiBearerAuth()
@Controller('api/v1/records/:recordId')
@UseGuards(PaymentAuthGuard, AgentKeyGuard, AgentRateLimitGuard, RecordAccessGuard, RecordRateLimitGuard)
export class MemoryController {
  constructor(
    private readonly bus: BusClient,
    private readonly usage: UsageRecorder,
  ) {}

  @Post('recall')
  @HttpCode(200)
  @PaidCall('recall')
  @AllowPasskey()
  @RecordRateLimit('query')
  @ApiBody({ type: RecallDto })
  recall(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Body() body: unknown) {
    const parsed = validate(RecallBodySchema, body, 'body');
    return this.usage.paid(req, 'recall', recordId, () =>
      this.bus.request(SUBJECTS.memory.recall, { agentId: principalOf(req).agentId, recordId, body: parsed }, RecallResponseSchema),
    );
  }

  @Post('remember')
  @HttpCode(200)
  @PaidCall('remember')
  @RecordRateLimit('write')
  @ApiBody({ type: RememberDto })
  async remember(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Body() body: unknown) {
    const parsed = validate(RememberBodySchema, body, 'body');
    const reply = await this.usage.paid(
      req,
      'remember',
      recordId,
      () => this.bus.request(SUBJECTS.memory.remember, { agentId: principalOf(req).agentId, recordId, body: parsed }, MemoryRememberReplySchema),
      (r) => r,
      parsed.idempotency_key,
    );
    return reply.result;
  }

  /** Forget: exactly one of `path` or `id`, in the JSON body or the query string (spec, "Forget"). */
  @Delete('remember')
  @HttpCode(200)
  @PaidCall('forget')
  @RecordRateLimit('write')
  @ApiBody({ type: ForgetDto, required: false })
  forget(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Body() body: unknown, @Query() query: unknown) {
    const fromBody = body === undefined || body === null ? undefined : validate(ForgetTargetSchema, body, 'body');
    const fromQuery = validate(ForgetTargetSchema, query, 'query');
    const target = resolveForgetTarget(fromBody, fromQuery);
    if (!target.ok) throw new ValidationError(target.message);
    return this.usage.paid(req, 'forget', recordId, () =>
      this.bus.request(SUBJECTS.memory.forget, { agentId: principalOf(req).agentId, recordId, target: target.target }, ForgetResponseSchema),
    );
  }

  @Get('context')
  @PaidCall('context')
  @AllowPasskey()
  @RecordRateLimit('query')
  context(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Query() query: unknown) {
    const { limit } = validate(ContextQuerySchema, query, 'query');
    return this.usage.paid(req, 'context', recordId, () =>
      this.bus.request(SUBJECTS.memory.context, { agentId: principalOf(req).agentId, recordId, limit }, ContextResponseSchema),
    );
  }
}

import { Body, Controller, createParamDecorator, Delete, type ExecutionContext, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  ContextResponseSchema,
  ForgetResponseSchema,
  ForgetTargetSchema,
  MemoryRememberReplySchema,
  RecallResponseSchema,
  RememberResponseSchema,
  resolveForgetTarget,
  SUBJECTS,
  ValidationError,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { Principal } from '../auth/principal.decorator';
import type { GatewayRequest } from '../auth/request-context';
import { UsageRecorder } from '../billing/usage-recorder';
import { ContextQueryDto, RecallDto, RememberDto } from './dto';
import { RecordRoute } from './route-kinds';
import { validate } from './validate';

/**
 * Forget's target (docs/api.md, "Memories"): exactly one of `path` or `id`, given in the JSON body or in
 * the query string, not both. A body, when there is one (not `null`), is checked first; then the query.
 */
const ForgetTargetOf = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const { body, query } = context.switchToHttp().getRequest<GatewayRequest>();
  const fromBody = body === undefined || body === null ? undefined : validate(ForgetTargetSchema, body, 'body');
  const target = resolveForgetTarget(fromBody, validate(ForgetTargetSchema, query, 'query'));
  if (!target.ok) throw new ValidationError(target.message);
  return target.target;
});

/** Memories (docs/api.md, "Memories"): paid, 0.05 USD a call, from the agent's balance or by Payment credential (docs/billing.md). */
@ApiTags('memories')
@Controller('api/v1/records/:recordId')
export class MemoryController {
  constructor(
    private readonly bus: BusClient,
    private readonly usage: UsageRecorder,
  ) {}

  @Post('recall')
  @HttpCode(200)
  @Returns(RecallResponseSchema, { summary: 'Recall: the memories of a record ranked for a query' })
  @RecordRoute({ price: 'recall', recordLimit: 'query', passkey: true })
  recall(@Req() req: GatewayRequest, @Principal() principal: Principal, @Param('recordId') recordId: string, @Body() body: RecallDto) {
    return this.usage.paid(req, {
      operation: 'recall',
      recordId,
      call: () => this.bus.request(SUBJECTS.memory.recall, { agentId: principal.agentId, recordId, body }, RecallResponseSchema),
    });
  }

  @Post('remember')
  @HttpCode(200)
  @Returns(RememberResponseSchema, { summary: 'Remember: store a memory at a path (replaces the memory at that path)', description: 'Send an `idempotency_key` with every write you may retry.' })
  @RecordRoute({ price: 'remember', recordLimit: 'write' })
  async remember(@Req() req: GatewayRequest, @Principal() principal: Principal, @Param('recordId') recordId: string, @Body() body: RememberDto) {
    const reply = await this.usage.paid(req, {
      operation: 'remember',
      recordId,
      call: () => this.bus.request(SUBJECTS.memory.remember, { agentId: principal.agentId, recordId, body }, MemoryRememberReplySchema),
      outcome: (r) => r,
      idempotencyKey: body.idempotency_key,
    });
    return reply.result;
  }

  @Delete('remember')
  @HttpCode(200)
  @Returns(ForgetResponseSchema, { summary: 'Forget a memory by path or id', description: 'The target is exactly one of `path` or `id`, in the JSON body or in the query string, not both. The human who claimed the agent may forget with a passkey session, free of charge (the owner\'s right to erase).',
    // ForgetTargetOf reads the target itself (body or query), so the route has no @Body()/@Query() DTO to read it from.
    request: { body: ForgetTargetSchema, bodyRequired: false, query: ForgetTargetSchema },
  })
  @RecordRoute({ price: 'forget', recordLimit: 'write', passkey: 'erase' })
  forget(@Req() req: GatewayRequest, @Principal() principal: Principal, @Param('recordId') recordId: string, @ForgetTargetOf() target: { path: string } | { id: string }) {
    return this.usage.paid(req, {
      operation: 'forget',
      recordId,
      call: () => this.bus.request(SUBJECTS.memory.forget, { agentId: principal.agentId, recordId, target }, ForgetResponseSchema),
    });
  }

  @Get('context')
  @Returns(ContextResponseSchema, { summary: 'Get the newest memories of a record, by type' })
  @RecordRoute({ price: 'context', recordLimit: 'query', passkey: true })
  context(@Req() req: GatewayRequest, @Principal() principal: Principal, @Param('recordId') recordId: string, @Query() { limit }: ContextQueryDto) {
    return this.usage.paid(req, {
      operation: 'context',
      recordId,
      call: () => this.bus.request(SUBJECTS.memory.context, { agentId: principal.agentId, recordId, limit }, ContextResponseSchema),
    });
  }
}

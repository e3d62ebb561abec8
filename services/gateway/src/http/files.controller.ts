import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import {
  FilesWriteReplySchema,
  RawGetQuerySchema,
  RawGetResponseSchema,
  RawPutBodySchema,
  RawPutResponseSchema,
  ReadFileQuerySchema,
  ReadFileResponseSchema,
  SUBJECTS,
  WriteFileBodySchema,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { AgentKeyGuard } from '../auth/agent-key.guard';
import { AllowPasskey } from '../auth/allow-passkey.decorator';
import { RecordAccessGuard } from '../auth/record-access.guard';
import { type GatewayRequest, principalOf } from '../auth/request-context';
import { WalletSignatureGuard } from '../auth/wallet-signature.guard';
import { PaidCall, PaymentAuthGuard } from '../billing/payment-auth.guard';
import { UsageRecorder } from '../billing/usage-recorder';
import { AgentRateLimitGuard, RecordRateLimit, RecordRateLimitGuard } from '../rate-limit/rate-limit.guards';
import { RawPutDto, WriteFileDto } from './dto';
import { validate } from './validate';

/** Files (spec, "Read file", "Write file"): paid, 0.05 USD a call, by agent key (balance) or Payment credential (docs/billing.md). */
@ApiTags('files')
@ApiBearerAuth()
@Controller('api/v1/records/:recordId')
export class FilesController {
  constructor(
    private readonly bus: BusClient,
    private readonly usage: UsageRecorder,
  ) {}

  @Get('read')
  @AllowPasskey()
  @PaidCall('read_file')
  @UseGuards(PaymentAuthGuard, AgentKeyGuard, AgentRateLimitGuard, RecordAccessGuard)
  read(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Query() query: unknown) {
    const { path } = validate(ReadFileQuerySchema, query, 'query');
    return this.usage.paid(req, 'read_file', recordId, () =>
      this.bus.request(SUBJECTS.files.read, { agentId: principalOf(req).agentId, recordId, path }, ReadFileResponseSchema),
    );
  }

  @Post('write')
  @HttpCode(200)
  @PaidCall('write_file')
  @UseGuards(PaymentAuthGuard, AgentKeyGuard, AgentRateLimitGuard, RecordAccessGuard, RecordRateLimitGuard)
  @RecordRateLimit('write')
  @ApiBody({ type: WriteFileDto })
  async write(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Body() body: unknown) {
    const parsed = validate(WriteFileBodySchema, body, 'body');
    const reply = await this.usage.paid(
      req,
      'write_file',
      recordId,
      () => this.bus.request(SUBJECTS.files.write, { agentId: principalOf(req).agentId, recordId, body: parsed }, FilesWriteReplySchema),
      (r) => r,
      parsed.idempotency_key,
    );
    return reply.result;
  }

  /** Raw blob write for `local`-mode agents, wallet signature auth (spec, "Raw blob access"): free. */
  @Post('raw')
  @HttpCode(200)
  @UseGuards(WalletSignatureGuard, AgentRateLimitGuard, RecordAccessGuard)
  @ApiBody({ type: RawPutDto })
  rawPut(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Body() body: unknown) {
    const parsed = validate(RawPutBodySchema, body, 'body');
    return this.bus.request(SUBJECTS.files.rawPut, { agentId: principalOf(req).agentId, recordId, body: parsed }, RawPutResponseSchema);
  }

  /** Raw blob read for `local`-mode agents: free. */
  @Get('raw')
  @UseGuards(WalletSignatureGuard, AgentRateLimitGuard, RecordAccessGuard)
  rawGet(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Query() query: unknown) {
    const { path } = validate(RawGetQuerySchema, query, 'query');
    return this.bus.request(SUBJECTS.files.rawGet, { agentId: principalOf(req).agentId, recordId, path }, RawGetResponseSchema);
  }
}

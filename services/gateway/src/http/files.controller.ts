import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { FilesWriteReplySchema, RawGetResponseSchema, RawPutResponseSchema, ReadFileResponseSchema, SUBJECTS, WriteFileResponseSchema } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { Principal } from '../auth/principal.decorator';
import type { GatewayRequest } from '../auth/request-context';
import { UsageRecorder } from '../billing/usage-recorder';
import { RawGetQueryDto, RawPutDto, ReadFileQueryDto, WriteFileDto } from './dto';
import { RecordRoute } from './route-kinds';

/** Files (docs/api.md, "Files"): paid, 0.05 USD a call, from the agent's balance or by Payment credential (docs/billing.md). */
@ApiTags('files')
@Controller('api/v1/records/:recordId')
export class FilesController {
  constructor(
    private readonly bus: BusClient,
    private readonly usage: UsageRecorder,
  ) {}

  @Get('read')
  @Returns(ReadFileResponseSchema, { summary: 'Read a file' })
  @RecordRoute({ price: 'read_file', passkey: true })
  read(@Req() req: GatewayRequest, @Principal() principal: Principal, @Param('recordId') recordId: string, @Query() { path }: ReadFileQueryDto) {
    return this.usage.paid(req, {
      operation: 'read_file',
      recordId,
      call: () => this.bus.request(SUBJECTS.files.read, { agentId: principal.agentId, recordId, path }, ReadFileResponseSchema),
    });
  }

  @Post('write')
  @HttpCode(200)
  @Returns(WriteFileResponseSchema, { summary: 'Write a file (replaces the file at that path)', description: 'Send an `idempotency_key` with every write you may retry.' })
  @RecordRoute({ price: 'write_file', recordLimit: 'write' })
  async write(@Req() req: GatewayRequest, @Principal() principal: Principal, @Param('recordId') recordId: string, @Body() body: WriteFileDto) {
    const reply = await this.usage.paid(req, {
      operation: 'write_file',
      recordId,
      call: () => this.bus.request(SUBJECTS.files.write, { agentId: principal.agentId, recordId, body }, FilesWriteReplySchema),
      outcome: (r) => r,
      idempotencyKey: body.idempotency_key,
    });
    return reply.result;
  }

  /** Raw blob write for `local`-mode agents, wallet signature auth (docs/api.md, "Raw blobs (local mode) and wallet signatures"): free. */
  @Post('raw')
  @HttpCode(200)
  @Returns(RawPutResponseSchema, { summary: 'Write a raw blob (local-mode agents)', description: 'Wallet signature only; a `cloud` agent is 403.' })
  @RecordRoute({ credential: 'signature' })
  rawPut(@Principal() principal: Principal, @Param('recordId') recordId: string, @Body() body: RawPutDto) {
    return this.bus.request(SUBJECTS.files.rawPut, { agentId: principal.agentId, recordId, body }, RawPutResponseSchema);
  }

  /** Raw blob read for `local`-mode agents: free. */
  @Get('raw')
  @Returns(RawGetResponseSchema, { summary: 'Read a raw blob (local-mode agents)', description: 'Wallet signature only; a `cloud` agent is 403.' })
  @RecordRoute({ credential: 'signature' })
  rawGet(@Principal() principal: Principal, @Param('recordId') recordId: string, @Query() { path }: RawGetQueryDto) {
    return this.bus.request(SUBJECTS.files.rawGet, { agentId: principal.agentId, recordId, path }, RawGetResponseSchema);
  }
}

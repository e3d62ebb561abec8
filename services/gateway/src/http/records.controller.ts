import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import {
  CreateRecordBodySchema,
  DeleteRecordQuerySchema,
  DeleteRecordResponseSchema,
  ListRecordsQuerySchema,
  RecordListSchema,
  RecordSchema,
  SUBJECTS,
  UpdateRecordBodySchema,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { AgentKeyGuard } from '../auth/agent-key.guard';
import { AllowPasskey } from '../auth/allow-passkey.decorator';
import { RecordAccessGuard } from '../auth/record-access.guard';
import { type GatewayRequest, principalOf } from '../auth/request-context';
import { AgentRateLimitGuard } from '../rate-limit/rate-limit.guards';
import { CreateRecordDto, UpdateRecordDto } from './dto';
import { validate } from './validate';

/** Records (spec, "Records"): free; every route is the caller's own records only. */
@ApiTags('records')
@ApiBearerAuth()
@Controller('api/v1/records')
@UseGuards(AgentKeyGuard, AgentRateLimitGuard)
export class RecordsController {
  constructor(private readonly bus: BusClient) {}

  @Post()
  @HttpCode(201)
  @ApiBody({ type: CreateRecordDto })
  create(@Req() req: GatewayRequest, @Body() body: unknown) {
    return this.bus.request(SUBJECTS.records.create, { agentId: principalOf(req).agentId, body: validate(CreateRecordBodySchema, body, 'body') }, RecordSchema);
  }

  @Get()
  list(@Req() req: GatewayRequest, @Query() query: unknown) {
    return this.bus.request(SUBJECTS.records.list, { agentId: principalOf(req).agentId, query: validate(ListRecordsQuerySchema, query, 'query') }, RecordListSchema);
  }

  @Get(':recordId')
  @AllowPasskey()
  @UseGuards(RecordAccessGuard)
  get(@Req() req: GatewayRequest, @Param('recordId') recordId: string) {
    return this.bus.request(SUBJECTS.records.get, { agentId: principalOf(req).agentId, recordId }, RecordSchema);
  }

  @Patch(':recordId')
  @UseGuards(RecordAccessGuard)
  @ApiBody({ type: UpdateRecordDto })
  update(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Body() body: unknown) {
    return this.bus.request(SUBJECTS.records.update, { agentId: principalOf(req).agentId, recordId, body: validate(UpdateRecordBodySchema, body, 'body') }, RecordSchema);
  }

  @Delete(':recordId')
  @HttpCode(200)
  @UseGuards(RecordAccessGuard)
  delete(@Req() req: GatewayRequest, @Param('recordId') recordId: string, @Query() query: unknown) {
    const { cascade } = validate(DeleteRecordQuerySchema, query, 'query');
    return this.bus.request(SUBJECTS.records.delete, { agentId: principalOf(req).agentId, recordId, cascade }, DeleteRecordResponseSchema);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DeleteRecordResponseSchema, RecordListSchema, RecordSchema, SUBJECTS } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Returns } from '../openapi/returns.decorator';
import { Principal } from '../auth/principal.decorator';
import { CreateRecordDto, DeleteRecordQueryDto, ListRecordsQueryDto, UpdateRecordDto } from './dto';
import { AgentRoute, RecordRoute } from './route-kinds';

/** Records (docs/api.md, "Records"): free; every route is the caller's own records only. */
@ApiTags('records')
@Controller('api/v1/records')
export class RecordsController {
  constructor(private readonly bus: BusClient) {}

  @Post()
  @HttpCode(201)
  @Returns(RecordSchema, { summary: 'Create a record' })
  @AgentRoute()
  create(@Principal() principal: Principal, @Body() body: CreateRecordDto) {
    return this.bus.request(SUBJECTS.records.create, { agentId: principal.agentId, body }, RecordSchema);
  }

  @Get()
  @Returns(RecordListSchema, { summary: 'List the agent\'s records (paginated, newest first)' })
  @AgentRoute()
  list(@Principal() principal: Principal, @Query() query: ListRecordsQueryDto) {
    return this.bus.request(SUBJECTS.records.list, { agentId: principal.agentId, query }, RecordListSchema);
  }

  @Get(':recordId')
  @Returns(RecordSchema, { summary: 'Get a record' })
  @RecordRoute({ passkey: true })
  get(@Principal() principal: Principal, @Param('recordId') recordId: string) {
    return this.bus.request(SUBJECTS.records.get, { agentId: principal.agentId, recordId }, RecordSchema);
  }

  @Patch(':recordId')
  @Returns(RecordSchema, { summary: 'Update a record\'s name, tags or category' })
  @RecordRoute()
  update(@Principal() principal: Principal, @Param('recordId') recordId: string, @Body() body: UpdateRecordDto) {
    return this.bus.request(SUBJECTS.records.update, { agentId: principal.agentId, recordId, body }, RecordSchema);
  }

  @Delete(':recordId')
  @HttpCode(200)
  @Returns(DeleteRecordResponseSchema, { summary: 'Delete a record', description: 'With `cascade=true` its memories and files are deleted too. The human who claimed the agent may delete it with a passkey session (the owner\'s right to erase).' })
  @RecordRoute({ passkey: 'erase' })
  delete(@Principal() principal: Principal, @Param('recordId') recordId: string, @Query() { cascade }: DeleteRecordQueryDto) {
    return this.bus.request(SUBJECTS.records.delete, { agentId: principal.agentId, recordId, cascade }, DeleteRecordResponseSchema);
  }
}

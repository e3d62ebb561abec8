import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ListFilesResponseSchema, ListMemoriesResponseSchema, SUBJECTS } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { Principal } from '../auth/principal.decorator';
import type { GatewayRequest } from '../auth/request-context';
import { UsageRecorder } from '../billing/usage-recorder';
import { Returns } from '../openapi/returns.decorator';
import { ListFilesQueryDto, ListMemoriesQueryDto } from './dto';
import { RecordRoute } from './route-kinds';

/**
 * Listings of a record's memories and files (docs/api.md, "List memories", "List files"): keyset pages in
 * path order with an opaque `cursor` (docs/api.md, "Pagination"), for exports and clients that must see
 * everything. Both read the record, so both count against its query limit (60 per minute); list memories
 * answers content and is paid as `list_memories` (0.05 USD a page), list files answers metadata only and
 * is free (each file's content is paid on read).
 */
@Controller('api/v1/records/:recordId')
export class ListingController {
  constructor(
    private readonly bus: BusClient,
    private readonly usage: UsageRecorder,
  ) {}

  @Get('memories')
  @ApiTags('memories')
  @RecordRoute({ price: 'list_memories', recordLimit: 'query', passkey: true })
  @Returns(ListMemoriesResponseSchema, {
    summary: 'List the memories of a record, with content, a page at a time in path order',
    description: 'Keyset pagination: pass each answer\'s `nextCursor` as `cursor` until it is null. Paid per page; a page stops early at 4 MB of JSON.',
  })
  memories(@Req() req: GatewayRequest, @Principal() principal: Principal, @Param('recordId') recordId: string, @Query() { limit, cursor, type }: ListMemoriesQueryDto) {
    return this.usage.paid(req, {
      operation: 'list_memories',
      recordId,
      call: () => this.bus.request(SUBJECTS.memory.list, { agentId: principal.agentId, recordId, limit, after: cursor, type }, ListMemoriesResponseSchema),
    });
  }

  @Get('files')
  @ApiTags('files')
  @RecordRoute({ recordLimit: 'query', passkey: true })
  @Returns(ListFilesResponseSchema, {
    summary: 'List the files of a record (metadata), a page at a time in path order',
    description: 'Keyset pagination: pass each answer\'s `nextCursor` as `cursor` until it is null. Free; read each file\'s content with read file.',
  })
  files(@Principal() principal: Principal, @Param('recordId') recordId: string, @Query() { limit, cursor, prefix }: ListFilesQueryDto) {
    return this.bus.request(SUBJECTS.files.list, { agentId: principal.agentId, recordId, limit, after: cursor, prefix }, ListFilesResponseSchema);
  }
}

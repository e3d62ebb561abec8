import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { NotFoundError, RecordIdSchema, RecordSchema, SUBJECTS } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { type GatewayRequest, principalOf } from './request-context';

/**
 * Record-scoped routes reach only the caller's own records: another agent's record, or a malformed id,
 * is NOT_FOUND (DESIGN.md §3: no existence leak).
 */
@Injectable()
export class RecordAccessGuard implements CanActivate {
  constructor(private readonly bus: BusClient) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const recordId = RecordIdSchema.safeParse((req.params as Record<string, string>).recordId);
    if (!recordId.success) throw new NotFoundError('Record not found');
    await this.bus.request(SUBJECTS.records.resolveAccess, { agentId: principalOf(req).agentId, recordId: recordId.data }, RecordSchema);
    return true;
  }
}

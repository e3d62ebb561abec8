import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ForbiddenError, NotFoundError, type Principal, RecordIdSchema, RecordSchema, SUBJECTS } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { recordOwnerProven } from '../billing/payment-state';
import { type GatewayRequest, principalOf } from './request-context';
import { ResolutionCache } from './resolution-cache';

/** The one refusal a test key gets for any record that is not its own agent's (live, another agent's, unknown or malformed alike). */
export const TEST_KEY_REFUSAL = 'A test key cannot access live data: it reaches only its own agent’s test records';

/**
 * Record-scoped routes reach only the caller's own records, and the answer for any other record id
 * never depends on whether that record exists (no existence leak: docs/api.md, "Records"):
 *
 * - a live principal: another agent's record (of either environment), an unknown or a malformed id are
 *   all NOT_FOUND;
 * - a test principal: all of those are FORBIDDEN with one fixed message ({@link TEST_KEY_REFUSAL}). This
 *   keeps the live/test separation of keys visible (docs/authentication.md: a test
 *   key cannot touch live data: 403) without the earlier oracle (403 for a live record, 404 for a
 *   nonexistent one). No lookup of the record's owner or environment is made, so timing says nothing either.
 */
@Injectable()
export class RecordAccessGuard implements CanActivate {
  constructor(
    private readonly bus: BusClient,
    private readonly resolutions: ResolutionCache,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<GatewayRequest>();
    const principal = principalOf(req);
    const recordId = RecordIdSchema.safeParse((req.params as Record<string, string>).recordId);
    if (!recordId.success) throw notOwn(principal);
    // A call paid with a Payment credential: PaymentAuthGuard already proved the payer owns this record.
    if (recordOwnerProven(req, recordId.data)) return true;
    try {
      await this.resolutions.recordAccess(principal.agentId, recordId.data, () =>
        this.bus.request(SUBJECTS.records.resolveAccess, { agentId: principal.agentId, recordId: recordId.data }, RecordSchema),
      );
    } catch (err) {
      if (err instanceof DomainError && err.code === 'NOT_FOUND') throw notOwn(principal);
      throw err;
    }
    return true;
  }
}

/** The refusal for a record id that is not the principal's own: see {@link RecordAccessGuard}. */
function notOwn(principal: Principal): DomainError {
  return principal.keyEnvironment === 'test' ? new ForbiddenError(TEST_KEY_REFUSAL) : new NotFoundError('Record not found');
}

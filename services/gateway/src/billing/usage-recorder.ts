import { Inject, Injectable, Logger } from '@nestjs/common';
import { LedgerEntrySchema, type PaidOperation, SUBJECTS } from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { GATEWAY_OPTIONS, type GatewayOptions } from '../gateway.options';
import { type GatewayRequest, principalOf } from '../auth/request-context';

/**
 * Charges a paid call once it has succeeded (DESIGN.md §4: only 2xx, never an idempotent replay): one
 * ledger entry keyed by the request id, so a retried message is not charged twice.
 */
@Injectable()
export class UsageRecorder {
  private readonly logger = new Logger(UsageRecorder.name);

  constructor(
    private readonly bus: BusClient,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
  ) {}

  /** Runs `call`, then records usage unless `replayed(result)` says it was an idempotent replay. */
  async paid<T>(req: GatewayRequest, operation: PaidOperation, recordId: string, call: () => Promise<T>, replayed: (result: T) => boolean = () => false, idempotencyKey?: string): Promise<T> {
    const result = await call();
    if (this.options.billingMode !== 'off' && !replayed(result)) {
      const principal = principalOf(req);
      try {
        await this.bus.request(
          SUBJECTS.billing.recordUsage,
          { agentId: principal.agentId, operation, recordId, requestId: String(req.id), idempotencyKey, paymentMethod: req.gateway?.authMethod ?? 'agent_key' },
          LedgerEntrySchema,
        );
      } catch (err) {
        // The call itself succeeded and must not be reported as failed; the gap is logged for reconciliation.
        this.logger.error({ err, requestId: req.id, operation }, 'Usage could not be recorded');
      }
    }
    return result;
  }
}

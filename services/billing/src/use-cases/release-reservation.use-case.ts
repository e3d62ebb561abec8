import { Injectable } from '@nestjs/common';
import type { BillingReleaseMessage } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.release`: voids the reservation of `chargeId` and refunds it (the call failed or was a
 * replay); a repeat changes nothing; an unknown charge id leaves a `voided` marker, so a reserve of it
 * still in flight on the bus debits nothing. `released` only when a held amount was refunded.
 */
@Injectable()
export class ReleaseReservationUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingReleaseMessage): Promise<{ chargeId: string; released: boolean }> {
    const r = await this.repository.release(m);
    return { chargeId: m.chargeId, released: r.released };
  }
}

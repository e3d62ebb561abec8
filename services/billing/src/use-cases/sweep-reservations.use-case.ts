import { Injectable } from '@nestjs/common';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * Voids (refunds) every reservation still held after `olderThanMs` ms (its commit or release was lost),
 * exactly once per reservation even with several replicas sweeping (docs/billing.md "Reservations").
 * Run by {@link BillingLifecycle}; returns how many were voided and the amount refunded (micro-USD).
 */
@Injectable()
export class SweepReservationsUseCase {
  constructor(private readonly repository: BillingRepository) {}

  execute(m: { olderThanMs: number }): Promise<{ voided: number; refundedMicroUsd: number }> {
    return this.repository.sweepReservations(m.olderThanMs);
  }
}

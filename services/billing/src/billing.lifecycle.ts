import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type PeriodicTask, startPeriodicTask } from '@agent-memory/platform';
import { BILLING_OPTIONS, type BillingOptions, DEFAULT_RESERVATION_MAX_AGE_MS, DEFAULT_RESERVATION_SWEEP_INTERVAL_MS } from './billing.options';
import { SweepReservationsUseCase } from './use-cases/sweep-reservations.use-case';

/**
 * Background work of the billing service (docs/architecture.md, "Background work"): the reservation sweep,
 * which gives back reservations whose commit or release never arrived (a gateway that crashed mid-call, a
 * bus message lost after its retries). Every `reservationSweepIntervalMs` (default 60 s; 0: off) it voids
 * and refunds the reservations older than `reservationMaxAgeMs` (default 10 minutes) with one statement,
 * safe when every billing replica sweeps (docs/billing.md "Reservations").
 */
@Injectable()
export class BillingLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(BillingLifecycle.name);
  private sweeper?: PeriodicTask;

  constructor(
    private readonly sweep: SweepReservationsUseCase,
    @Inject(BILLING_OPTIONS) private readonly options: BillingOptions,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.options.reservationSweepIntervalMs ?? DEFAULT_RESERVATION_SWEEP_INTERVAL_MS;
    if (every > 0) this.sweeper = startPeriodicTask('billing-reservation-sweep', every, () => this.sweepReservations(), this.logger);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper?.stop();
  }

  /** One sweep; resolves how many reservations were voided (0 on a database error, which is logged). */
  async sweepReservations(): Promise<number> {
    const maxAgeMs = this.options.reservationMaxAgeMs ?? DEFAULT_RESERVATION_MAX_AGE_MS;
    try {
      const r = await this.sweep.execute({ olderThanMs: maxAgeMs });
      if (r.voided > 0) this.logger.warn({ voided: r.voided, refundedMicroUsd: r.refundedMicroUsd, maxAgeMs }, `Voided ${r.voided} reservation(s) held longer than ${maxAgeMs} ms`);
      else this.logger.debug({ maxAgeMs }, 'No stale reservations');
      return r.voided;
    } catch (err) {
      this.logger.error({ err }, 'Reservation sweep failed');
      return 0;
    }
  }
}

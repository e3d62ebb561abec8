import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { BILLING_OPTIONS, type BillingOptions, DEFAULT_RESERVATION_MAX_AGE_MS, DEFAULT_RESERVATION_SWEEP_INTERVAL_MS } from './billing.options';
import { BillingService } from './billing.service';

/**
 * Gives back reservations whose commit or release never arrived (a gateway that crashed mid-call, a bus
 * message lost after its retries): every `reservationSweepIntervalMs` (default 60 s) it voids and refunds
 * the reservations older than `reservationMaxAgeMs` (default 10 minutes) with one statement, which is safe
 * when every billing replica runs its own sweeper (docs/billing.md "Reservations"). Logs how many.
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReservationSweeper.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly billing: BillingService,
    @Inject(BILLING_OPTIONS) private readonly options: BillingOptions,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.options.reservationSweepIntervalMs ?? DEFAULT_RESERVATION_SWEEP_INTERVAL_MS;
    if (every <= 0) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = undefined));
    }, every);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep; resolves how many reservations were voided (0 on a database error, which is logged). */
  async sweep(): Promise<number> {
    const maxAgeMs = this.options.reservationMaxAgeMs ?? DEFAULT_RESERVATION_MAX_AGE_MS;
    try {
      const r = await this.billing.sweepReservations(maxAgeMs);
      if (r.voided > 0) this.logger.warn({ voided: r.voided, refundedMicroUsd: r.refundedMicroUsd, maxAgeMs }, `Voided ${r.voided} reservation(s) held longer than ${maxAgeMs} ms`);
      else this.logger.debug({ maxAgeMs }, 'No stale reservations');
      return r.voided;
    } catch (err) {
      this.logger.error({ err }, 'Reservation sweep failed');
      return 0;
    }
  }
}

import { type DynamicModule, Module } from '@nestjs/common';
import { SANDBOX_INITIAL_CREDIT_MICRO_USD } from '@agent-memory/shared';
import { DATABASE, type Database } from '@agent-memory/platform';
import { BillingMessageHandler } from './billing.message-handler';
import { BILLING_REPOSITORY, BillingService, sandboxOpening } from './billing.service';
import { BILLING_OPTIONS, type BillingOptions } from './billing.options';
import { BillingRepository } from './persistence/billing.repository';
import { openBillingPrisma } from './persistence/prisma';
import { ReservationSweeper } from './reservation-sweeper';

export * from './billing.options';

/**
 * The billing service (docs/architecture.md, "Processes"): charges from the shared price list, keeps the usage ledger,
 * balances, reservations and payments; answers `billing.v1.*`; sweeps stale reservations
 * ({@link ReservationSweeper}). `BillingModule` alone uses the defaults.
 */
@Module({
  controllers: [BillingMessageHandler],
  providers: [
    { provide: BILLING_OPTIONS, useValue: {} },
    {
      provide: BILLING_REPOSITORY,
      useFactory: async (db: Database, options: BillingOptions) => new BillingRepository(await openBillingPrisma(db), sandboxOpening(options.sandboxCreditMicroUsd ?? SANDBOX_INITIAL_CREDIT_MICRO_USD)),
      inject: [DATABASE, BILLING_OPTIONS],
    },
    BillingService,
    ReservationSweeper,
  ],
})
export class BillingModule {
  static forRoot(options: BillingOptions): DynamicModule {
    return { module: BillingModule, providers: [{ provide: BILLING_OPTIONS, useValue: options }] };
  }
}

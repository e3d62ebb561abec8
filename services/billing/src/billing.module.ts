import { type DynamicModule, Module } from '@nestjs/common';
import { DATABASE, type Database } from '@agent-memory/platform';
import { BillingLifecycle } from './billing.lifecycle';
import { BillingMessageHandler } from './billing.message-handler';
import { BILLING_OPTIONS, type BillingOptions } from './billing.options';
import { BillingRepository } from './persistence/billing.repository';
import { PrismaBillingRepository } from './persistence/prisma-billing.repository';
import { BILLING_PRISMA, openBillingPrisma } from './persistence/prisma';
import { ClaimPaymentUseCase } from './use-cases/claim-payment.use-case';
import { CommitReservationUseCase } from './use-cases/commit-reservation.use-case';
import { CompletePaymentUseCase } from './use-cases/complete-payment.use-case';
import { CreditUseCase } from './use-cases/credit.use-case';
import { GetAgentsActivityUseCase } from './use-cases/get-agents-activity.use-case';
import { GetBalanceUseCase } from './use-cases/get-balance.use-case';
import { GetPaymentUseCase } from './use-cases/get-payment.use-case';
import { GetUsageUseCase } from './use-cases/get-usage.use-case';
import { RecordUsageBatchUseCase } from './use-cases/record-usage-batch.use-case';
import { RecordUsageUseCase } from './use-cases/record-usage.use-case';
import { ReleaseReservationUseCase } from './use-cases/release-reservation.use-case';
import { ReserveUseCase } from './use-cases/reserve.use-case';
import { SettlePaidCallUseCase } from './use-cases/settle-paid-call.use-case';
import { SweepReservationsUseCase } from './use-cases/sweep-reservations.use-case';

/** The billing use cases, one per message plus the sweep and the payment lookup. */
export const BILLING_USE_CASES = [
  RecordUsageUseCase,
  RecordUsageBatchUseCase,
  GetUsageUseCase,
  GetBalanceUseCase,
  GetAgentsActivityUseCase,
  ReserveUseCase,
  CommitReservationUseCase,
  ReleaseReservationUseCase,
  SweepReservationsUseCase,
  ClaimPaymentUseCase,
  CompletePaymentUseCase,
  SettlePaidCallUseCase,
  GetPaymentUseCase,
  CreditUseCase,
];

/**
 * The billing service (docs/architecture.md, "Processes"; docs/billing.md) and its composition root:
 * charges from the shared price list, keeps the usage ledger, balances, reservations and payments; answers
 * `billing.v1.*` ({@link BillingMessageHandler}); sweeps stale reservations ({@link BillingLifecycle}).
 * `BillingModule` alone uses the defaults of {@link BillingOptions}.
 */
@Module({
  controllers: [BillingMessageHandler],
  providers: [
    { provide: BILLING_OPTIONS, useValue: {} },
    { provide: BILLING_PRISMA, useFactory: (db: Database) => openBillingPrisma(db), inject: [DATABASE] },
    { provide: BillingRepository, useClass: PrismaBillingRepository },
    ...BILLING_USE_CASES,
    BillingLifecycle,
  ],
})
export class BillingModule {
  static forRoot(options: BillingOptions): DynamicModule {
    return { module: BillingModule, providers: [{ provide: BILLING_OPTIONS, useValue: options }] };
  }
}

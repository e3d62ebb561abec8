import { Module } from '@nestjs/common';
import { DATABASE, type Database } from '@agent-memory/platform';
import { BillingMessageHandler } from './billing.message-handler';
import { BILLING_PRISMA, BillingService } from './billing.service';
import { openBillingPrisma } from './persistence/prisma';

/** The billing service (DESIGN.md §1): owns the usage ledger; answers `billing.v1.*`. */
@Module({
  controllers: [BillingMessageHandler],
  providers: [{ provide: BILLING_PRISMA, useFactory: (db: Database) => openBillingPrisma(db), inject: [DATABASE] }, BillingService],
})
export class BillingModule {}

import { join } from 'node:path';
import { type Database, openServicePrisma } from '@agent-memory/platform';
import { PrismaClient } from './generated/client';

export { PrismaClient as BillingPrismaClient };
/** Postgres schema owned by the billing service. */
export const BILLING_SCHEMA = 'billing';
export const BILLING_MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');
/** Injection token of the billing service's Prisma client (used only by the adapter `prisma-billing.repository.ts`). */
export const BILLING_PRISMA = Symbol('BillingPrisma');

/** Applies the billing migrations, then opens a Prisma Client on the service's schema. */
export function openBillingPrisma(db: Database): Promise<PrismaClient> {
  return openServicePrisma(db, PrismaClient, BILLING_SCHEMA, BILLING_MIGRATIONS_DIR);
}

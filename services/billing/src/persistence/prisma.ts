import { join } from 'node:path';
import { type Database } from '@agent-memory/platform';
import { PrismaClient } from './generated/client';

export { PrismaClient as BillingPrismaClient };
export const BILLING_SCHEMA = 'billing';
export const BILLING_MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');
export const BILLING_PRISMA = Symbol('BillingPrisma');

/** Applies the billing migrations, then opens a Prisma Client on the service's schema. */
export async function openBillingPrisma(db: Database): Promise<PrismaClient> {
  await db.migrate(BILLING_SCHEMA, BILLING_MIGRATIONS_DIR);
  return new PrismaClient({ adapter: db.prismaAdapter(BILLING_SCHEMA) });
}

import { join } from 'node:path';
import { type Database, openServicePrisma } from '@agent-memory/platform';
import { PrismaClient } from './generated/client';

export { PrismaClient as RecordsPrismaClient };
/** Postgres schema owned by the records service. */
export const RECORDS_SCHEMA = 'records';
export const RECORDS_MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');
/** Injection token of the records service's Prisma client (used only by the adapter `prisma-records.repository.ts`). */
export const RECORDS_PRISMA = Symbol('RecordsPrisma');

/** Applies the records migrations, then opens a Prisma Client on the service's schema. */
export function openRecordsPrisma(db: Database): Promise<PrismaClient> {
  return openServicePrisma(db, PrismaClient, RECORDS_SCHEMA, RECORDS_MIGRATIONS_DIR);
}

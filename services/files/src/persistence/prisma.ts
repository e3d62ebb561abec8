import { join } from 'node:path';
import { type Database, openServicePrisma } from '@agent-memory/platform';
import { PrismaClient } from './generated/client';

export { PrismaClient as FilesPrismaClient };
export const FILES_SCHEMA = 'files';
export const FILES_MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');
/** Injection token of the files service's Prisma Client (opened by {@link openFilesPrisma}). */
export const FILES_PRISMA = Symbol('FilesPrisma');

/** Applies the files migrations, then opens a Prisma Client on the service's schema. */
export function openFilesPrisma(db: Database): Promise<PrismaClient> {
  return openServicePrisma(db, PrismaClient, FILES_SCHEMA, FILES_MIGRATIONS_DIR);
}

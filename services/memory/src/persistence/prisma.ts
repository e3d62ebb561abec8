import { join } from 'node:path';
import { type Database, openServicePrisma } from '@agent-memory/platform';
import { PrismaClient } from './generated/client';

export { PrismaClient as MemoryPrismaClient };
export const MEMORY_SCHEMA = 'memory';
export const MEMORY_MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');
export const MEMORY_PRISMA = Symbol('MemoryPrisma');

/** Applies the memory migrations, then opens a Prisma Client on the service's schema. */
export function openMemoryPrisma(db: Database): Promise<PrismaClient> {
  return openServicePrisma(db, PrismaClient, MEMORY_SCHEMA, MEMORY_MIGRATIONS_DIR);
}

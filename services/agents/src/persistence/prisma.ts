import { join } from 'node:path';
import { type Database, openServicePrisma } from '@agent-memory/platform';
import { Prisma, PrismaClient } from './generated/client';

export { PrismaClient as AgentsPrismaClient };
export const AGENTS_SCHEMA = 'agents';
export const AGENTS_MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');
/** Injection token of the agents service's Prisma client (used only by the adapters `prisma-*.repository.ts`). */
export const AGENTS_PRISMA = Symbol('AgentsPrisma');

/** Applies the agents migrations, then opens a Prisma Client on the service's schema. */
export function openAgentsPrisma(db: Database): Promise<PrismaClient> {
  return openServicePrisma(db, PrismaClient, AGENTS_SCHEMA, AGENTS_MIGRATIONS_DIR);
}

/** True for a unique-constraint violation (Prisma `P2002`): a concurrent writer took the key first. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

import { join } from 'node:path';
import { type Database } from '@agent-memory/platform';
import { PrismaClient } from './generated/client';

export { PrismaClient as AgentsPrismaClient };
export const AGENTS_SCHEMA = 'agents';
export const AGENTS_MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');

/** Applies the agents migrations, then opens a Prisma Client on the service's schema. */
export async function openAgentsPrisma(db: Database): Promise<PrismaClient> {
  await db.migrate(AGENTS_SCHEMA, AGENTS_MIGRATIONS_DIR);
  return new PrismaClient({ adapter: db.prismaAdapter(AGENTS_SCHEMA) });
}

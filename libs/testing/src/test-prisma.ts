import { type Database, PgDatabase } from '@agent-memory/platform';
import { createTestDatabase } from './infra';

/** A service's Prisma Client on a fresh test database, and `close` to release both. */
export interface TestPrisma<C> {
  prisma: C;
  close(): Promise<void>;
}

/**
 * Test fixture: creates a fresh database on the machine's PostgreSQL ({@link createTestDatabase}), opens a
 * {@link PgDatabase} pool of `poolSize` connections on it (several, so transactions really overlap) and
 * the service's Prisma Client with `open` (a service's `open<Svc>Prisma`, which applies its migrations).
 * `close` disconnects the client, closes the pool and drops the database.
 */
export async function openTestPrisma<C extends { $disconnect(): Promise<void> }>(open: (db: Database) => Promise<C>, poolSize: number): Promise<TestPrisma<C>> {
  const database = await createTestDatabase();
  const db = new PgDatabase({ connectionString: database.url, poolSize });
  const prisma = await open(db);
  return {
    prisma,
    async close() {
      await prisma.$disconnect();
      await db.close();
      await database.drop();
    },
  };
}

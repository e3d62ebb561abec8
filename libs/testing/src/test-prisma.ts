import { type Database, PgDatabase, PgliteDatabase } from '@agent-memory/platform';
import { createTestDatabase } from './infra';

/** A service's Prisma Client on a fresh test database, and `close` to release both. */
export interface TestPrisma<C> {
  prisma: C;
  close(): Promise<void>;
}

/** Replicas of one service on one fresh test database: each its own pool and Prisma Client; `close` releases all. */
export interface TestPrismaReplicas<C> {
  clients: { db: PgDatabase; prisma: C }[];
  close(): Promise<void>;
}

/**
 * Test fixture: creates a fresh database on the machine's PostgreSQL ({@link createTestDatabase}) and opens
 * `count` replicas on it, each a {@link PgDatabase} pool of `poolSize` connections (several, so
 * transactions really overlap) with the service's Prisma Client from `open` (a service's
 * `open<Svc>Prisma`, which applies its migrations). `close` disconnects every client, closes every pool
 * and drops the database.
 */
export async function openTestPrismaReplicas<C extends { $disconnect(): Promise<void> }>(
  open: (db: Database) => Promise<C>,
  count: number,
  poolSize: number,
): Promise<TestPrismaReplicas<C>> {
  const database = await createTestDatabase();
  const clients: { db: PgDatabase; prisma: C }[] = [];
  for (let i = 0; i < count; i++) {
    const db = new PgDatabase({ connectionString: database.url, poolSize });
    clients.push({ db, prisma: await open(db) });
  }
  return {
    clients,
    async close() {
      for (const { db, prisma } of clients) {
        await prisma.$disconnect();
        await db.close();
      }
      await database.drop();
    },
  };
}

/** {@link openTestPrismaReplicas} with one replica: the service's Prisma Client on a fresh test database. */
export async function openTestPrisma<C extends { $disconnect(): Promise<void> }>(open: (db: Database) => Promise<C>, poolSize: number): Promise<TestPrisma<C>> {
  const { clients, close } = await openTestPrismaReplicas(open, 1, poolSize);
  return { prisma: clients[0].prisma, close };
}

/**
 * Test fixture: the service's Prisma Client (`open`, which applies its migrations) on a fresh in-memory
 * embedded PostgreSQL (PGlite, `memory://`: one connection, as standalone runs). `close` disconnects the
 * client and closes the database.
 */
export async function openEmbeddedTestPrisma<C extends { $disconnect(): Promise<void> }>(open: (db: Database) => Promise<C>): Promise<TestPrisma<C>> {
  const db = await PgliteDatabase.open('memory://');
  const prisma = await open(db);
  return {
    prisma,
    async close() {
      await prisma.$disconnect();
      await db.close();
    },
  };
}

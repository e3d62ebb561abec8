import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Database } from './database.port';

/** A service's generated Prisma Client class (`services/<svc>/src/persistence/generated`), opened on a driver adapter. */
export type PrismaClientClass<C> = new (options: { adapter: SqlDriverAdapterFactory }) => C;

/**
 * Opens a service's Prisma Client on its own Postgres schema (docs/architecture.md, "Ports and adapters"):
 * applies the pending migrations of `schema` from `migrationsDir` first (in verify mode, throws on a
 * pending one; see {@link Database.migrate}), then builds `Client` on the database's driver adapter for
 * that schema (PGlite standalone, `@prisma/adapter-pg` in a cluster). Each service's
 * `persistence/prisma.ts` calls it once with its own client class, schema and folder.
 */
export async function openServicePrisma<C>(db: Database, Client: PrismaClientClass<C>, schema: string, migrationsDir: string): Promise<C> {
  await db.migrate(schema, migrationsDir);
  return new Client({ adapter: db.prismaAdapter(schema) });
}

/** The part of a generated Prisma Client that opens an interactive transaction handing out `Tx`. */
export interface PrismaTransactionRunner<Tx> {
  $transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/**
 * The `transaction(work)` of a Prisma repository adapter built on either the client or a transaction
 * client: on the client, runs `work` in one interactive transaction with a repository bound to it
 * (`bind(tx)`); already inside a transaction (a transaction client has no `$transaction`), runs `work`
 * with `current`, so nested calls join the open transaction. Returns what `work` returns; when it throws,
 * the transaction rolls back and the error propagates.
 */
export function runInTransaction<Tx extends object, R, T>(
  db: PrismaTransactionRunner<Tx> | Tx,
  current: R,
  bind: (tx: Tx) => R,
  work: (repository: R) => Promise<T>,
): Promise<T> {
  if (!('$transaction' in db)) return work(current);
  return db.$transaction((tx) => work(bind(tx)));
}

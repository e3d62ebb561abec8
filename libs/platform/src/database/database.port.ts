import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/**
 * Port: the relational database. Standalone: one embedded PGlite shared by every service (docs/architecture.md, "Ports and adapters"),
 * each service in its own Postgres schema. Cluster: PostgreSQL through `@prisma/adapter-pg`.
 */
export interface Database {
  /** Prisma driver adapter for the service that owns `schema`. */
  prismaAdapter(schema: string): SqlDriverAdapterFactory;
  /** Applies the pending migrations of `schema` from `dir` (see `migrate`). */
  migrate(schema: string, dir: string): Promise<void>;
  /**
   * Erases deleted rows from the files (docs/deployment.md, "Forgotten content and the database files"):
   * rewrites each of `tables` (schema-qualified, e.g. `memory.memories`; `VACUUM FULL`, so the old
   * relation file with its dead tuples is dropped) and forces a checkpoint. Standalone (PGlite) also
   * switches to a new WAL segment first and never recycles old ones, so the segments that logged the
   * deleted rows are removed. Cluster: the WAL is the operator's (archiving, replicas); a checkpoint the
   * role may not run is skipped. Takes an exclusive lock on each table while it runs (milliseconds for
   * small tables). Throws on an unknown table.
   */
  reclaim(tables: readonly string[]): Promise<void>;
  /** Readiness check (`/readyz`'s `database`): one round trip to the database. Throws when it does not answer or is closed. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
export const DATABASE = Symbol('Database');

/**
 * Thrown by {@link Database.reclaim} when it rewrote while a transaction older than the call was still
 * open (PgDatabase): rows deleted before the call may have been copied into the new files; run it again
 * later. Not a fault: the ReclaimScheduler logs it as a warning and retries.
 */
export class ReclaimIncompleteError extends Error {
  override readonly name = 'ReclaimIncompleteError';
}

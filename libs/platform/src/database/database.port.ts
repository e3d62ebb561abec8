import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/**
 * Port: the relational database. Standalone: one embedded PGlite shared by every service (DESIGN.md §2),
 * each service in its own Postgres schema. Cluster: PostgreSQL through `@prisma/adapter-pg`.
 */
export interface Database {
  /** Prisma driver adapter for the service that owns `schema`. */
  prismaAdapter(schema: string): SqlDriverAdapterFactory;
  /** Applies the pending migrations of `schema` from `dir` (see `migrate`). */
  migrate(schema: string, dir: string): Promise<void>;
  /** Readiness check (`/readyz`'s `database`): one round trip to the database. Throws when it does not answer or is closed. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
export const DATABASE = Symbol('Database');

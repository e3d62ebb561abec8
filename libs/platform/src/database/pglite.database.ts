import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { Database } from './database.port';
import { migrate } from './migrate';
import type { SqlExecutor } from './sql-executor';

/**
 * Standalone {@link Database}: one embedded PostgreSQL (PGlite, WASM) shared by every service, each in
 * its own schema (DESIGN.md §2). `dataDir` is a directory (kept across restarts) or `memory://`.
 * PGlite runs one statement or transaction at a time; concurrent callers queue.
 */
export class PgliteDatabase implements Database {
  private constructor(private readonly pg: PGlite) {}

  /** Opens (creating if needed) the database in `dataDir`; the first creation takes a few seconds. */
  static async open(dataDir: string): Promise<PgliteDatabase> {
    if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
    const pg = new PGlite(dataDir);
    await pg.waitReady;
    return new PgliteDatabase(pg);
  }

  prismaAdapter(_schema: string): SqlDriverAdapterFactory {
    // Models carry @@schema, so one adapter over the shared instance serves every service.
    return new PrismaPGlite(this.pg) as unknown as SqlDriverAdapterFactory;
  }

  async migrate(schema: string, dir: string): Promise<void> {
    const executor: SqlExecutor = {
      exec: async (sql) => {
        await this.pg.exec(sql);
      },
      query: async <R>(sql: string, params?: unknown[]) => (await this.pg.query<R>(sql, params)).rows,
    };
    await migrate(executor, schema, dir);
  }

  /** Readiness check: one query through PGlite's statement queue. Throws when the database is closed or broken. */
  async ping(): Promise<void> {
    await this.pg.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (!this.pg.closed) await this.pg.close();
  }
}

import { mkdirSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { PGlite } from '@electric-sql/pglite';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PRIVATE_DIRECTORY_MODE, tightenPrivateTree } from '../private-files';
import type { Database } from './database.port';
import { migrate } from './migrate';
import { AutoAnalyze } from './pglite-auto-analyze';
import { pglitePreparedClient } from './pglite-prepared';
import type { SqlExecutor } from './sql-executor';

/**
 * Standalone {@link Database}: one embedded PostgreSQL (PGlite, WASM) shared by every service, each in
 * its own schema (docs/architecture.md, "Ports and adapters"). `dataDir` is a directory (kept across restarts) or `memory://`.
 * PGlite runs one statement or transaction at a time; concurrent callers queue.
 */
export class PgliteDatabase implements Database {
  /** The Prisma adapters' client: parameterised queries as cached prepared statements (pglite-prepared.ts). */
  private readonly prepared;
  /** Planner statistics kept fresh as autovacuum would (pglite-auto-analyze.ts). */
  private readonly autoAnalyze: AutoAnalyze;
  private readonly logger = new Logger('PgliteDatabase');

  private constructor(private readonly pg: PGlite) {
    this.autoAnalyze = new AutoAnalyze(
      {
        analyze: async (table) => {
          await pg.exec(`ANALYZE ${table}`);
        },
        estimatedRows: async (table) => (await pg.query<{ rows: number }>('SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = $1::regclass', [table])).rows[0]?.rows ?? 0,
      },
      (table, err) => this.logger.warn({ err, table }, 'ANALYZE failed; retried after the next writes'),
    );
    this.prepared = pglitePreparedClient(pg, { onRowsWritten: (tables, rows) => this.autoAnalyze.wrote(tables, rows) });
  }

  /**
   * Opens (creating if needed) the database in `dataDir`; the first creation takes a few seconds. The
   * directory is private: 0700 directories and 0600 files (PGlite writes its initial files 0666, whatever
   * the umask, so they are tightened after every open; what PostgreSQL creates later follows the umask).
   * WAL segments are never recycled in this session (`wal_recycle = off`): a recycled segment keeps the
   * bytes it logged, a removed one does not (see {@link reclaim}).
   */
  static async open(dataDir: string): Promise<PgliteDatabase> {
    const onDisk = !dataDir.startsWith('memory://');
    if (onDisk) mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    const pg = new PGlite(dataDir);
    await pg.waitReady;
    if (onDisk) await tightenPrivateTree(dataDir);
    // PGlite is one backend, so a session setting applies to every checkpoint it runs.
    await pg.exec('SET wal_recycle = off');
    return new PgliteDatabase(pg);
  }

  prismaAdapter(_schema: string): SqlDriverAdapterFactory {
    // Models carry @@schema, so one adapter over the shared instance serves every service. The adapter
    // calls only query, exec and transaction, which the prepared client provides with PGlite's contract.
    return new PrismaPGlite(this.prepared as unknown as PGlite);
  }

  async migrate(schema: string, dir: string): Promise<void> {
    const executor: SqlExecutor = {
      exec: async (sql) => {
        await this.pg.exec(sql);
      },
      query: async <R>(sql: string, params?: unknown[]) => (await this.pg.query<R>(sql, params)).rows,
    };
    await migrate(executor, schema, dir);
    // Tables of an existing data directory were last analysed in an earlier process (or never): once now, in the background.
    const tables = await this.pg.query<{ name: string }>("SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = $1", [schema]);
    this.autoAnalyze.due(tables.rows.map((t) => t.name));
  }

  /** Readiness check: one query through PGlite's statement queue. Throws when the database is closed or broken. */
  async ping(): Promise<void> {
    await this.pg.query('SELECT 1');
  }

  /**
   * `VACUUM FULL` of each table, then `pg_switch_wal()` and `CHECKPOINT`: the rewritten tables hold only
   * live rows, the old relation files are unlinked at the checkpoint, and every WAL segment before the
   * checkpoint's redo point (all that logged the deleted rows) is removed, not recycled (see {@link open}).
   */
  async reclaim(tables: readonly string[]): Promise<void> {
    for (const table of tables) await this.pg.exec(`VACUUM FULL ${quoteTable(table)}`);
    await this.pg.query('SELECT pg_switch_wal()');
    await this.pg.exec('CHECKPOINT');
  }

  async close(): Promise<void> {
    await this.autoAnalyze.stop();
    if (!this.pg.closed) await this.pg.close();
  }
}

/** `schema.table` as a quoted identifier pair; throws on anything else (the names are the services' own constants). */
export function quoteTable(table: string): string {
  const match = /^([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)$/.exec(table);
  if (!match) throw new Error(`Invalid table name ${JSON.stringify(table)}`);
  return `"${match[1]}"."${match[2]}"`;
}

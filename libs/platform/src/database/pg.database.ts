import { Pool, type PoolClient } from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Database } from './database.port';
import { quoteTable } from './pglite.database';
import { migrate, type MigrationReport } from './migrate';
import type { SqlExecutor } from './sql-executor';

/** Options of {@link PgDatabase}. */
export interface PgDatabaseOptions {
  /** `postgres://user:password@host:port/database` */
  connectionString: string;
  /** Connections in this process's pool (each service process owns one pool). Default 10. */
  poolSize?: number;
  /**
   * `apply` (default): `migrate()` applies pending migrations (standalone habit, `npm run start:cluster`).
   * `verify`: `migrate()` only checks that none is pending and throws otherwise (Helm: the pre-upgrade
   * hook Job applies them, services must not race it).
   */
  migrations?: 'apply' | 'verify';
  /** {@link RECLAIM_SNAPSHOT_WAIT_MS} unless set (tests). */
  reclaimSnapshotWaitMs?: number;
}

/** How long a reclaim's VACUUM FULL waits for its table lock before giving up (ms); see {@link PgDatabase.reclaim}. */
export const RECLAIM_LOCK_TIMEOUT_MS = 1_000;
/**
 * How long a reclaim waits for the snapshots older than itself to end before it rewrites anyway (ms); see
 * {@link PgDatabase.reclaim}.
 */
export const RECLAIM_SNAPSHOT_WAIT_MS = 5_000;
/** Pause between two looks at the older snapshots (ms). */
const SNAPSHOT_POLL_MS = 25;

/** Thrown by {@link PgDatabase.reclaim} when it rewrote while an older snapshot was still open: deleted rows it could see may have been copied; run it again later. */
export class ReclaimIncompleteError extends Error {
  override readonly name = 'ReclaimIncompleteError';
}

/** Wraps one pooled connection as the migration runner's {@link SqlExecutor} (advisory locks are per session). */
function sessionExecutor(client: PoolClient): SqlExecutor {
  return {
    exec: async (sql) => {
      await client.query(sql);
    },
    query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
  };
}

/**
 * Cluster {@link Database}: PostgreSQL through `pg` and `@prisma/adapter-pg` (docs/architecture.md, "Ports and adapters"). Each service
 * process opens its own pool and touches only its own schema; the same SQL migration files and runner
 * as standalone apply them (advisory lock per schema, so replicas may start together).
 */
export class PgDatabase implements Database {
  private readonly pool: Pool;
  private closed = false;

  constructor(private readonly options: PgDatabaseOptions) {
    this.pool = new Pool({ connectionString: options.connectionString, max: options.poolSize ?? 10 });
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
  }

  prismaAdapter(schema: string): SqlDriverAdapterFactory {
    return new PrismaPg(this.pool, { schema });
  }

  /** Applies (or, in `verify` mode, checks) the migrations of `schema`; throws naming a pending one. */
  async migrate(schema: string, dir: string): Promise<void> {
    await this.runMigrations(schema, dir);
  }

  /** Like {@link migrate}, returning what was applied (the `migrate` command prints it). */
  async runMigrations(schema: string, dir: string): Promise<MigrationReport> {
    const client = await this.pool.connect();
    try {
      return await migrate(sessionExecutor(client), schema, dir, { dryRun: this.options.migrations === 'verify' });
    } finally {
      client.release();
    }
  }

  /**
   * `VACUUM FULL` of each table (its old relation file is truncated at commit and unlinked at the next
   * checkpoint), then `CHECKPOINT` when the role may run it (superuser or `pg_checkpoint`); otherwise the
   * server's own next checkpoint (`checkpoint_timeout`) finishes the job. WAL segments, archives and
   * replicas stay the operator's concern (docs/deployment.md, "Forgotten content and the database files").
   *
   * VACUUM FULL copies a deleted row into the new file while any snapshot may still see it. So it first
   * waits, up to {@link RECLAIM_SNAPSHOT_WAIT_MS}, until no other client session of this database holds
   * a snapshot in a transaction that began before this call (`pg_stat_activity.backend_xmin`; sessions of
   * other roles count only where the role may read their activity; vacuums hold back no vacuum): every delete committed before the
   * call is then invisible to all. If one is still open then, it rewrites anyway and throws
   * {@link ReclaimIncompleteError} (the ReclaimScheduler runs it again later). Also throws the server's
   * errors (lock_not_available after {@link RECLAIM_LOCK_TIMEOUT_MS}, `Invalid table name`).
   */
  async reclaim(tables: readonly string[]): Promise<void> {
    // VACUUM FULL needs an ACCESS EXCLUSIVE lock: while it waits for one, every later query on the table
    // (other tenants' recalls and writes) queues behind it. A short lock_timeout makes it give up instead;
    // the ReclaimScheduler retries the run later (docs/deployment.md, "Forgotten content and the database files").
    const client = await this.pool.connect();
    let olderSnapshotOpen: boolean;
    try {
      olderSnapshotOpen = !(await this.waitForOlderSnapshots(client));
      await client.query(`SET lock_timeout = ${RECLAIM_LOCK_TIMEOUT_MS}`);
      for (const table of tables) await client.query(`VACUUM FULL ${quoteTable(table)}`);
      await client.query('RESET lock_timeout');
    } catch (err) {
      client.release(true); // the session's setting dies with the connection
      throw err;
    }
    client.release();
    await this.pool.query('CHECKPOINT').catch((err: { code?: string }) => {
      if (err.code !== '42501') throw err; // insufficient_privilege
    });
    if (olderSnapshotOpen) throw new ReclaimIncompleteError(`A transaction older than the reclaim held a snapshot for ${this.snapshotWaitMs} ms: rows deleted before it may survive until the next reclaim`);
  }

  private get snapshotWaitMs(): number {
    return this.options.reclaimSnapshotWaitMs ?? RECLAIM_SNAPSHOT_WAIT_MS;
  }

  /** Waits until no other session of this database holds a snapshot from a transaction older than now; false after {@link snapshotWaitMs}. */
  private async waitForOlderSnapshots(client: PoolClient): Promise<boolean> {
    const deadline = Date.now() + this.snapshotWaitMs;
    const since = (await client.query<{ at: Date }>('SELECT clock_timestamp() AS at')).rows[0].at;
    for (;;) {
      const { rows } = await client.query<{ open: number }>(
        "SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL AND xact_start < $1",
        [since],
      );
      if (rows[0].open === 0) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, SNAPSHOT_POLL_MS));
    }
  }

  /** Readiness check: one round trip. Throws when the server is unreachable. */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

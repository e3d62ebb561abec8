import { Pool, type PoolClient } from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { type Database, ReclaimIncompleteError } from './database.port';
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
 * How long a reclaim waits for the transactions older than itself to end before it rewrites anyway (ms);
 * see {@link PgDatabase.reclaim}.
 */
export const RECLAIM_SNAPSHOT_WAIT_MS = 2_000;
/** Pause between two looks at the older transactions (ms). */
const SNAPSHOT_POLL_MS = 25;

/**
 * Sessions and prepared transactions of this database whose xmin or xid is older than `$1` (an xid): they
 * hold the cleanup horizon before it, so VACUUM FULL would copy rows deleted before `$1`. Lazy VACUUMs of
 * autovacuum are left out (vacuums ignore each other's xmin; recognised by their query text, which a role
 * without `pg_read_all_stats` cannot read, so for it they count: a needless wait); its ANALYZEs count.
 */
const OLDER_TRANSACTIONS_SQL = `
  SELECT (SELECT count(*) FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid()
             AND NOT (backend_type = 'autovacuum worker' AND query LIKE 'autovacuum: VACUUM %' AND query NOT LIKE '%ANALYZE%')
             AND ((backend_xmin IS NOT NULL AND age(backend_xmin) > age($1::xid)) OR (backend_xid IS NOT NULL AND age(backend_xid) > age($1::xid))))
       + (SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database() AND age(transaction) > age($1::xid)) AS open`;

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
   * VACUUM FULL copies a deleted row into the new file while the database's cleanup horizon is older
   * than the delete. So it first waits, up to {@link RECLAIM_SNAPSHOT_WAIT_MS}, until no session of this
   * database (`pg_stat_activity.backend_xmin` and `backend_xid`, visible for every role) and no prepared
   * transaction is older than the call's snapshot xmax (one past the newest transaction id finished when
   * the call began; every delete committed before the call is below it): such deletes are then
   * removable. If one is still open then, it rewrites anyway and throws {@link ReclaimIncompleteError}
   * (the ReclaimScheduler runs it again after its delay). Replication slots and standbys' feedback, which
   * also hold the horizon, are the operator's (docs/deployment.md). Also throws the server's errors
   * (lock_not_available after {@link RECLAIM_LOCK_TIMEOUT_MS}, `Invalid table name`).
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
    if (olderSnapshotOpen) throw new ReclaimIncompleteError(`A transaction older than the reclaim was still open after ${this.snapshotWaitMs} ms: rows deleted before the reclaim may survive until the next one`);
  }

  private get snapshotWaitMs(): number {
    return this.options.reclaimSnapshotWaitMs ?? RECLAIM_SNAPSHOT_WAIT_MS;
  }

  /** Waits until nothing of this database is older than the call ({@link OLDER_TRANSACTIONS_SQL}); false after {@link snapshotWaitMs}. */
  private async waitForOlderSnapshots(client: PoolClient): Promise<boolean> {
    const deadline = Date.now() + this.snapshotWaitMs;
    // The snapshot's xmax (above every finished xid), as the 32-bit xid that pg_stat_activity shows (xid8 modulo 2^32).
    const since = (await client.query<{ xid: string }>('SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::numeric % 4294967296)::text AS xid')).rows[0].xid;
    for (;;) {
      const { rows } = await client.query<{ open: string }>(OLDER_TRANSACTIONS_SQL, [since]);
      if (Number(rows[0].open) === 0) return true;
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

/**
 * Minimal SQL session used by the migration runner: PGlite in standalone mode, a `pg` client in
 * cluster mode. Both speak PostgreSQL, so the same migration files serve both.
 */
export interface SqlExecutor {
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
  /** Runs one statement with `$1…` parameters and returns its rows. */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlExecutor } from './sql-executor';

/** Result of one migration run: names of migrations applied now, and of those already applied. */
export interface MigrationReport {
  schema: string;
  applied: string[];
  skipped: string[];
}

/**
 * Applies the pending SQL migrations of one service (`<dir>/<timestamp>_<name>/migration.sql`, Prisma's
 * layout) to its own Postgres schema, in name order, each in a transaction, recorded in
 * `<schema>._migrations` with a checksum. An advisory lock per schema makes concurrent runs (two
 * replicas starting together) safe: the second waits, then finds nothing to do. A changed file that was
 * already applied is an error (migrations are append-only). With `dryRun`, nothing is applied and a
 * pending migration is an error (services that must not migrate themselves check with it).
 *
 * A comment of an applied file may still be corrected: `<dir>/superseded-checksums.json` lists, per
 * migration name, the SHA-256 of its earlier texts (`{ "<name>": ["<hex>"] }`). A database that recorded
 * one of them accepts the file and keeps the checksum it recorded (an older release still verifies after
 * a rollback); the SQL itself must not change (docs/deployment.md, "Migrations").
 */
export async function migrate(db: SqlExecutor, schema: string, dir: string, options: { dryRun?: boolean } = {}): Promise<MigrationReport> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name ${schema}`);
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const lockKey = `agent-memory:migrate:${schema}`;
  await db.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
  try {
    await db.exec(
      `CREATE SCHEMA IF NOT EXISTS "${schema}";
       CREATE TABLE IF NOT EXISTS "${schema}"."_migrations" (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());`,
    );
    const rows = await db.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "${schema}"."_migrations"`);
    const done = new Map(rows.map((r) => [r.name, r.checksum]));
    const superseded = await supersededChecksums(dir);
    const report: MigrationReport = { schema, applied: [], skipped: [] };
    for (const name of names) {
      const sql = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = done.get(name);
      if (previous !== undefined) {
        // The recorded checksum is kept as it is, so that an older release (with the earlier text) still verifies after a rollback.
        if (previous !== checksum && !superseded[name]?.includes(previous)) throw new Error(`Migration ${schema}/${name} was changed after it was applied`);
        report.skipped.push(name);
        continue;
      }
      if (options.dryRun) throw new Error(`Migration ${schema}/${name} is pending: run the migrate command first`);
      await db.exec('BEGIN');
      try {
        await db.exec(sql);
        await db.query(`INSERT INTO "${schema}"."_migrations" (name, checksum) VALUES ($1, $2)`, [name, checksum]);
        await db.exec('COMMIT');
      } catch (err) {
        await db.exec('ROLLBACK');
        throw new Error(`Migration ${schema}/${name} failed: ${(err as Error).message}`);
      }
      report.applied.push(name);
    }
    return report;
  } finally {
    await db.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]);
  }
}

/** Reads `<dir>/superseded-checksums.json` (see {@link migrate}); absent: none. Throws on a malformed file. */
async function supersededChecksums(dir: string): Promise<Record<string, string[]>> {
  let text: string;
  try {
    text = await readFile(join(dir, 'superseded-checksums.json'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  const parsed: unknown = JSON.parse(text);
  const valid =
    typeof parsed === 'object' && parsed !== null && Object.values(parsed).every((v) => Array.isArray(v) && v.every((c) => typeof c === 'string' && /^[0-9a-f]{64}$/.test(c)));
  if (!valid) throw new Error(`${join(dir, 'superseded-checksums.json')}: expected { "<migration>": ["<sha256 hex>", ...] }`);
  return parsed as Record<string, string[]>;
}

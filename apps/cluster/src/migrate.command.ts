import { join } from 'node:path';
import { Client } from 'pg';
import { PgDatabase } from '@agent-memory/platform';
import type { ClusterConfig } from './cluster.config';

/** Every service's schema and its migrations folder (each service owns one Postgres schema). */
export const SERVICE_MIGRATIONS = ['agents', 'records', 'memory', 'files', 'billing'].map((schema) => ({
  schema,
  dir: join(__dirname, '..', '..', '..', 'services', schema, 'prisma', 'migrations'),
}));

/**
 * Creates the database of DATABASE_URL if it is missing (needs CREATEDB; skipped silently otherwise,
 * the migrations then fail with the server's message).
 */
async function ensureDatabase(connectionString: string): Promise<void> {
  const url = new URL(connectionString);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!name || !/^[A-Za-z0-9_]+$/.test(name)) return;
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  try {
    await admin.connect();
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`).catch((err: { code?: string }) => {
      if (err.code !== '42P04') throw err; // created concurrently
    });
  } catch {
    // no access to the maintenance database: assume the database is provisioned
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/**
 * The `migrate` command (Helm pre-install/pre-upgrade hook, compose one-shot, `npm run db:migrate`,
 * or `npm run db:migrate -- memory` for one service): applies every (or the named) service's pending migrations with the same runner standalone uses at start-up. Safe to
 * run from two places at once (advisory lock per schema). Returns a line per schema.
 */
export async function runMigrateCommand(config: ClusterConfig, only: readonly string[] = []): Promise<string[]> {
  const unknown = only.filter((s) => !SERVICE_MIGRATIONS.some((m) => m.schema === s));
  if (unknown.length > 0) throw new Error(`Unknown service ${unknown.join(', ')}: expected ${SERVICE_MIGRATIONS.map((m) => m.schema).join(', ')}`);
  await ensureDatabase(config.env.DATABASE_URL);
  const db = new PgDatabase({ connectionString: config.env.DATABASE_URL, poolSize: 1, migrations: 'apply' });
  const lines: string[] = [];
  try {
    for (const { schema, dir } of SERVICE_MIGRATIONS.filter((m) => only.length === 0 || only.includes(m.schema))) {
      const report = await db.runMigrations(schema, dir);
      lines.push(`${schema}: ${report.applied.length} applied${report.applied.length ? ` (${report.applied.join(', ')})` : ''}, ${report.skipped.length} already applied`);
    }
  } finally {
    await db.close();
  }
  return lines;
}

/**
 * The PostgreSQL adapter on the machine's PostgreSQL (a fresh database per run): the same migration
 * files and runner as standalone, safe when two replicas migrate at once, and `verify` mode refusing to
 * start on a pending migration (Helm: the hook Job migrates, the services only check).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@agent-memory/testing';
import { Client } from 'pg';
import { ReclaimIncompleteError } from './database.port';
import { PgDatabase } from './pg.database';

let database: TestDatabase;
let dir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'am-migrations-'));
  mkdirSync(join(dir, '20260101000000_init'));
  writeFileSync(join(dir, '20260101000000_init', 'migration.sql'), 'CREATE TABLE "svc"."things" (id text PRIMARY KEY, n int NOT NULL);');
});
afterAll(async () => {
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('PgDatabase migrations', () => {
  it('applies once when two replicas migrate at the same time (advisory lock), and is idempotent', async () => {
    const a = new PgDatabase({ connectionString: database.url });
    const b = new PgDatabase({ connectionString: database.url });
    try {
      const [ra, rb] = await Promise.all([a.runMigrations('svc', dir), b.runMigrations('svc', dir)]);
      expect([ra.applied.length, rb.applied.length].sort()).toEqual([0, 1]);
      expect((await a.runMigrations('svc', dir)).skipped).toEqual(['20260101000000_init']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('in verify mode refuses a pending migration and accepts an applied one', async () => {
    mkdirSync(join(dir, '20260102000000_more'));
    writeFileSync(join(dir, '20260102000000_more', 'migration.sql'), 'ALTER TABLE "svc"."things" ADD COLUMN note text;');
    const verify = new PgDatabase({ connectionString: database.url, migrations: 'verify' });
    const apply = new PgDatabase({ connectionString: database.url });
    try {
      await expect(verify.migrate('svc', dir)).rejects.toThrow(/20260102000000_more is pending/);
      await apply.migrate('svc', dir);
      await expect(verify.migrate('svc', dir)).resolves.toBeUndefined();
    } finally {
      await Promise.all([verify.close(), apply.close()]);
    }
  });

  it('accepts a corrected comment of an applied migration only when its earlier checksum is listed as superseded', async () => {
    const { createHash } = await import('node:crypto');
    const sub = mkdtempSync(join(tmpdir(), 'am-migrations-comment-'));
    const file = join(sub, '20260101000000_init', 'migration.sql');
    mkdirSync(join(sub, '20260101000000_init'));
    const original = '-- Cites a text that is not in the repository.\nCREATE TABLE "cmt"."things" (id text PRIMARY KEY);';
    writeFileSync(file, original);
    const db = new PgDatabase({ connectionString: database.url });
    const verify = new PgDatabase({ connectionString: database.url, migrations: 'verify' });
    try {
      await db.runMigrations('cmt', sub);
      writeFileSync(file, '-- Cites docs/architecture.md.\nCREATE TABLE "cmt"."things" (id text PRIMARY KEY);');
      await expect(db.runMigrations('cmt', sub)).rejects.toThrow(/was changed after it was applied/);
      writeFileSync(join(sub, 'superseded-checksums.json'), JSON.stringify({ '20260101000000_init': [createHash('sha256').update(original).digest('hex')] }));
      await expect(verify.migrate('cmt', sub)).resolves.toBeUndefined();
      expect((await db.runMigrations('cmt', sub)).skipped).toEqual(['20260101000000_init']);
      // The recorded checksum stays the earlier one: a rollback to the earlier text still verifies, and the list stays needed.
      writeFileSync(file, original);
      await expect(verify.migrate('cmt', sub)).resolves.toBeUndefined();
      writeFileSync(file, '-- Cites docs/architecture.md.\nCREATE TABLE "cmt"."things" (id text PRIMARY KEY);');
      rmSync(join(sub, 'superseded-checksums.json'));
      await expect(db.runMigrations('cmt', sub)).rejects.toThrow(/was changed after it was applied/);
      writeFileSync(join(sub, 'superseded-checksums.json'), '{"20260101000000_init": ["not a checksum"]}');
      await expect(db.runMigrations('cmt', sub)).rejects.toThrow(/superseded-checksums\.json: expected/);
    } finally {
      await Promise.all([db.close(), verify.close()]);
      rmSync(sub, { recursive: true, force: true });
    }
  });

  it('serves a Prisma driver adapter on the service schema and answers the readiness ping', async () => {
    const db = new PgDatabase({ connectionString: database.url });
    try {
      await db.ping();
      const adapter = await (db.prismaAdapter('svc') as unknown as { connect(): Promise<{ executeRaw(q: unknown): Promise<number>; queryRaw(q: unknown): Promise<{ rows: unknown[][] }> }> }).connect();
      await adapter.executeRaw({ sql: 'INSERT INTO "svc"."things" (id, n) VALUES ($1, $2)', args: ['a', 1], argTypes: [{ scalarType: 'string', arity: 'scalar' }, { scalarType: 'int', arity: 'scalar' }] });
      const result = await adapter.queryRaw({ sql: 'SELECT id, n FROM "svc"."things"', args: [], argTypes: [] });
      expect(result.rows).toEqual([['a', 1]]);
    } finally {
      await db.close();
    }
    await expect(new PgDatabase({ connectionString: 'postgres://postgres@127.0.0.1:1/none' }).ping()).rejects.toThrow();
  });
});

describe('PgDatabase.reclaim', () => {
  it('rewrites a table (new relation file, live rows kept) and tolerates a role that may not checkpoint', async () => {
    const db = new PgDatabase({ connectionString: database.url });
    const { Client } = await import('pg');
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('CREATE SCHEMA IF NOT EXISTS reclaim; CREATE TABLE reclaim.t (id int PRIMARY KEY, s text)');
      await client.query("INSERT INTO reclaim.t VALUES (1, 'kept'), (2, 'deleted')");
      await client.query('DELETE FROM reclaim.t WHERE id = 2');
      const before = (await client.query("SELECT pg_relation_filepath('reclaim.t') AS p")).rows[0].p;
      await db.reclaim(['reclaim.t']);
      const after = (await client.query("SELECT pg_relation_filepath('reclaim.t') AS p")).rows[0].p;
      expect(after).not.toBe(before);
      expect((await client.query('SELECT id, s FROM reclaim.t')).rows).toEqual([{ id: 1, s: 'kept' }]);
      await expect(db.reclaim(['reclaim.t; SELECT 1'])).rejects.toThrow('Invalid table name');
    } finally {
      await client.end();
      await db.close();
    }
  });
  /**
   * Inserts a live row and `canary` into `table`, has `openOlder` open a transaction on its own session,
   * deletes the canary, and checks that the reclaim waits for that transaction (unsettled after 400 ms,
   * done once it commits). Returns the rewritten relation file's bytes (read as the superuser the tests
   * connect as).
   */
  async function rewriteAfterOlderTransaction(table: string, canary: string, openOlder: (session: Client) => Promise<void>): Promise<Buffer> {
    const db = new PgDatabase({ connectionString: database.url });
    const writer = new Client({ connectionString: database.url });
    const older = new Client({ connectionString: database.url });
    await writer.connect();
    await older.connect();
    try {
      await writer.query(`CREATE SCHEMA IF NOT EXISTS reclaim; CREATE TABLE IF NOT EXISTS ${table} (id int PRIMARY KEY, s text); CREATE TABLE IF NOT EXISTS reclaim.elsewhere (id int)`);
      await writer.query(`INSERT INTO ${table} VALUES (1, 'kept'), (2, '${canary}')`);
      await openOlder(older);
      await writer.query(`DELETE FROM ${table} WHERE id = 2`);
      let settled = false;
      const reclaim = db.reclaim([table]).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(settled).toBe(false);
      await older.query('COMMIT');
      await reclaim;
      return (await writer.query<{ bytes: Buffer }>(`SELECT pg_read_binary_file(pg_relation_filepath('${table}')) AS bytes`)).rows[0].bytes;
    } finally {
      await older.end();
      await writer.end();
      await db.close();
    }
  }

  it('waits for a snapshot older than itself before it rewrites, so a row deleted before the call is not copied', async () => {
    // A transaction that began before the delete and still sees the row (a slow request elsewhere).
    const file = await rewriteAfterOlderTransaction('reclaim.snap', 'reclaim-canary-7f3a', async (holder) => {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM pg_class');
    });
    // The new relation file holds the live row only.
    expect(file.includes(Buffer.from('kept'))).toBe(true);
    expect(file.includes(Buffer.from('reclaim-canary-7f3a'))).toBe(false);
  });

  it('waits for an older write transaction idle between statements (it holds an xid, not a snapshot)', async () => {
    // READ COMMITTED, idle in a transaction that has written elsewhere (another service's batch).
    const file = await rewriteAfterOlderTransaction('reclaim.idle', 'reclaim-canary-9c1e', async (other) => {
      await other.query('BEGIN');
      await other.query('INSERT INTO reclaim.elsewhere VALUES (1)');
    });
    expect(file.includes(Buffer.from('reclaim-canary-9c1e'))).toBe(false);
  });

  it('rewrites anyway when the older snapshot outlasts the wait, and says so (ReclaimIncompleteError)', async () => {
    const db = new PgDatabase({ connectionString: database.url, reclaimSnapshotWaitMs: 200 });
    const { Client } = await import('pg');
    const holder = new Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('CREATE SCHEMA IF NOT EXISTS reclaim; CREATE TABLE IF NOT EXISTS reclaim.slow (id int PRIMARY KEY)');
      const before = (await holder.query("SELECT pg_relation_filepath('reclaim.slow') AS p")).rows[0].p;
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM pg_class');
      // A write after the holder's snapshot (a delete it could still see): the holder is now older than the reclaim.
      const writer = new Client({ connectionString: database.url });
      await writer.connect();
      await writer.query('INSERT INTO reclaim.slow VALUES (1) ON CONFLICT DO NOTHING');
      await writer.query('DELETE FROM reclaim.slow WHERE id = 1');
      await writer.end();
      await expect(db.reclaim(['reclaim.slow'])).rejects.toBeInstanceOf(ReclaimIncompleteError);
      await holder.query('COMMIT');
      expect((await holder.query("SELECT pg_relation_filepath('reclaim.slow') AS p")).rows[0].p).not.toBe(before);
    } finally {
      await holder.end();
      await db.close();
    }
  });

  it('gives up when the table is in use instead of queueing every later query behind its lock', async () => {
    const db = new PgDatabase({ connectionString: database.url });
    const { Client } = await import('pg');
    const holder = new Client({ connectionString: database.url });
    const reader = new Client({ connectionString: database.url });
    await holder.connect();
    await reader.connect();
    try {
      await holder.query('CREATE SCHEMA IF NOT EXISTS reclaim; CREATE TABLE IF NOT EXISTS reclaim.busy (id int PRIMARY KEY)');
      await holder.query('INSERT INTO reclaim.busy VALUES (1) ON CONFLICT DO NOTHING');
      // A long transaction (a slow write, a record purge) holds a lock on the table.
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM reclaim.busy');
      const reclaim = db.reclaim(['reclaim.busy']);
      // While the rewrite waits for its lock, a read that comes after it must not wait for the holder.
      const read = reader.query('SELECT count(*)::int AS n FROM reclaim.busy');
      await expect(reclaim).rejects.toMatchObject({ code: '55P03' }); // lock_not_available
      expect((await read).rows).toEqual([{ n: 1 }]);
      await holder.query('COMMIT');
      await db.reclaim(['reclaim.busy']); // free again: the retried run goes through
    } finally {
      await holder.end();
      await reader.end();
      await db.close();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoAnalyze, writtenTables } from './pglite-auto-analyze';
import { PgliteDatabase } from './pglite.database';

describe('writtenTables', () => {
  it('names the tables an INSERT, UPDATE, DELETE or data-modifying CTE writes, as format(%I.%I) would', () => {
    expect(writtenTables('INSERT INTO "memory"."memories" ("id") VALUES ($1)')).toEqual(['memory.memories']);
    expect(writtenTables('UPDATE "billing"."balances" SET x = 1')).toEqual(['billing.balances']);
    expect(writtenTables('delete from memory.write_log where id = $1')).toEqual(['memory.write_log']);
    expect(writtenTables('WITH gone AS (DELETE FROM "a"."b" RETURNING id) INSERT INTO "a"."c" SELECT id FROM gone')).toEqual(['a.b', 'a.c']);
    expect(writtenTables('SELECT "memory"."memories"."id" FROM "memory"."memories" WHERE id = $1')).toEqual([]);
    expect(writtenTables('INSERT INTO "Odd"."Name" VALUES (1)')).toEqual(['"Odd"."Name"']);
  });
});

describe('AutoAnalyze', () => {
  function fake(rows = 0) {
    const analysed: string[] = [];
    const target = {
      analyze: async (table: string) => {
        analysed.push(table);
      },
      estimatedRows: async () => rows,
    };
    return { analysed, target };
  }

  it('analyses a table once the rows written exceed 50 + 10 % of its rows, once per burst', async () => {
    const { analysed, target } = fake(1_000);
    const auto = new AutoAnalyze(target, () => undefined, 0);
    auto.wrote(['a.t'], 50);
    await new Promise((r) => setTimeout(r, 5));
    expect(analysed).toEqual([]);
    auto.wrote(['a.t'], 1);
    auto.wrote(['a.t'], 10);
    await new Promise((r) => setTimeout(r, 5));
    await auto.stop();
    expect(analysed).toEqual(['a.t']);
  });

  it('raises the threshold with the table: after an analysis finding 1,000 rows, 150 more writes are needed', async () => {
    const { analysed, target } = fake(1_000);
    const auto = new AutoAnalyze(target, () => undefined, 0);
    auto.wrote(['a.t'], 51);
    await new Promise((r) => setTimeout(r, 5));
    auto.wrote(['a.t'], 150);
    await new Promise((r) => setTimeout(r, 5));
    expect(analysed).toEqual(['a.t']);
    auto.wrote(['a.t'], 1);
    await new Promise((r) => setTimeout(r, 5));
    await auto.stop();
    expect(analysed).toEqual(['a.t', 'a.t']);
  });

  it('reports a failed ANALYZE and analyses the table again at its next write', async () => {
    const errors: string[] = [];
    let fail = true;
    const analysed: string[] = [];
    const auto = new AutoAnalyze(
      {
        analyze: async (t) => {
          if (fail) throw new Error('busy');
          analysed.push(t);
        },
        estimatedRows: async () => 0,
      },
      (table) => errors.push(table),
      0,
    );
    auto.wrote(['a.t'], 100);
    await new Promise((r) => setTimeout(r, 5));
    expect(errors).toEqual(['a.t']);
    fail = false;
    auto.wrote(['a.t'], 1); // one row: due again at once
    await new Promise((r) => setTimeout(r, 5));
    await auto.stop();
    expect(analysed).toEqual(['a.t']);
  });

  it('on the embedded database: a table written through Prisma-style statements gets planner statistics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'auto-analyze-'));
    const db = await PgliteDatabase.open(dir);
    try {
      const exec = (db as unknown as { prepared: { query: (sql: string, params?: unknown[]) => Promise<unknown>; exec: (sql: string) => Promise<unknown> } }).prepared;
      await exec.exec('CREATE SCHEMA s; CREATE TABLE s.t (id int PRIMARY KEY, v text)');
      const reltuples = async () => ((await exec.query("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 's.t'::regclass")) as { rows: { n: number }[] }).rows[0].n;
      expect(await reltuples()).toBe(-1);
      for (let i = 0; i < 120; i++) await exec.query('INSERT INTO "s"."t" (id, v) VALUES ($1, $2)', [i, 'x']);
      for (let waited = 0; (await reltuples()) < 0 && waited < 5_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      expect(await reltuples()).toBeGreaterThanOrEqual(51);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

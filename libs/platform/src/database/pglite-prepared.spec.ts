import { messages, PGlite } from '@electric-sql/pglite';
import { pglitePreparedClient, type PglitePreparedClient } from './pglite-prepared';

describe('pglitePreparedClient', () => {
  let pg: PGlite;
  let client: PglitePreparedClient;

  beforeAll(async () => {
    pg = new PGlite('memory://');
    await pg.waitReady;
    await pg.exec(`
      CREATE TABLE t (id text PRIMARY KEY, n int NOT NULL, big bigint, ok boolean, doc jsonb, at timestamptz, tags text[], raw bytea, ratio double precision, body text);
      INSERT INTO t VALUES ('a', 1, 9007199254740993, true, '{"x":[1,2]}', '2026-01-02 03:04:05.678+00', '{p,"q r"}', '\\x00ff', 0.5);
    `);
    client = pglitePreparedClient(pg, { capacity: 3 });
  });
  afterAll(async () => {
    await pg.close();
  });

  const select = 'SELECT id, n, big, ok, doc, at, tags, raw, ratio FROM t WHERE id = $1';

  it('answers exactly what PGlite query answers, in object and array row modes, on first and later executions', async () => {
    for (const options of [undefined, { rowMode: 'array' as const }]) {
      const expected = await pg.query(select, ['a'], options);
      for (let i = 0; i < 7; i++) {
        // past PostgreSQL's five custom plans, when a generic plan may be chosen
        const got = await client.query(select, ['a'], options);
        expect(got).toEqual(expected);
      }
    }
  });

  it('answers command, row count and affected rows as PGlite does, and multi-byte text intact', async () => {
    const statements: Array<[string, unknown[]]> = [
      ['INSERT INTO t (id, n, body) VALUES ($1, $2, $3)', ['u1', 7, 'naïve 🙂 日本語 ' + 'x'.repeat(70_000)]],
      ['SELECT id, n, body FROM t WHERE n = $1', [7]],
      ['UPDATE t SET n = $1 WHERE n = $2', [8, 7]],
      ['SELECT count(*)::int AS c FROM t WHERE n = $1', [999]],
      ['DELETE FROM t WHERE n = $1', [8]],
    ];
    for (const [sql, params] of statements) {
      // PGlite's own answer first, in a transaction rolled back, then the prepared client's (kept)
      const expected = await pg.transaction(async (tx) => {
        const result = await tx.query(sql, params);
        await tx.rollback();
        return result;
      });
      expect(await client.query(sql, params)).toEqual(expected);
    }
    expect((await client.query<{ body: string }>('SELECT body FROM t WHERE id = $1', ['u1'])).rows).toEqual([]);
  });

  it('serialises every parameter type as PGlite does (null, numbers, json, dates, arrays, bytes) and reports affected rows', async () => {
    const values = ['b', 2, 42n, false, { y: 'z' }, new Date('2026-05-06T07:08:09.010Z'), ['u', 'v w'], new Uint8Array([1, 2, 3]), 1.25];
    const inserted = await client.query('INSERT INTO t (id, n, big, ok, doc, at, tags, raw, ratio) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', values);
    expect(inserted.affectedRows).toBe(1);
    const viaPrepared = await client.query(select, ['b']);
    expect(viaPrepared.rows).toEqual((await pg.query(select, ['b'])).rows);
    expect(viaPrepared.rows[0]).toMatchObject({ n: 2, ok: false, doc: { y: 'z' }, tags: ['u', 'v w'], ratio: 1.25 });
    const nulls = await client.query('INSERT INTO t (id, n, big, doc) VALUES ($1, $2, $3, $4)', ['c', 3, null, undefined]);
    expect(nulls.affectedRows).toBe(1);
    expect((await client.query<{ big: unknown; doc: unknown }>('SELECT big, doc FROM t WHERE id = $1', ['c'])).rows).toEqual([{ big: null, doc: null }]);
    const updated = await client.query('UPDATE t SET n = n + 1 WHERE id = ANY($1::text[])', [['b', 'c', 'none']]);
    expect(updated.affectedRows).toBe(2);
  });

  it('throws PGlite DatabaseError with the SQLSTATE for a bad statement and a violated constraint, and the client keeps working', async () => {
    await expect(client.query('SELEC nothing')).rejects.toMatchObject({ code: '42601' });
    await expect(client.query('INSERT INTO t (id, n) VALUES ($1, $2)', ['a', 1])).rejects.toBeInstanceOf(messages.DatabaseError);
    await expect(client.query('INSERT INTO t (id, n) VALUES ($1, $2)', ['a', 1])).rejects.toMatchObject({ code: '23505' });
    await expect(client.query('SELECT n FROM t WHERE n = $1', ['not a number'])).rejects.toMatchObject({ code: '22P02' });
    expect((await client.query<{ n: number }>('SELECT n FROM t WHERE id = $1', ['a'])).rows).toEqual([{ n: 1 }]);
  });

  it('keeps at most its capacity of statements, closing the least recently used in the backend', async () => {
    for (let i = 0; i < 10; i++) expect((await client.query<{ v: number }>(`SELECT $1::int + ${i} AS v`, [1])).rows).toEqual([{ v: 1 + i }]);
    // a close is sent with the next prepare: the capacity (3) plus the one evicted last are left
    await client.query('SELECT $1::int AS v', [0]);
    const left = await pg.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'am_%'");
    expect(left.rows.length).toBe(4);
  });

  it('runs statements in a transaction that commits, and none of a transaction that rolls back or fails', async () => {
    await client.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id, n) VALUES ($1, $2)', ['tx1', 10]);
      expect((await tx.query<{ n: number }>('SELECT n FROM t WHERE id = $1', ['tx1'])).rows).toEqual([{ n: 10 }]);
    });
    expect((await client.query('SELECT 1 FROM t WHERE id = $1', ['tx1'])).rows).toHaveLength(1);

    await client.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id, n) VALUES ($1, $2)', ['tx2', 20]);
      await tx.rollback();
    });
    await expect(
      client.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id, n) VALUES ($1, $2)', ['tx3', 30]);
        await tx.query('INSERT INTO t (id, n) VALUES ($1, $2)', ['tx3', 31]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await client.query('SELECT id FROM t WHERE id = ANY($1::text[])', [['tx2', 'tx3']])).rows).toEqual([]);
    // a statement prepared inside a rolled-back transaction stays usable
    expect((await client.query<{ n: number }>('SELECT n FROM t WHERE id = $1', ['tx1'])).rows).toEqual([{ n: 10 }]);
  });

  it('makes a query outside the transaction wait until the transaction ends', async () => {
    const order: string[] = [];
    let outside!: Promise<number>;
    await client.transaction(async (t) => {
      await t.query('UPDATE t SET n = $1 WHERE id = $2', [100, 'a']);
      order.push('tx wrote');
      outside = client.query<{ n: number }>('SELECT n FROM t WHERE id = $1', ['a']).then((r) => {
        order.push('outside read');
        return r.rows[0].n;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await t.query('UPDATE t SET n = $1 WHERE id = $2', [101, 'a']);
      order.push('tx ends');
    });
    expect(await outside).toBe(101);
    expect(order).toEqual(['tx wrote', 'tx ends', 'outside read']);
  });
});

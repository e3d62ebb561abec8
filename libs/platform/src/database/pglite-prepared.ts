import { messages, type PGlite, parse, protocol, type QueryOptions, type Results, type Transaction } from '@electric-sql/pglite';
import { writtenTables } from './pglite-auto-analyze';

type RowDescription = InstanceType<typeof messages.RowDescriptionMessage>;

/** Prepared statements kept per database before the least recently used one is closed. */
export const PREPARED_STATEMENT_CAPACITY = 512;

/** One named prepared statement: its parameter types (for serialising values) and its row description (for parsing rows). */
interface PreparedStatement {
  name: string;
  paramTypes: number[];
  rows: RowDescription | undefined;
  /** The tables it writes (`writtenTables`), told to `onRowsWritten` with the rows it affected. */
  writes: string[];
}

/** Options of {@link pglitePreparedClient}. */
export interface PglitePreparedOptions {
  /** Statements kept (default {@link PREPARED_STATEMENT_CAPACITY}). */
  capacity?: number;
  /** Told after each statement that affected rows: the tables it writes and how many rows (AutoAnalyze). */
  onRowsWritten?: (tables: readonly string[], rows: number) => void;
}

/** The client surface the Prisma PGlite driver adapter uses: `query`, `exec` and `transaction`. */
export interface PglitePreparedClient {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string, options?: QueryOptions): Promise<Results[]>;
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

/**
 * A PGlite client whose parameterised queries run as named prepared statements in one protocol exchange
 * (docs/architecture.md, "Ports and adapters": the standalone database adapter). PGlite's own `query` sends
 * Parse, Describe, Bind, Describe, Execute and Sync as six calls into the WebAssembly backend and parses and
 * plans the statement every time; here each distinct SQL text is parsed and described once (Parse and
 * Describe of a named statement), and every execution is one call of Bind, Execute and Sync, so PostgreSQL
 * reuses the parsed statement and, after its plan-cache rule (five custom plans), a generic plan. Measured
 * on a primary-key select: about 1 ms per `query` against about 0.08 ms prepared (docs/configuration.md, "The embedded database").
 *
 * Same results and locking as PGlite's `query`: values are serialised with PGlite's serialisers for the
 * parameter types PostgreSQL inferred, rows parsed with its parsers and the caller's `options.parsers` and
 * `rowMode`, and a failed statement throws PGlite's `DatabaseError` with the server's fields (without the
 * `query` and `params` PGlite's `query` adds; in a transaction it aborts the transaction, as any statement
 * error does). The options `paramTypes`, `blob` and `onNotice` are not supported (the Prisma adapter sets
 * none). A call after the database closed throws. Calls outside a transaction wait for an open transaction
 * (PGlite's transaction mutex) and run one at a time (its query mutex).
 *
 * Memory: at most {@link PREPARED_STATEMENT_CAPACITY} statements are kept; the least recently used is
 * closed in the backend (Close) when a new one is prepared. Prepared statements outlive transactions in
 * PostgreSQL, so a rollback does not invalidate the cache. DDL that changes a prepared statement's result
 * (a migration) must run before the first query; a statement PostgreSQL refuses to reuse is dropped from the
 * cache and the error is thrown, so the next call prepares it again.
 */
export function pglitePreparedClient(pg: PGlite, { capacity = PREPARED_STATEMENT_CAPACITY, onRowsWritten }: PglitePreparedOptions = {}): PglitePreparedClient {
  const statements = new Map<string, PreparedStatement>();
  const closing: string[] = [];
  let sequence = 0;

  async function prepare(sql: string): Promise<PreparedStatement> {
    const cached = statements.get(sql);
    if (cached) {
      // Map order is insertion order: re-inserting keeps the most recently used last.
      statements.delete(sql);
      statements.set(sql, cached);
      return cached;
    }
    const name = `am_${(sequence++).toString(36)}`;
    const parts: Uint8Array[] = closing.splice(0).map((old) => protocol.serialize.close({ type: 'S', name: old }));
    parts.push(protocol.serialize.parse({ name, text: sql }), protocol.serialize.describe({ type: 'S', name }), protocol.serialize.sync());
    const described = await pg.execProtocolStream(concat(parts), { syncToFs: false });
    const statement: PreparedStatement = {
      name,
      paramTypes: parse.parseDescribeStatementResults(described),
      rows: described.find((m): m is RowDescription => m instanceof messages.RowDescriptionMessage),
      writes: writtenTables(sql),
    };
    statements.set(sql, statement);
    if (statements.size > capacity) {
      const [oldestSql, oldest] = statements.entries().next().value!;
      statements.delete(oldestSql);
      closing.push(oldest.name);
    }
    return statement;
  }

  /** Runs one statement; the caller holds PGlite's query mutex. */
  async function run<T>(sql: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
    const statement = await prepare(sql);
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const type = statement.paramTypes[i];
      const serializer = options?.serializers?.[type] ?? pg.serializers[type];
      // Without a serializer PGlite sends `value.toString()`; the adapter passes strings, numbers, bigints and booleans here.
      return serializer ? serializer(value) : (value as { toString(): string }).toString();
    });
    // The stream form hands the backend's bytes to us only: PGlite's plain execProtocolRaw also parses
    // them into its own message objects and keeps those until its next execProtocolStream.
    const chunks: Uint8Array[] = [];
    await pg.execProtocolRawStream(
      concat([protocol.serialize.bind({ statement: statement.name, values }), protocol.serialize.execute({}), protocol.serialize.sync()]),
      { syncToFs: false, onRawData: (chunk) => chunks.push(chunk.slice()) },
    );
    const raw = chunks.length === 1 ? chunks[0] : concat(chunks);
    const fields = statement.rows?.fields ?? [];
    const decoded = decodeExecution(raw, fields, options?.rowMode === 'array', fields.map((f) => options?.parsers?.[f.dataTypeID] ?? pg.parsers[f.dataTypeID]));
    if (decoded === 'error') {
      const err = databaseErrorOf(raw);
      // "cached plan must not change result type" (0A000) or a statement gone (26000): prepare it afresh next time.
      if ((err.code === '0A000' || err.code === '26000') && statements.get(sql) === statement) {
        statements.delete(sql);
        closing.push(statement.name);
      }
      throw err;
    }
    if (onRowsWritten && statement.writes.length > 0 && decoded.affectedRows) onRowsWritten(statement.writes, decoded.affectedRows);
    return decoded as Results<T>;
  }

  const open = () => {
    if (pg.closed) throw new Error('PGlite is closed');
  };

  return {
    query: <T>(sql: string, params: unknown[] = [], options?: QueryOptions) =>
      pg._runExclusiveTransaction(() =>
        pg._runExclusiveQuery(async () => {
          open();
          const result = await run<T>(sql, params, options);
          await pg.syncToFs();
          return result;
        }),
      ),
    exec: (sql, options) => pg.exec(sql, options),
    transaction: <T>(work: (tx: Transaction) => Promise<T>) =>
      pg.transaction((tx) =>
        work({
          query: <R>(sql: string, params: unknown[] = [], options?: QueryOptions) => {
            if (tx.closed) return Promise.reject(new Error('Transaction is closed'));
            return pg._runExclusiveQuery(() => {
              open();
              return run<R>(sql, params, options);
            });
          },
          sql: (strings, ...params: unknown[]) => tx.sql(strings, ...params),
          exec: (sql, options) => tx.exec(sql, options),
          rollback: () => tx.rollback(),
          listen: (channel, callback) => tx.listen(channel, callback),
          get closed() {
            return tx.closed;
          },
        }),
      ),
  };
}

type FieldParser = ((value: string, typeId: number) => unknown) | undefined;
const utf8 = new TextDecoder();

/**
 * The result of one Bind, Execute, Sync exchange read straight from the backend's bytes (the same
 * `Results` PGlite's `parseResults` makes, without its per-message objects and per-field buffer copies):
 * DataRow ('D') fields decoded as UTF-8 text and parsed by `parsers` (one per column, by type), rows as
 * arrays or objects, CommandComplete ('C') giving `command`, `rowCount` and, for INSERT, UPDATE, DELETE,
 * COPY and MERGE, `affectedRows`. Returns 'error' when the backend answered an ErrorResponse ('E').
 * Other messages (BindComplete, ReadyForQuery, notices) carry nothing for the caller.
 */
export function decodeExecution(raw: Uint8Array, fields: readonly { name: string; dataTypeID: number }[], arrays: boolean, parsers: readonly FieldParser[]): Results | 'error' {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const rows: Results['rows'] = [];
  let command: string | undefined;
  let rowCount: number | undefined;
  let affectedRows = 0;
  for (let at = 0; at + 5 <= raw.length; ) {
    const kind = raw[at];
    const length = view.getInt32(at + 1);
    const body = at + 5;
    at += 1 + length;
    if (kind === 0x45 /* E */) return 'error';
    if (kind === 0x44 /* D */) {
      const count = view.getInt16(body);
      const row: unknown[] = new Array<unknown>(count);
      for (let c = 0, p = body + 2; c < count; c++) {
        const size = view.getInt32(p);
        p += 4;
        if (size < 0) {
          row[c] = null;
          continue;
        }
        const text = utf8.decode(raw.subarray(p, p + size));
        p += size;
        const parser = parsers[c];
        row[c] = parser ? parser(text, fields[c].dataTypeID) : text;
      }
      rows.push(arrays ? row : Object.fromEntries(fields.map((f, c) => [f.name, row[c]])));
    } else if (kind === 0x43 /* C */) {
      let end = body;
      while (end < at && raw[end] !== 0) end++;
      const words = utf8.decode(raw.subarray(body, end)).split(' ');
      command = words[0];
      const n = parseInt(words[words.length - 1], 10);
      if (!Number.isNaN(n)) rowCount = n;
      if (['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(command)) affectedRows += n;
    }
  }
  const result: Results = { rows, fields: fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })), affectedRows };
  if (command !== undefined) Object.assign(result, { command }, rowCount === undefined ? {} : { rowCount });
  return result;
}

/** The first ErrorResponse of an exchange as PGlite's `DatabaseError` (PGlite's own protocol parser reads it). */
function databaseErrorOf(raw: Uint8Array): InstanceType<typeof messages.DatabaseError> {
  let error: InstanceType<typeof messages.DatabaseError> | undefined;
  new protocol.Parser().parse(raw, (message) => {
    if (message instanceof messages.DatabaseError) error ??= message;
  });
  return error ?? new messages.DatabaseError('The database answered an error it did not describe', raw.length, 'error');
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

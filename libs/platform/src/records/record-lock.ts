import { NotFoundError } from '@agent-memory/shared';

/**
 * The part of a Prisma transaction client the record mechanisms use: raw SQL with `$1…` parameters. Any
 * service's generated Prisma Client (and its transaction client) has it.
 */
export interface RawSqlTransaction {
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/** A Prisma Client that can also open an interactive transaction over {@link RawSqlTransaction}. */
export interface RawSqlClient extends RawSqlTransaction {
  $transaction<R>(fn: (tx: RawSqlTransaction) => Promise<R>, options?: { maxWait?: number; timeout?: number }): Promise<R>;
}

/** How a record's advisory lock is held: `shared` by writes, `exclusive` by the record's deletion. */
export type RecordLockMode = 'shared' | 'exclusive';

/**
 * Takes the transaction-scoped PostgreSQL advisory lock named `key` (hashed with `hashtextextended`,
 * 64 bits), `exclusive` (`pg_advisory_xact_lock`) or `shared` (`pg_advisory_xact_lock_shared`). Held until
 * the transaction ends, in every process on the same database (replicas of one service).
 */
export async function advisoryXactLock(tx: RawSqlTransaction, key: string, mode: RecordLockMode = 'exclusive'): Promise<void> {
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await tx.$executeRawUnsafe(`SELECT ${fn}(hashtextextended($1::text, 0))`, key);
}

/**
 * The tombstones of deleted records in one service's own table (memory and files each keep theirs,
 * `<schema>.deleted_records (record_id text PRIMARY KEY, deleted_at)`), with that service's record
 * advisory lock (key `<lockNamespace>\n<recordId>`): writes take the lock shared and check the tombstone
 * ({@link refuseDeleted}), the record's deletion takes it exclusively and writes the tombstone
 * ({@link markDeleted}). So a deletion waits for the writes in flight, and a write that starts after it
 * gets NOT_FOUND and commits nothing (docs/architecture.md, "Record deletion").
 */
export class RecordTombstones {
  /**
   * @param table quoted table name, e.g. `"files"."deleted_records"` (a constant, never user input)
   * @param lockNamespace first line of the advisory lock key, e.g. `files-record`
   */
  constructor(
    readonly table: string,
    readonly lockNamespace: string,
  ) {}

  /** Takes the record's advisory lock (`mode`) for the rest of the transaction. */
  lock(tx: RawSqlTransaction, recordId: string, mode: RecordLockMode): Promise<void> {
    return advisoryXactLock(tx, `${this.lockNamespace}\n${recordId}`, mode);
  }

  /**
   * For a write: takes the record's lock shared, then throws NotFoundError (NOT_FOUND) when the record has
   * a tombstone; the caller's transaction then rolls back. With `thenLock`, the same statement as the
   * tombstone read also takes that advisory lock exclusively ({@link advisoryXactLock}; e.g. a path's), one
   * round trip fewer: the read's snapshot is taken after the record's lock is held, and no tombstone can be
   * written while it is, so the read stays exact whatever the wait for `thenLock`.
   */
  async refuseDeleted(tx: RawSqlTransaction, recordId: string, thenLock?: string): Promise<void> {
    await this.lock(tx, recordId, 'shared');
    if (thenLock === undefined) {
      const rows = await tx.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM ${this.table} WHERE record_id = $1`, recordId);
      if (rows.length > 0) throw new NotFoundError(`Record ${recordId} was deleted`);
      return;
    }
    // One row without FROM: both expressions are always evaluated (a join could skip the lock when empty).
    const [row] = await tx.$queryRawUnsafe<{ deleted: boolean }[]>(
      `SELECT pg_advisory_xact_lock(hashtextextended($2::text, 0))::text AS locked, EXISTS (SELECT 1 FROM ${this.table} WHERE record_id = $1) AS deleted`,
      recordId,
      thenLock,
    );
    if (row.deleted) throw new NotFoundError(`Record ${recordId} was deleted`);
  }

  /** For the record's deletion: takes the record's lock exclusively (waits for writes in flight), then writes the tombstone (idempotent). */
  async markDeleted(tx: RawSqlTransaction, recordId: string): Promise<void> {
    await this.lock(tx, recordId, 'exclusive');
    await tx.$executeRawUnsafe(`INSERT INTO ${this.table} (record_id) VALUES ($1) ON CONFLICT (record_id) DO NOTHING`, recordId);
  }
}

/**
 * Transaction options of a record's deletion: it may wait behind writes that hold the record's lock
 * shared (a remember holds it across its vector write, up to 30 s).
 */
export const RECORD_DELETION_TRANSACTION = { maxWait: 10_000, timeout: 35_000 } as const;

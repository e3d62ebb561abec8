import { Inject, Injectable, Optional } from '@nestjs/common';
import { assertBeforeDeadline, IdempotencyClaimLostError, PrismaIdempotencyStore, RECORD_DELETION_TRANSACTION, RecordTombstones, requestDeadline } from '@agent-memory/platform';
import { type MemoryType, newId } from '@agent-memory/shared';
import { Prisma } from './generated/client';
import { chargeMemoryUsage, DEFAULT_MEMORY_QUOTA, MEMORY_QUOTA, type MemoryQuota, type MemoryUsage, readMemoryUsage, releaseMemoryUsage } from './memory-quota';
import { checkMemoryUsage, type MemoryUsageDrift } from './memory-usage-check';
import { type ContextState, type ContextWrite, type EnrichmentWrite, type GuardedWriteOutcome, type LockedMemory, markRolledBack, type MemoryNeighbours, type MemoryRepository, type MemoryRow, type PurgeTask, type RecallableRow, type RememberWrite } from './memory.repository';
import { MEMORY_PRISMA, type MemoryPrismaClient } from './prisma';

/**
 * Transaction options when a vector index write runs inside the transaction: the write may take a while
 * (embedded index: group commit and fsync; Qdrant: a network round trip).
 */
const VECTOR_WRITE_TRANSACTION = { timeout: 30_000, maxWait: 10_000 };

/**
 * Transaction options of a remember's save: {@link VECTOR_WRITE_TRANSACTION}, waiting to start (for a
 * connection; standalone: PGlite's one session) as long as the request's `deadline` (epoch ms) leaves,
 * and never less than its 10 s. A save that waited past that wait failed with a 500 while its caller still
 * waited: with the model on the event loop's thread (EMBEDDER_RUNTIME=tfjs), 32 large writes at once made
 * saves queue behind transactions held open across model jobs for more than 10 s. The deadline is
 * checked again inside the transaction, so a save never commits after it.
 */
export function saveTransactionOptions(deadline: number | undefined, now = Date.now()): { timeout: number; maxWait: number } {
  const left = deadline === undefined ? 0 : deadline - now;
  return { ...VECTOR_WRITE_TRANSACTION, maxWait: Math.max(VECTOR_WRITE_TRANSACTION.maxWait, left) };
}

/**
 * Tombstones of deleted records (`memory.deleted_records`) and the record advisory lock (key
 * `memory-record\n<recordId>`): shared by remember, exclusive by the record's deletion.
 */
const tombstones = new RecordTombstones('"memory"."deleted_records"', 'memory-record');

/**
 * {@link MemoryRepository} over the `memory` schema through the service's Prisma Client: the only Prisma
 * caller of the memory service. Every multi-row change is one transaction, so the metadata never shows a
 * half-done write or forget.
 */
@Injectable()
export class PrismaMemoryRepository implements MemoryRepository {
  /** The idempotency keys of remember (`memory.idempotency_keys`; scope: the record id). */
  readonly idempotency: PrismaIdempotencyStore;

  constructor(
    @Inject(MEMORY_PRISMA) private readonly prisma: MemoryPrismaClient,
    @Optional() @Inject(MEMORY_QUOTA) private readonly quota: MemoryQuota = DEFAULT_MEMORY_QUOTA,
  ) {
    this.idempotency = new PrismaIdempotencyStore(prisma.memoryIdempotencyKey, Prisma.DbNull);
  }

  /** The agent's stored memories and bytes now ({@link assertWithinMemoryQuota} checks a write against it early). */
  usage(agentId: string): Promise<MemoryUsage> {
    return readMemoryUsage(this.prisma, agentId);
  }

  /** The per-agent storage quota in force. */
  get storageQuota(): MemoryQuota {
    return this.quota;
  }

  async quotaView(recordId: string, path: string | undefined, agentId: string): Promise<{ existing: { agentId: string; sizeBytes: number } | null; usage: MemoryUsage }> {
    if (path === undefined) return { existing: null, usage: await this.usage(agentId) };
    // One statement instead of the row's read and then its agent's usage (one round trip fewer per remember at a path).
    const [row] = await this.prisma.$queryRaw<{ agentId: string | null; sizeBytes: number | null; count: bigint | null; bytes: bigint | null }[]>`
      SELECT m.agent_id AS "agentId", m.size_bytes AS "sizeBytes", u.memory_count AS count, u.memory_bytes AS bytes
      FROM (SELECT ${agentId}::text AS agent_id) AS caller
      LEFT JOIN "memory"."memories" m ON m.record_id = ${recordId} AND m.path = ${path}
      LEFT JOIN "memory"."agent_usage" u ON u.agent_id = coalesce(m.agent_id, caller.agent_id)`;
    return {
      existing: row.agentId === null ? null : { agentId: row.agentId, sizeBytes: Number(row.sizeBytes) },
      usage: { memories: Number(row.count ?? 0), bytes: Number(row.bytes ?? 0) },
    };
  }

  findByPath(recordId: string, path: string): Promise<MemoryRow | null> {
    return this.prisma.memory.findUnique({ where: { recordId_path: { recordId, path } } });
  }

  async findById(recordId: string, id: string): Promise<MemoryRow | null> {
    const row = await this.prisma.memory.findUnique({ where: { id } });
    return row && row.recordId === recordId ? row : null;
  }

  /** Rows of the given ids within the record that recall may show (absent, foreign and stale ids are left out). */
  findMany(recordId: string, ids: readonly string[]): Promise<RecallableRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    // One statement text whatever the number of ids (an IN list would be a new prepared statement per length).
    return this.prisma.$queryRaw<RecallableRow[]>`
      SELECT id, path, type, summary FROM "memory"."memories"
      WHERE record_id = ${recordId} AND id = ANY(${[...ids]}::text[]) AND context_stale = false`;
  }

  /** Every row in id order after `cursor`, at most `limit` (the data check's batches). */
  listAfter(cursor: string | undefined, limit: number): Promise<MemoryRow[]> {
    return this.prisma.memory.findMany({ where: cursor ? { id: { gt: cursor } } : {}, orderBy: { id: 'asc' }, take: limit });
  }

  /** The number of memory rows of each record that has any (the start-up comparison with the vector index). */
  async countByRecord(): Promise<Array<{ recordId: string; rows: number }>> {
    const groups = await this.prisma.memory.groupBy({ by: ['recordId'], _count: { _all: true } });
    return groups.map((g) => ({ recordId: g.recordId, rows: g._count._all }));
  }

  checkUsage(options: { repair: boolean }): Promise<MemoryUsageDrift[]> {
    return checkMemoryUsage(this.prisma, options);
  }

  /** Newest first, at most `perType` of each type. */
  async listPage(recordId: string, { after, limit, type }: { after?: string; limit: number; type?: MemoryType }): Promise<MemoryRow[]> {
    return this.prisma.memory.findMany({
      where: { recordId, ...(type ? { type } : {}), ...(after !== undefined ? { path: { gt: after } } : {}) },
      orderBy: { path: 'asc' },
      take: limit,
    });
  }

  async listForContext(recordId: string, types: readonly MemoryType[], perType: number): Promise<MemoryRow[]> {
    const groups = await Promise.all(
      types.map((type) => this.prisma.memory.findMany({ where: { recordId, type }, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], take: perType })),
    );
    return groups.flat();
  }

  /**
   * Inserts or replaces the memory at (record, path), logs the write and completes the idempotency key,
   * in one transaction that is safe across replicas (docs/architecture.md, "Record deletion"):
   * 1. takes the record's advisory lock in shared mode (record deletion takes it exclusively, see
   *    {@link purgeRecordMetadata}) and refuses a deleted record (tombstone) with NOT_FOUND;
   * 2. takes the (record, path) advisory lock (`pg_advisory_xact_lock`), so one writer per path at a
   *    time in every process, and re-reads the row at the path under it, locking it (`FOR UPDATE`, as
   *    enrichment and re-embedding do). A row there keeps its id (replace in place); no row means a new
   *    memory with the fresh id `w.id` (also when a concurrent forget removed the row: the forgotten id,
   *    whose vector and blobs are being purged, is never written again);
   * 3. completes the idempotency claim with a guarded update (still pending, still `claimedAt`), throwing
   *    {@link IdempotencyClaimLostError} (rollback) when the claim was taken over;
   * 3a. on a replace with `w.contextTaskId`, marks the memories that may have borrowed context from this one
   *    stale (recall leaves them out from COMMIT on) and, if any, writes that context-only purge task
   *    ({@link markBorrowersStale}; the caller runs it after COMMIT), before the usage row is locked (the
   *    lock order of forget: memory, borrowers, usage);
   * 4. charges the agent's storage quota (one more memory and its bytes, or the size change of a
   *    replace; {@link chargeMemoryUsage}), throwing ForbiddenError (rollback) when it would be exceeded;
   *    a new memory's `writeVector` runs just before this charge (the usage row stays locked until COMMIT),
   *    a replace's after steps 4 and 5;
   * 5. refuses to go on once the bus request's deadline has passed (DeadlineExceededError, rollback; again
   *    just before COMMIT for a new memory), so a write the gateway gave up on is not applied;
   * 6. with `w.contextDepth`, reads the memory's place in the record's write order (a new memory's is the
   *    database clock now) and its neighbours under `FOR SHARE` ({@link neighboursOf}) (before steps 3-5);
   *    runs `writeVector(id, neighbours)` (see step 4) and writes the row and its write log entry.
   * `respond(id)` builds the response stored with the idempotency key. Returns the memory's id.
   * Errors: NotFoundError (record deleted), IdempotencyClaimLostError, ForbiddenError (storage quota),
   * DeadlineExceededError, and whatever else fails inside the transaction: every error raised there is
   * marked ({@link markRolledBack}; the transaction rolled back, no row is written, and only a new memory's
   * vector, under its fresh id, written before the quota charge, may have been written: the caller deletes
   * it). An error at COMMIT, or a transaction that could not start, is not marked: its outcome is unknown.
   */
  async saveRemember(w: RememberWrite, respond: (id: string) => unknown, writeVector?: (id: string, neighbours: MemoryNeighbours) => Promise<void>): Promise<string> {
    return retryDeadlock(() => this.prisma.$transaction(async (tx) => {
      try {
        // The record's lock and tombstone, then the path's lock, in two statements (RecordTombstones.refuseDeleted).
        await tombstones.refuseDeleted(tx, w.recordId, `memory\n${w.recordId}\n${w.path}`);
        const [existing] = await tx.$queryRaw<{ id: string; agentId: string; sizeBytes: number; createdAt: Date }[]>`
          SELECT id, agent_id AS "agentId", size_bytes AS "sizeBytes", created_at AS "createdAt" FROM "memory"."memories" WHERE record_id = ${w.recordId} AND path = ${w.path} FOR UPDATE`;
        const id = existing?.id ?? w.id;
        // Neighbours before any other row lock (the agent's usage row below): a forget holds its memory's row
        // and then takes the usage row, so reading a neighbour after the usage row could deadlock with it.
        const depth = w.contextDepth ?? 0;
        const createdAt = existing?.createdAt ?? (depth > 0 ? await databaseNow(tx) : undefined);
        const neighbours = createdAt ? await neighboursOf(tx, w.recordId, id, createdAt, depth) : { createdAt: new Date(), before: [], after: [] };
        // A replace marks its borrowers stale right after its own row, before the usage row: the lock order of
        // forget (memory, borrowers, usage), so a replace of A and a forget of a borrower of A never deadlock.
        if (existing && w.contextTaskId) await markBorrowersStale(tx, w.recordId, id, { id: w.contextTaskId, contextOnly: true });
        const response = respond(id);
        if (w.idempotency) {
          const { count } = await tx.memoryIdempotencyKey.updateMany({
            where: { recordId: w.recordId, key: w.idempotency.key, status: 'pending', createdAt: w.idempotency.claimedAt },
            data: { status: 'completed', response: response as object },
          });
          if (count === 0) throw new IdempotencyClaimLostError(w.recordId, w.idempotency.key);
        }
        // A new memory's vector before the quota charge, which locks the agent's usage row until COMMIT: every
        // other write of the agent waits on that lock, and the vector write may take a while (a log sync, a bus
        // hop to the vector-index process, a Qdrant call). It is still under the record's lock and after its
        // tombstone check, so a record deletion's purge comes after it. Under the fresh id, which nothing
        // references until COMMIT: a write refused below (quota, deadline) has its vector deleted by the caller.
        if (!existing && writeVector) await writeVector(id, neighbours);
        // A replace's quota before its vector: a refused replace leaves the memory's vector as it was.
        const delta = existing ? { memories: 0, bytes: w.sizeBytes - existing.sizeBytes } : { memories: 1, bytes: w.sizeBytes };
        await chargeMemoryUsage(tx, existing?.agentId ?? w.agentId, delta, this.quota);
        // Past the bus request's deadline the sender has given up (a 500): commit nothing (docs/api.md "After
        // a 500 or a timeout"). Checked before a replace's vector write, which would change the memory's vector.
        assertBeforeDeadline();
        if (existing && writeVector) await writeVector(id, neighbours);
        // The row and its write log entry in one statement (a data-modifying WITH runs once whether or not it
        // is read): one round trip and no ORM query building inside the transaction, which holds the agent's
        // usage row (bench/remember-profile.bench.ts: the two ORM writes took 1.9-2.6 ms of each remember's transaction here).
        const log = Prisma.sql`INSERT INTO "memory"."write_log" (record_id, memory_id, op, path, content_hash, blob_key, idempotency_key)
          VALUES (${w.recordId}, ${id}, 'remember', ${w.path}, ${w.contentHash}, ${w.blobKey}, ${w.idempotency?.key ?? null})`;
        if (existing) {
          await tx.$executeRaw`WITH replaced AS (
              UPDATE "memory"."memories" SET type = ${w.type}, summary = ${w.summary}, content_hash = ${w.contentHash}, blob_key = ${w.blobKey},
                size_bytes = ${w.sizeBytes}, embedder_id = ${w.embedderId}, updated_at = ${new Date()} WHERE id = ${id})
            ${log}`;
        } else {
          // Without a write order from the neighbours' read, this process's clock, as the ORM's default gave it
          // (and as a replace's updated_at above).
          const at = createdAt ?? new Date();
          await tx.$executeRaw`WITH created AS (
              INSERT INTO "memory"."memories" (id, record_id, agent_id, path, type, summary, content_hash, blob_key, size_bytes, embedder_id, created_at, updated_at)
              VALUES (${id}, ${w.recordId}, ${w.agentId}, ${w.path}, ${w.type}, ${w.summary}, ${w.contentHash}, ${w.blobKey}, ${w.sizeBytes}, ${w.embedderId}, ${at}, ${at}))
            ${log}`;
        }
        // Again just before COMMIT, when the vector write took time: a new memory's vector is unreferenced
        // after a rollback (recall never shows it). A replaced memory's vector is already overwritten, so its
        // vector write stays inside the residual window (docs/api.md).
        if (!existing) assertBeforeDeadline();
        return id;
      } catch (error) {
        // Thrown in the callback: the transaction rolls back, whatever the error.
        throw markRolledBack(error);
      }
    }, writeVector ? saveTransactionOptions(requestDeadline()) : undefined));
  }

  /** The memory with this id in any record (jobs carry only the id), or null. */
  findAnyById(id: string): Promise<MemoryRow | null> {
    return this.prisma.memory.findUnique({ where: { id } });
  }

  /**
   * Enrichment, metadata side, in one transaction: locks the row (`FOR UPDATE`), and only if it still
   * exists at version `contentHash` runs `writeVector` (if given, with the memory's predecessors up to
   * `w.contextDepth`, locked `FOR SHARE`) and sets type, summary and embedder id.
   * `updatedAt` is kept: the memory's content did not change. A forgotten memory is never written back
   * ('gone'), and an enrichment of an older version never overwrites a newer one ('changed').
   */
  async applyEnrichment(w: EnrichmentWrite, writeVector?: (neighbours: MemoryNeighbours) => Promise<void>): Promise<GuardedWriteOutcome> {
    return this.prisma.$transaction(async (tx) => {
      const [locked] = await lockMemories(tx, [w.id]);
      if (!locked) return 'gone';
      if (locked.contentHash !== w.contentHash) return 'changed';
      if (writeVector) {
        // Only the memory's own entry changes (its type): its successors' entries do not depend on it.
        const { before } = await neighboursOf(tx, locked.recordId, w.id, locked.createdAt, w.contextDepth ?? 0);
        await writeVector({ createdAt: locked.createdAt, before, after: [] });
      }
      await tx.memory.update({ where: { id: w.id }, data: { type: w.type, summary: w.summary, embedderId: w.embedderId } });
      return 'applied';
    }, VECTOR_WRITE_TRANSACTION);
  }

  /**
   * Memories whose vectors another embedder than `embedderId` made, in id order after `cursor`, at most
   * `limit` (re-embedding batches; index `memories_embedder_id_id_idx`).
   */
  listOtherEmbedder(embedderId: string, limit: number, cursor?: string): Promise<MemoryRow[]> {
    return this.prisma.memory.findMany({
      where: { embedderId: { not: embedderId }, ...(cursor ? { id: { gt: cursor } } : {}) },
      orderBy: { id: 'asc' },
      take: limit,
    });
  }

  /** Whether any memory has a vector of another embedder than `embedderId`. */
  async anyOtherEmbedder(embedderId: string): Promise<boolean> {
    return (await this.prisma.memory.findFirst({ where: { embedderId: { not: embedderId } }, select: { id: true } })) !== null;
  }

  /**
   * Re-embedding, metadata side, in one transaction: locks the rows of `versions`, keeps those that still
   * exist at the same content hash with another embedder, runs `writeVectors` for them, and sets their
   * embedder id. Returns the ids written; forgotten or changed memories are left alone.
   */
  async applyReembed(versions: readonly { id: string; contentHash: string }[], embedderId: string, writeVectors: (ids: string[]) => Promise<void>): Promise<string[]> {
    return this.prisma.$transaction(async (tx) => {
      const expected = new Map(versions.map((v) => [v.id, v.contentHash]));
      const locked = await lockMemories(tx, [...expected.keys()]);
      const ids = locked.filter((row) => row.contentHash === expected.get(row.id) && row.embedderId !== embedderId).map((row) => row.id);
      if (ids.length === 0) return [];
      await writeVectors(ids);
      await tx.memory.updateMany({ where: { id: { in: ids } }, data: { embedderId } });
      return ids;
    }, VECTOR_WRITE_TRANSACTION);
  }

  /**
   * Forget, metadata side: deletes the memory row (giving its size back to its agent's storage quota),
   * its write log entries and the idempotency results that name it, logs the forget (path only, no content), and records a durable purge task holding every
   * blob key of every version. Returns the task (with the `borrowers` it marked stale), or null when the memory is already gone.
   */
  async forget(memory: MemoryRow): Promise<PurgeTask | null> {
    return retryDeadlock(() => this.prisma.$transaction(async (tx) => {
      const [gone] = await tx.$queryRaw<{ agentId: string; sizeBytes: number; createdAt: Date }[]>`
        DELETE FROM "memory"."memories" WHERE id = ${memory.id} RETURNING agent_id AS "agentId", size_bytes AS "sizeBytes", created_at AS "createdAt"`;
      if (!gone) return null;
      // The row is deleted (waiting for a re-index that holds it FOR SHARE as a lender): its borrowers, later
      // rows, are marked stale after it, so locks are always taken older memory first (no deadlock with a re-index).
      const borrowers = await markBorrowersStale(tx, memory.recordId, memory.id);
      await releaseMemoryUsage(tx, [{ agentId: gone.agentId, memories: 1, bytes: gone.sizeBytes }]);
      const versions = await tx.memoryWriteLog.findMany({ where: { memoryId: memory.id }, select: { blobKey: true } });
      const blobKeys = [...new Set([memory.blobKey, ...versions.map((v) => v.blobKey).filter((k): k is string => k !== null)])];
      await tx.memoryWriteLog.deleteMany({ where: { memoryId: memory.id } });
      await tx.memoryIdempotencyKey.deleteMany({ where: { recordId: memory.recordId, response: { path: ['id'], equals: memory.id } } });
      await tx.memoryWriteLog.create({ data: { recordId: memory.recordId, memoryId: memory.id, op: 'forget', path: memory.path } });
      const task = { id: newId('purgeTask'), recordId: memory.recordId, memoryId: memory.id, blobKeys };
      await tx.memoryPurgeTask.create({ data: task });
      // The borrowers go with the task returned (not stored): the inline purge re-indexes only these.
      return { ...task, borrowers };
    }));
  }

  /**
   * The memory's contextual state and up to `depth` predecessors in its record's write order (newest
   * first); no locks. One statement: the memory by its key, then its predecessors by one backward range scan
   * of `memories (record_id, created_at, id)` stopping after `depth` rows (a LATERAL subquery, so the limit
   * applies to the index scan: the cost does not grow with the record). It runs after almost every remember
   * (ContextualIndexer.afterWrite), where an ORM read and a second query cost a query build and a round trip
   * more (bench/remember-profile.bench.ts).
   */
  async contextWindow(id: string, depth: number): Promise<{ self: ContextState; before: MemoryRow[] } | null> {
    const rows = await this.prisma.$queryRaw<Array<MemoryRow & { self: boolean; contextLenders: string[]; contextStale: boolean; contextEpoch: number }>>`
      WITH s AS (SELECT * FROM "memory"."memories" WHERE id = ${id})
      SELECT true AS self, ${ROW_COLUMNS}, context_lenders AS "contextLenders", context_stale AS "contextStale", context_epoch AS "contextEpoch" FROM s
      UNION ALL
      SELECT false AS self, p.*, NULL, NULL, NULL FROM s CROSS JOIN LATERAL (
        SELECT ${ROW_COLUMNS} FROM "memory"."memories" m
        WHERE m.record_id = s.record_id AND (m.created_at, m.id) < (s.created_at, s.id)
        ORDER BY m.created_at DESC, m.id DESC LIMIT ${Math.max(0, depth)}) p`;
    const first = rows.find((r) => r.self);
    if (!first) return null;
    const { id: selfId, recordId, type, contentHash, blobKey, createdAt, contextLenders, contextStale, contextEpoch } = first;
    const before = rows
      .filter((r) => !r.self)
      .map(({ self: _self, contextLenders: _lenders, contextStale: _stale, contextEpoch: _epoch, ...row }) => row)
      // Newest first. The scan returns them so, and PostgreSQL's Append keeps it; a UNION ALL does not promise
      // it, so the order is enforced here by time (created_at is timestamptz(3): a Date holds it exactly), with
      // a stable sort that leaves rows of the same millisecond in the scan's order: by id, in the database's collation.
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return { self: { id: selfId, recordId, type, contentHash, blobKey, createdAt, contextLenders, contextStale, contextEpoch }, before };
  }

  /** Ids of the record's stale memories in id order after `after`, at most `limit` (partial index `memories_context_stale_idx`). */
  async staleContext(recordId: string, limit: number, options: { after?: string; lender?: string } = {}): Promise<string[]> {
    const rows = await this.prisma.memory.findMany({
      where: { recordId, contextStale: true, ...(options.after !== undefined ? { id: { gt: options.after } } : {}), ...(options.lender !== undefined ? { contextLenders: { has: options.lender } } : {}) },
      select: { id: true },
      orderBy: { id: 'asc' },
      take: limit,
    });
    return rows.map((r) => r.id);
  }

  /** Deletes a stale memory's index entry under its row lock, at the version and epoch given; it stays stale. */
  async dropContext(w: Omit<ContextWrite, 'lenders'>, deleteEntry: () => Promise<void>): Promise<GuardedWriteOutcome> {
    return this.prisma.$transaction(async (tx) => {
      const [self] = await lockContext(tx, w.id);
      if (!self) return 'gone' as const;
      if (self.contentHash !== w.contentHash || self.contextEpoch !== w.epoch) return 'changed' as const;
      await deleteEntry();
      return 'applied' as const;
    }, VECTOR_WRITE_TRANSACTION);
  }

  async erasurePurged(id: string): Promise<void> {
    await this.prisma.memoryPurgeTask.updateMany({ where: { id }, data: { contextOnly: true, blobKeys: [] } });
  }

  /**
   * Confirms a contextual re-index (docs/api.md, "Recall"), never with model work inside a transaction:
   * 1. locks the lenders `FOR SHARE` (oldest first) and then the memory `FOR UPDATE` — always the older
   *    memory first, as forget (the lender, then its borrowers) and replace do, so none of them deadlock —
   *    checks every one is at the version used and the memory at its epoch, and adds the lenders to
   *    `context_lenders`; committed before the entry is written, so from then on a forget or replace of a
   *    lender marks the memory stale even if the entry write's outcome is unknown (a timeout);
   * 2. locks the memory again, checks version and epoch, runs `writeEntry(type)` (the locked type) and
   *    clears the stale flag. An entry written whose COMMIT then fails is repaired by the next re-index:
   *    the lenders are recorded and a stale memory stays stale.
   */
  async applyContext(w: ContextWrite, writeEntry: (type: string) => Promise<void>): Promise<GuardedWriteOutcome> {
    const lenderIds = w.lenders.map((l) => l.id);
    const recorded = await retryDeadlock(() => this.prisma.$transaction(async (tx) => {
      const lenders = lenderIds.length === 0 ? [] : await tx.$queryRaw<{ id: string; contentHash: string }[]>`
        SELECT id, content_hash AS "contentHash" FROM "memory"."memories" WHERE id = ANY(${lenderIds}::text[]) ORDER BY created_at, id FOR SHARE`;
      const [self] = await lockContext(tx, w.id);
      if (!self) return 'gone' as const;
      const expected = new Map(w.lenders.map((l) => [l.id, l.contentHash]));
      if (self.contentHash !== w.contentHash || self.contextEpoch !== w.epoch || lenders.length !== expected.size || lenders.some((l) => expected.get(l.id) !== l.contentHash)) return 'changed' as const;
      const missing = lenderIds.filter((l) => !self.contextLenders.includes(l));
      if (missing.length > 0) await tx.memory.update({ where: { id: w.id }, data: { contextLenders: { push: missing } } });
      return 'applied' as const;
    }));
    if (recorded !== 'applied') return recorded;
    return retryDeadlock(() => this.prisma.$transaction(async (tx) => {
      const [self] = await lockContext(tx, w.id);
      if (!self) return 'gone' as const;
      if (self.contentHash !== w.contentHash || self.contextEpoch !== w.epoch) return 'changed' as const;
      await writeEntry(self.type);
      if (self.contextStale) await tx.memory.update({ where: { id: w.id }, data: { contextStale: false } });
      return 'applied' as const;
    }, VECTOR_WRITE_TRANSACTION));
  }

  /**
   * Record deletion, metadata side: under the record's advisory lock in exclusive mode (it waits for the
   * remembers in flight, which hold it shared), writes the record's tombstone (later remembers get
   * NOT_FOUND), then every row of the record goes (their sizes given back to their agents' storage
   * quotas), with one purge task for its stores.
   */
  async purgeRecordMetadata(recordId: string, taskId: string): Promise<PurgeTask> {
    return this.prisma.$transaction(async (tx) => {
      await tombstones.markDeleted(tx, recordId);
      const released = await tx.$queryRaw<{ agentId: string; memories: bigint; bytes: bigint }[]>`
        WITH gone AS (DELETE FROM "memory"."memories" WHERE record_id = ${recordId} RETURNING agent_id, size_bytes)
        SELECT agent_id AS "agentId", count(*) AS memories, coalesce(sum(size_bytes), 0) AS bytes FROM gone GROUP BY agent_id`;
      await releaseMemoryUsage(tx, released.map((r) => ({ agentId: r.agentId, memories: Number(r.memories), bytes: Number(r.bytes) })));
      await tx.memoryWriteLog.deleteMany({ where: { recordId } });
      await tx.memoryIdempotencyKey.deleteMany({ where: { recordId } });
      await tx.memoryPurgeTask.createMany({ data: [{ id: taskId, recordId, memoryId: null, blobKeys: [] }], skipDuplicates: true });
      return { id: taskId, recordId, memoryId: null, blobKeys: [] };
    }, RECORD_DELETION_TRANSACTION);
  }

  /** Every pending purge task, oldest first. */
  pendingPurges(): Promise<PurgeTask[]> {
    return this.prisma.memoryPurgeTask.findMany({ orderBy: { createdAt: 'asc' } });
  }

  /** Purge tasks created before `before`, oldest first, at most `limit` (the purge sweep). */
  purgesCreatedBefore(before: Date, limit: number): Promise<PurgeTask[]> {
    return this.prisma.memoryPurgeTask.findMany({ where: { createdAt: { lt: before } }, orderBy: { createdAt: 'asc' }, take: limit });
  }

  findPurge(id: string): Promise<PurgeTask | null> {
    return this.prisma.memoryPurgeTask.findUnique({ where: { id } });
  }

  async completePurge(id: string): Promise<void> {
    await this.prisma.memoryPurgeTask.deleteMany({ where: { id } });
  }

}

/**
 * Locks the memory rows `ids` for the rest of the transaction (`SELECT ... FOR UPDATE`, in id order so that
 * two lockers never deadlock) and returns what it found; absent ids are left out. Forget's delete of a
 * locked row waits until the transaction ends (PostgreSQL row locks).
 */
async function lockMemories(tx: Prisma.TransactionClient, ids: readonly string[]): Promise<(LockedMemory & { recordId: string })[]> {
  if (ids.length === 0) return [];
  return tx.$queryRaw<(LockedMemory & { recordId: string })[]>`
    SELECT id, record_id AS "recordId", content_hash AS "contentHash", embedder_id AS "embedderId", created_at AS "createdAt"
    FROM "memory"."memories" WHERE id = ANY(${[...ids]}::text[]) ORDER BY id FOR UPDATE`;
}

/** Locks one memory `FOR UPDATE` and returns its contextual state (empty when it is gone). */
function lockContext(tx: Prisma.TransactionClient, id: string): Promise<{ type: string; contentHash: string; contextLenders: string[]; contextStale: boolean; contextEpoch: number }[]> {
  return tx.$queryRaw`
    SELECT type, content_hash AS "contentHash", context_lenders AS "contextLenders", context_stale AS "contextStale", context_epoch AS "contextEpoch"
    FROM "memory"."memories" WHERE id = ${id} FOR UPDATE`;
}

/**
 * Marks stale, raising their epoch, the memories of the record whose index entries may hold context of
 * `lenderId` (it is among their `context_lenders`; GIN index `memories_context_lenders_idx`): recall leaves
 * them out from this transaction's COMMIT on. With `task`, and only if any were marked, writes that purge
 * task (context only), which re-indexes them. Returns the ids marked (the borrowers a purge run inline
 * re-indexes, `PurgeTask.borrowers`).
 */
async function markBorrowersStale(tx: Prisma.TransactionClient, recordId: string, lenderId: string, task?: { id: string; contextOnly: true }): Promise<string[]> {
  const marked = await tx.$queryRaw<{ id: string }[]>`
    UPDATE "memory"."memories" SET context_stale = true, context_epoch = context_epoch + 1
    WHERE record_id = ${recordId} AND context_lenders @> ARRAY[${lenderId}]::text[] RETURNING id`;
  if (marked.length > 0 && task) await tx.memoryPurgeTask.create({ data: { id: task.id, recordId, memoryId: lenderId, blobKeys: [], contextOnly: true } });
  return marked.map((r) => r.id);
}

const ROW_COLUMNS = Prisma.sql`id, record_id AS "recordId", agent_id AS "agentId", path, type, summary, content_hash AS "contentHash",
  blob_key AS "blobKey", size_bytes AS "sizeBytes", embedder_id AS "embedderId", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * The memory `id`'s neighbours in its record's write order (`created_at`, then id): up to `depth` rows
 * just before (newest first) and just after (oldest first), locked `FOR SHARE` for the rest of the
 * transaction (a forget or replace of one of them waits). Two range scans of `memories (record_id,
 * created_at, id)`.
 */
async function neighboursOf(tx: Prisma.TransactionClient, recordId: string, id: string, createdAt: Date, depth: number): Promise<MemoryNeighbours> {
  if (depth <= 0) return { createdAt, before: [], after: [] };
  const before = await tx.$queryRaw<MemoryRow[]>`
    SELECT ${ROW_COLUMNS} FROM "memory"."memories"
    WHERE record_id = ${recordId} AND (created_at, id) < (${createdAt}::timestamptz, ${id}) ORDER BY created_at DESC, id DESC LIMIT ${depth} FOR SHARE`;
  const after = await tx.$queryRaw<MemoryRow[]>`
    SELECT ${ROW_COLUMNS} FROM "memory"."memories"
    WHERE record_id = ${recordId} AND (created_at, id) > (${createdAt}::timestamptz, ${id}) ORDER BY created_at ASC, id ASC LIMIT ${depth} FOR SHARE`;
  return { createdAt, before, after };
}

/** The database clock now, to the column's millisecond precision: a new memory's place in the write order. */
async function databaseNow(tx: Prisma.TransactionClient): Promise<Date> {
  const [row] = await tx.$queryRaw<{ at: Date }[]>`SELECT date_trunc('milliseconds', clock_timestamp()) AS at`;
  return row.at;
}

/**
 * Runs `transaction` again (at most 3 times in all) when PostgreSQL aborted it as a deadlock victim
 * (SQLSTATE 40P01; Prisma P2034): contextual indexing locks a memory's neighbours, so two writes or
 * forgets of adjacent memories at the same moment can each wait for the other. The aborted attempt rolled
 * back entirely, and its index writes are recomputed by the next one. Other errors propagate at once.
 */
async function retryDeadlock<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      const e = err as { code?: string; meta?: { code?: string }; message?: string };
      const deadlock = e.code === 'P2034' || e.meta?.code === '40P01' || /\b40P01\b|deadlock detected/.test(String(e.message));
      if (!deadlock || attempt >= 3) throw err;
    }
  }
}

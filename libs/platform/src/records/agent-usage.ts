import type { RawSqlTransaction } from './record-lock';

/** What one agent stores in a service: rows (memories, files) and their content bytes. */
export interface AgentUsage {
  count: number;
  bytes: number;
}

/**
 * The per-agent usage counters of one service's storage quota (docs/api.md, "Storage quotas"), in its own
 * table `<schema>.agent_usage (agent_id text PRIMARY KEY, <count column> bigint, <bytes column> bigint)`
 * (memory and files each keep theirs). Every method runs inside the caller's transaction.
 */
export class AgentUsageCounters {
  /**
   * @param table quoted table name, e.g. `"files"."agent_usage"` (a constant, never user input)
   * @param countColumn column of the stored rows, e.g. `file_count`
   * @param bytesColumn column of the stored bytes, e.g. `file_bytes`
   */
  constructor(
    readonly table: string,
    readonly countColumn: string,
    readonly bytesColumn: string,
  ) {}

  /**
   * Adds `delta` to the agent's usage only if the result stays within `limits` (an increase never passes a
   * limit; a decrease always passes, even above a limit lowered since). One conditional upsert: it locks
   * the agent's row until the transaction ends, so concurrent writes of one agent, in any replica, see each
   * other's charge and together never overshoot. The row is created at first use. Returns false (nothing
   * changed) when the charge would exceed a limit: the caller then throws its quota error.
   */
  async tryCharge(tx: RawSqlTransaction, agentId: string, delta: AgentUsage, limits: { maxCount: number; maxBytes: number }): Promise<boolean> {
    const { table, countColumn: n, bytesColumn: b } = this;
    // One statement, not an insert of a zero row and then the update: a first charge inserts the row with
    // `delta` when `delta` alone is within the limits; an existing row is updated only when its sum is
    // (the conditional DO UPDATE locks the row as an UPDATE does). A row count of 1 means charged.
    const updated = await tx.$executeRawUnsafe(
      `INSERT INTO ${table} AS u (agent_id, ${n}, ${b})
       SELECT $1::text, $2::bigint, $3::bigint
       WHERE ($2::bigint <= 0 OR $2::bigint <= $4::bigint)
         AND ($3::bigint <= 0 OR $3::bigint <= $5::bigint)
       ON CONFLICT (agent_id) DO UPDATE
       SET ${n} = u.${n} + $2::bigint, ${b} = u.${b} + $3::bigint
       WHERE ($2::bigint <= 0 OR u.${n} + $2::bigint <= $4::bigint)
         AND ($3::bigint <= 0 OR u.${b} + $3::bigint <= $5::bigint)`,
      agentId,
      delta.count,
      delta.bytes,
      limits.maxCount,
      limits.maxBytes,
    );
    return updated === 1;
  }

  /** Subtracts what a deletion removed, per agent (never below zero), in agent id order so concurrent purges never deadlock. */
  async release(tx: RawSqlTransaction, released: readonly ({ agentId: string } & AgentUsage)[]): Promise<void> {
    const { table, countColumn: n, bytesColumn: b } = this;
    for (const r of [...released].sort((x, y) => (x.agentId < y.agentId ? -1 : x.agentId > y.agentId ? 1 : 0))) {
      await tx.$executeRawUnsafe(
        `UPDATE ${table} SET ${n} = greatest(${n} - $2::bigint, 0), ${b} = greatest(${b} - $3::bigint, 0) WHERE agent_id = $1`,
        r.agentId,
        r.count,
        r.bytes,
      );
    }
  }

  /** The agent's usage now (zero when it has none). */
  async read(db: RawSqlTransaction, agentId: string): Promise<AgentUsage> {
    const [row] = await db.$queryRawUnsafe<{ count: bigint; bytes: bigint }[]>(
      `SELECT ${this.countColumn} AS count, ${this.bytesColumn} AS bytes FROM ${this.table} WHERE agent_id = $1`,
      agentId,
    );
    return { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) };
  }
}

import type { RawSqlClient } from './record-lock';

/** Where a service keeps its per-agent storage quota counters and the rows they count. */
export interface AgentUsageTables {
  /** Quoted counter table, e.g. `"files"."agent_usage"` (columns `agent_id` and the two below). */
  usageTable: string;
  /** Counter column of stored items, e.g. `file_count`. */
  countColumn: string;
  /** Counter column of stored bytes, e.g. `file_bytes`. */
  bytesColumn: string;
  /** Quoted tables whose rows the counters count (columns `agent_id`, `size_bytes`), e.g. files and raw blobs. */
  rowTables: readonly string[];
}

/** An agent whose stored usage counters differ from its rows: `count` items, `bytes` of content. */
export interface AgentUsageDrift {
  agentId: string;
  stored: { count: number; bytes: number };
  actual: { count: number; bytes: number };
}

/**
 * Compares every agent's storage quota counters with its rows and, with `repair`, sets the counters to the
 * rows' count and bytes (docs/deployment.md, "Checking and repairing a data directory"): counters drift
 * when a version without quotas wrote while the counters were backfilled (a rolling upgrade). Each repair
 * locks the agent's counter row first (as a write's charge does), then counts, so a write running
 * meanwhile is counted once. One grouped scan of the rows; returns the drifts found, by agent id. Table
 * and column names are the service's constants, never user input.
 */
export async function checkAgentUsage(prisma: RawSqlClient, t: AgentUsageTables, options: { repair: boolean }): Promise<AgentUsageDrift[]> {
  const all = t.rowTables.map((table) => `SELECT agent_id, size_bytes FROM ${table}`).join(' UNION ALL ');
  const rows = await prisma.$queryRawUnsafe<{ agentId: string; storedCount: bigint; storedBytes: bigint; actualCount: bigint; actualBytes: bigint }[]>(`
    WITH actual AS (SELECT agent_id, count(*) AS n, coalesce(sum(size_bytes), 0) AS b FROM (${all}) AS t GROUP BY agent_id)
    SELECT coalesce(u.agent_id, a.agent_id) AS "agentId",
           coalesce(u.${t.countColumn}, 0) AS "storedCount", coalesce(u.${t.bytesColumn}, 0) AS "storedBytes",
           coalesce(a.n, 0) AS "actualCount", coalesce(a.b, 0)::bigint AS "actualBytes"
    FROM ${t.usageTable} u FULL JOIN actual a ON a.agent_id = u.agent_id
    WHERE coalesce(u.${t.countColumn}, 0) <> coalesce(a.n, 0) OR coalesce(u.${t.bytesColumn}, 0) <> coalesce(a.b, 0)
    ORDER BY 1`);
  const drifts = rows.map((r) => ({
    agentId: r.agentId,
    stored: { count: Number(r.storedCount), bytes: Number(r.storedBytes) },
    actual: { count: Number(r.actualCount), bytes: Number(r.actualBytes) },
  }));
  if (options.repair) {
    const ofAgent = t.rowTables.map((table) => `SELECT size_bytes FROM ${table} WHERE agent_id = $1`).join(' UNION ALL ');
    for (const { agentId } of drifts) {
      await prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`INSERT INTO ${t.usageTable} (agent_id) VALUES ($1) ON CONFLICT (agent_id) DO NOTHING`, agentId);
        await tx.$queryRawUnsafe(`SELECT 1 FROM ${t.usageTable} WHERE agent_id = $1 FOR UPDATE`, agentId);
        await tx.$executeRawUnsafe(
          `UPDATE ${t.usageTable} u SET ${t.countColumn} = a.n, ${t.bytesColumn} = a.b
           FROM (SELECT count(*) AS n, coalesce(sum(size_bytes), 0) AS b FROM (${ofAgent}) AS t) a
           WHERE u.agent_id = $1`,
          agentId,
        );
      });
    }
  }
  return drifts;
}

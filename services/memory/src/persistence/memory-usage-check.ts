import type { MemoryPrismaClient } from './prisma';

/** An agent whose stored usage counters differ from its memory rows. */
export interface MemoryUsageDrift {
  agentId: string;
  /** What `memory.agent_usage` holds (memories, bytes). */
  stored: { memories: number; bytes: number };
  /** What the agent's rows in `memory.memories` add up to. */
  actual: { memories: number; bytes: number };
}

/**
 * Compares every agent's storage quota counters (`memory.agent_usage`) with its memory rows and, with
 * `repair`, sets the counters to the rows' count and bytes (docs/deployment.md, "Checking and repairing a
 * data directory"): counters drift when a version without quotas wrote while the counters were backfilled
 * (a rolling upgrade). Each repair locks the agent's counter row first (as a write's charge does), then
 * counts, so a write running meanwhile is counted once. One grouped scan of the rows; returns the drifts found.
 */
export async function checkMemoryUsage(prisma: MemoryPrismaClient, options: { repair: boolean }): Promise<MemoryUsageDrift[]> {
  const rows = await prisma.$queryRaw<{ agentId: string; storedCount: bigint; storedBytes: bigint; actualCount: bigint; actualBytes: bigint }[]>`
    WITH actual AS (SELECT agent_id, count(*) AS n, coalesce(sum(size_bytes), 0) AS b FROM "memory"."memories" GROUP BY agent_id)
    SELECT coalesce(u.agent_id, a.agent_id) AS "agentId",
           coalesce(u.memory_count, 0) AS "storedCount", coalesce(u.memory_bytes, 0) AS "storedBytes",
           coalesce(a.n, 0) AS "actualCount", coalesce(a.b, 0)::bigint AS "actualBytes"
    FROM "memory"."agent_usage" u FULL JOIN actual a ON a.agent_id = u.agent_id
    WHERE coalesce(u.memory_count, 0) <> coalesce(a.n, 0) OR coalesce(u.memory_bytes, 0) <> coalesce(a.b, 0)
    ORDER BY 1`;
  const drifts = rows.map((r) => ({
    agentId: r.agentId,
    stored: { memories: Number(r.storedCount), bytes: Number(r.storedBytes) },
    actual: { memories: Number(r.actualCount), bytes: Number(r.actualBytes) },
  }));
  if (options.repair) {
    for (const { agentId } of drifts) {
      await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO "memory"."agent_usage" (agent_id) VALUES (${agentId}) ON CONFLICT (agent_id) DO NOTHING`;
        await tx.$queryRaw`SELECT 1 FROM "memory"."agent_usage" WHERE agent_id = ${agentId} FOR UPDATE`;
        await tx.$executeRaw`
          UPDATE "memory"."agent_usage" u SET memory_count = a.n, memory_bytes = a.b
          FROM (SELECT count(*) AS n, coalesce(sum(size_bytes), 0) AS b FROM "memory"."memories" WHERE agent_id = ${agentId}) a
          WHERE u.agent_id = ${agentId}`;
      });
    }
  }
  return drifts;
}

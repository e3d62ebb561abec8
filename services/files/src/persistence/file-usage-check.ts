import type { FilesPrismaClient } from './prisma';

/** An agent whose stored usage counters differ from its file and raw blob rows. */
export interface FileUsageDrift {
  agentId: string;
  /** What `files.agent_usage` holds (files and raw blobs, bytes). */
  stored: { files: number; bytes: number };
  /** What the agent's rows in `files.files` and `files.raw_blobs` add up to. */
  actual: { files: number; bytes: number };
}

/**
 * Compares every agent's storage quota counters (`files.agent_usage`) with its file and raw blob rows and, with
 * `repair`, sets the counters to the rows' count and bytes (docs/deployment.md, "Checking and repairing a
 * data directory"): counters drift when a version without quotas wrote while the counters were backfilled
 * (a rolling upgrade). Each repair locks the agent's counter row first (as a write's charge does), then
 * counts, so a write running meanwhile is counted once. One grouped scan of the rows; returns the drifts found.
 */
export async function checkFileUsage(prisma: FilesPrismaClient, options: { repair: boolean }): Promise<FileUsageDrift[]> {
  const rows = await prisma.$queryRaw<{ agentId: string; storedCount: bigint; storedBytes: bigint; actualCount: bigint; actualBytes: bigint }[]>`
    WITH actual AS (SELECT agent_id, count(*) AS n, coalesce(sum(size_bytes), 0) AS b FROM (SELECT agent_id, size_bytes FROM "files"."files" UNION ALL SELECT agent_id, size_bytes FROM "files"."raw_blobs") AS t GROUP BY agent_id)
    SELECT coalesce(u.agent_id, a.agent_id) AS "agentId",
           coalesce(u.file_count, 0) AS "storedCount", coalesce(u.file_bytes, 0) AS "storedBytes",
           coalesce(a.n, 0) AS "actualCount", coalesce(a.b, 0)::bigint AS "actualBytes"
    FROM "files"."agent_usage" u FULL JOIN actual a ON a.agent_id = u.agent_id
    WHERE coalesce(u.file_count, 0) <> coalesce(a.n, 0) OR coalesce(u.file_bytes, 0) <> coalesce(a.b, 0)
    ORDER BY 1`;
  const drifts = rows.map((r) => ({
    agentId: r.agentId,
    stored: { files: Number(r.storedCount), bytes: Number(r.storedBytes) },
    actual: { files: Number(r.actualCount), bytes: Number(r.actualBytes) },
  }));
  if (options.repair) {
    for (const { agentId } of drifts) {
      await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO "files"."agent_usage" (agent_id) VALUES (${agentId}) ON CONFLICT (agent_id) DO NOTHING`;
        await tx.$queryRaw`SELECT 1 FROM "files"."agent_usage" WHERE agent_id = ${agentId} FOR UPDATE`;
        await tx.$executeRaw`
          UPDATE "files"."agent_usage" u SET file_count = a.n, file_bytes = a.b
          FROM (SELECT count(*) AS n, coalesce(sum(size_bytes), 0) AS b FROM (SELECT size_bytes FROM "files"."files" WHERE agent_id = ${agentId} UNION ALL SELECT size_bytes FROM "files"."raw_blobs" WHERE agent_id = ${agentId}) AS t) a
          WHERE u.agent_id = ${agentId}`;
      });
    }
  }
  return drifts;
}

import { ForbiddenError } from '@agent-memory/shared';
import { advisoryXactLock, AgentUsageCounters } from '@agent-memory/platform';
import type { Prisma } from './generated/client';

/** Per-agent storage quota of files and raw blobs together (docs/api.md, "Storage quotas"; docs/configuration.md). */
export interface FileQuota {
  /** Files and raw blobs an agent may store, all its records together. */
  maxFiles: number;
  /** Bytes of file and raw blob content an agent may store, all its records together. */
  maxBytes: number;
}

/** Injection token of the {@link FileQuota} in force. */
export const FILE_QUOTA = Symbol('FileQuota');

/** Defaults (docs/configuration.md): 10,000 files and 1 GiB of content per agent. */
export const DEFAULT_FILE_QUOTA: FileQuota = { maxFiles: 10_000, maxBytes: 1024 ** 3 };

/** An agent's stored files (with raw blobs) and their content bytes. */
export interface FileUsage {
  files: number;
  bytes: number;
}

/** The files service's usage counters (`files.agent_usage`: `file_count`, `file_bytes`). */
const counters = new AgentUsageCounters('"files"."agent_usage"', 'file_count', 'file_bytes');

/** Which table a path lives in: text files (`files.files`) or raw blobs (`files.raw_blobs`). */
export type StoredKind = 'file' | 'raw';

/**
 * Charges a write of `sizeBytes` at (`recordId`, `path`) to the agent's quota inside the caller's
 * transaction, before the row is written: takes the path's advisory lock (one writer per path in every
 * replica, so two writes of one new path are never both counted as new), reads the row at the path (a
 * replace counts only the size change, charged to the agent that owns the row), then one conditional
 * UPDATE of the agent's usage row, which stays locked until the transaction ends: concurrent writes of
 * one agent, in any replica, never overshoot together. A decrease always passes.
 * @throws ForbiddenError (403) naming the quota, the usage and the limit; the transaction then rolls back.
 */
export async function chargeFileWrite(
  tx: Prisma.TransactionClient,
  w: { agentId: string; recordId: string; path: string; kind: StoredKind; sizeBytes: number },
  quota: FileQuota,
): Promise<void> {
  await advisoryXactLock(tx, `files-path\n${w.kind}\n${w.recordId}\n${w.path}`);
  const [existing] =
    w.kind === 'file'
      ? await tx.$queryRaw<{ agentId: string; sizeBytes: number }[]>`
          SELECT agent_id AS "agentId", size_bytes AS "sizeBytes" FROM "files"."files" WHERE record_id = ${w.recordId} AND path = ${w.path} FOR UPDATE`
      : await tx.$queryRaw<{ agentId: string; sizeBytes: number }[]>`
          SELECT agent_id AS "agentId", size_bytes AS "sizeBytes" FROM "files"."raw_blobs" WHERE record_id = ${w.recordId} AND path = ${w.path} FOR UPDATE`;
  const agentId = existing?.agentId ?? w.agentId;
  const delta: FileUsage = existing ? { files: 0, bytes: w.sizeBytes - existing.sizeBytes } : { files: 1, bytes: w.sizeBytes };
  if (await counters.tryCharge(tx, agentId, { count: delta.files, bytes: delta.bytes }, { maxCount: quota.maxFiles, maxBytes: quota.maxBytes })) return;
  const { count, bytes } = await counters.read(tx, agentId);
  const usage: FileUsage = { files: count, bytes };
  if (delta.files > 0 && usage.files + delta.files > quota.maxFiles) {
    throw new ForbiddenError(`File quota exceeded: this agent stores ${usage.files} files and raw blobs, the limit is ${quota.maxFiles} per agent.`);
  }
  throw new ForbiddenError(
    `File storage quota exceeded: this agent's files and raw blobs hold ${usage.bytes} bytes, this write adds ${delta.bytes} bytes, the limit is ${quota.maxBytes} bytes per agent.`,
  );
}

/**
 * Record deletion: deletes the record's files and raw blobs and gives their count and bytes back to
 * their agents' usage (agent id order, so concurrent purges never deadlock), inside the caller's
 * transaction. Returns how many rows went.
 */
export async function deleteRecordFilesAndReleaseUsage(tx: Prisma.TransactionClient, recordId: string): Promise<number> {
  const released = await tx.$queryRaw<{ agentId: string; files: bigint; bytes: bigint }[]>`
    WITH f AS (DELETE FROM "files"."files" WHERE record_id = ${recordId} RETURNING agent_id, size_bytes),
         r AS (DELETE FROM "files"."raw_blobs" WHERE record_id = ${recordId} RETURNING agent_id, size_bytes),
         gone AS (SELECT agent_id, size_bytes FROM f UNION ALL SELECT agent_id, size_bytes FROM r)
    SELECT agent_id AS "agentId", count(*) AS files, coalesce(sum(size_bytes), 0) AS bytes FROM gone GROUP BY agent_id ORDER BY agent_id`;
  await counters.release(tx, released.map((r) => ({ agentId: r.agentId, count: Number(r.files), bytes: Number(r.bytes) })));
  return released.reduce((n, r) => n + Number(r.files), 0);
}

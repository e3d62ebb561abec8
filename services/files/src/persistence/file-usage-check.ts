import { checkAgentUsage } from '@agent-memory/platform';
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
 * Compares every agent's storage quota counters (`files.agent_usage`) with its file and raw blob rows and,
 * with `repair`, recomputes the counters from the rows: the shared {@link checkAgentUsage} over the files
 * tables (docs/deployment.md, "Checking and repairing a data directory"). Returns the drifts found.
 */
export async function checkFileUsage(prisma: FilesPrismaClient, options: { repair: boolean }): Promise<FileUsageDrift[]> {
  const drifts = await checkAgentUsage(prisma, { usageTable: '"files"."agent_usage"', countColumn: 'file_count', bytesColumn: 'file_bytes', rowTables: ['"files"."files"', '"files"."raw_blobs"'] }, options);
  return drifts.map(({ agentId, stored, actual }) => ({ agentId, stored: { files: stored.count, bytes: stored.bytes }, actual: { files: actual.count, bytes: actual.bytes } }));
}

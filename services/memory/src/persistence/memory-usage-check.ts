import { checkAgentUsage } from '@agent-memory/platform';
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
 * `repair`, recomputes the counters from the rows: the shared {@link checkAgentUsage} over the memory
 * tables (docs/deployment.md, "Checking and repairing a data directory"). Returns the drifts found.
 */
export async function checkMemoryUsage(prisma: MemoryPrismaClient, options: { repair: boolean }): Promise<MemoryUsageDrift[]> {
  const drifts = await checkAgentUsage(prisma, { usageTable: '"memory"."agent_usage"', countColumn: 'memory_count', bytesColumn: 'memory_bytes', rowTables: ['"memory"."memories"'] }, options);
  return drifts.map(({ agentId, stored, actual }) => ({ agentId, stored: { memories: stored.count, bytes: stored.bytes }, actual: { memories: actual.count, bytes: actual.bytes } }));
}

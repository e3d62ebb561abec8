import 'reflect-metadata';
import { newId } from '@agent-memory/shared';
import { openTestPrisma } from '@agent-memory/testing';
import { checkMemoryUsage } from './memory-usage-check';
import { type MemoryPrismaClient, openMemoryPrisma } from './prisma';

/**
 * data:check's comparison of the memory storage quota counters with the rows (docs/deployment.md,
 * "Checking and repairing a data directory"), on the machine's PostgreSQL: a drifted counter is reported
 * and, with repair, recomputed; an agent with rows and no counter row gets one.
 */
describe('memory usage counters check', () => {
  let prisma: MemoryPrismaClient;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ prisma, close } = await openTestPrisma(openMemoryPrisma, 3));
  }, 60_000);
  afterAll(() => close?.());

  const memory = (agentId: string, sizeBytes: number) => {
    const id = newId('memory');
    return prisma.memory.create({
      data: { id, recordId: 'rec_x', agentId, path: `fact/${id}`, type: 'fact', summary: 's', contentHash: 'sha256:00', blobKey: `k/${id}`, sizeBytes, embedderId: 'e@1' },
    });
  };

  it('reports drifted counters and recomputes them from the rows with repair', async () => {
    const drifted = newId('agent');
    const uncounted = newId('agent');
    await memory(drifted, 100);
    await memory(drifted, 50);
    await memory(uncounted, 7);
    await prisma.$executeRaw`INSERT INTO "memory"."agent_usage" (agent_id, memory_count, memory_bytes) VALUES (${drifted}, 1, 100)`;

    const found = await checkMemoryUsage(prisma, { repair: false });
    expect(found).toEqual(
      expect.arrayContaining([
        { agentId: drifted, stored: { memories: 1, bytes: 100 }, actual: { memories: 2, bytes: 150 } },
        { agentId: uncounted, stored: { memories: 0, bytes: 0 }, actual: { memories: 1, bytes: 7 } },
      ]),
    );
    expect(found).toHaveLength(2);
    await checkMemoryUsage(prisma, { repair: true });
    expect(await checkMemoryUsage(prisma, { repair: false })).toEqual([]);
    const usage = await prisma.$queryRaw<{ agentId: string; n: number; b: number }[]>`
      SELECT agent_id AS "agentId", memory_count::int AS n, memory_bytes::int AS b FROM "memory"."agent_usage" ORDER BY memory_bytes`;
    expect(usage).toEqual(expect.arrayContaining([{ agentId: uncounted, n: 1, b: 7 }, { agentId: drifted, n: 2, b: 150 }]));
  }, 60_000);
});

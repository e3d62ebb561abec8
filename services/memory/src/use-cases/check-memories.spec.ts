import { Logger } from '@nestjs/common';
import type { MemoryPrismaClient } from '../persistence/prisma';
import type { VectorIndex } from '../vector-index/vector-index.port';
import { compareIndexWithDatabase } from './check-memories';

describe('compareIndexWithDatabase (start-up check)', () => {
  it('logs each record whose index holds fewer points than it has memory rows, and a summary naming the repair command', async () => {
    const prisma = {
      memory: { groupBy: async () => [{ recordId: 'rec_a', _count: { _all: 8 } }, { recordId: 'rec_b', _count: { _all: 2 } }, { recordId: 'rec_c', _count: { _all: 1 } }] },
    } as unknown as MemoryPrismaClient;
    const points: Record<string, number> = { rec_a: 0, rec_b: 2, rec_c: 3 }; // rec_c: a purge in progress, not damage
    const index = { count: async (tenant: string) => points[tenant] ?? 0 } as unknown as VectorIndex;
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const drifts = await compareIndexWithDatabase(prisma, index, logger);
    expect(drifts).toEqual([{ recordId: 'rec_a', rows: 8, points: 0 }]);
    expect(warn).toHaveBeenCalledWith({ recordId: 'rec_a', rows: 8, points: 0 }, expect.stringContaining('recall cannot find them'));
    expect(error).toHaveBeenCalledWith({ records: 1 }, expect.stringContaining('npm run data:check -- --repair'));
  });

  it('logs nothing when the index and the rows agree', async () => {
    const prisma = { memory: { groupBy: async () => [{ recordId: 'rec_a', _count: { _all: 2 } }] } } as unknown as MemoryPrismaClient;
    const index = { count: async () => 2 } as unknown as VectorIndex;
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    expect(await compareIndexWithDatabase(prisma, index, logger)).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });
});

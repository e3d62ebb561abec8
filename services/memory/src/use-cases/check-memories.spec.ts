import { Logger } from '@nestjs/common';
import type { MemoryRepository } from '../persistence/memory.repository';
import type { VectorIndex } from '../vector-index/vector-index.port';
import { compareIndexWithDatabase } from './check-memories';

describe('compareIndexWithDatabase (start-up check)', () => {
  it('logs each record whose index holds fewer points than it has memory rows, and a summary naming the repair command', async () => {
    const repository: Pick<MemoryRepository, 'countByRecord'> = {
      countByRecord: async () => [{ recordId: 'rec_a', rows: 8 }, { recordId: 'rec_b', rows: 2 }, { recordId: 'rec_c', rows: 1 }],
    };
    const points: Record<string, number> = { rec_a: 0, rec_b: 2, rec_c: 3 }; // rec_c: a purge in progress, not damage
    const index = { count: async (tenant: string) => points[tenant] ?? 0 } as unknown as VectorIndex;
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const drifts = await compareIndexWithDatabase(repository, index, logger);
    expect(drifts).toEqual([{ recordId: 'rec_a', rows: 8, points: 0 }]);
    expect(warn).toHaveBeenCalledWith({ recordId: 'rec_a', rows: 8, points: 0 }, expect.stringContaining('recall cannot find them'));
    expect(error).toHaveBeenCalledWith({ records: 1 }, expect.stringContaining('npm run data:check -- --repair'));
  });

  it('logs nothing when the index and the rows agree', async () => {
    const repository: Pick<MemoryRepository, 'countByRecord'> = { countByRecord: async () => [{ recordId: 'rec_a', rows: 2 }] };
    const index = { count: async () => 2 } as unknown as VectorIndex;
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    expect(await compareIndexWithDatabase(repository, index, logger)).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });
});

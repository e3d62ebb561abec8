import type { BlobStore, JobQueue } from '@agent-memory/platform';
import type { Embedder } from '../embedding/embedder.port';
import type { Enricher } from '../enrichment/enricher.port';
import type { MemoryRepository } from '../persistence/memory.repository';
import type { VectorIndex } from '../vector-index/vector-index.port';
import { EnrichMemoryUseCase } from './enrich-memory.use-case';

/** A queue whose enqueue never settles (Redis unreachable) or rejects. */
function queueWith(enqueue: JobQueue['enqueue']): JobQueue {
  return { enqueue, process: () => undefined, drain: async () => undefined, failed: async () => [], close: async () => undefined };
}

describe('EnrichMemoryUseCase.queueAfterRemember', () => {
  const useCase = (jobs: JobQueue): EnrichMemoryUseCase =>
    new EnrichMemoryUseCase({} as MemoryRepository, {} as Enricher, {} as Embedder, {} as VectorIndex, {} as BlobStore, jobs);

  it('resolves at once while the enqueue hangs (a remember never waits for the job queue)', async () => {
    const calls: unknown[] = [];
    const hanging = queueWith((name, data) => {
      calls.push({ name, data });
      return new Promise<void>(() => undefined);
    });
    const started = Date.now();
    await useCase(hanging).queueAfterRemember('mem_1', 'sha256:abc', true);
    expect(Date.now() - started).toBeLessThan(100);
    expect(calls).toEqual([{ name: 'memory.enrich', data: { memoryId: 'mem_1', contentHash: 'sha256:abc', reclassify: true } }]);
  });

  it('swallows (logs) an enqueue failure', async () => {
    const failing = queueWith(async () => {
      throw new Error('Redis down');
    });
    await expect(useCase(failing).queueAfterRemember('mem_1', 'sha256:abc', false)).resolves.toBeUndefined();
    await new Promise((r) => setImmediate(r));
  });
});

import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { IDEMPOTENCY_CLEANUP, METRIC_PREFIX, Metrics, type PeriodicTask, ReadinessRegistry, startPeriodicTask } from '@agent-memory/platform';
import { MEMORY_TYPE_CLASSIFIER, type MemoryTypeClassifier } from './classification/memory-type-classifier.port';
import { EMBEDDER, type Embedder } from './embedding/embedder.port';
import { MEMORY_MODULE_OPTIONS, type MemoryModuleOptions } from './memory.options';
import { MEMORY_RECLAIM, type MemoryReclaim } from './persistence/memory-reclaim';
import { MemoryRepository } from './persistence/memory.repository';
import { SUMMARISER, type Summariser } from './summary/summariser.port';
import { compareIndexWithDatabase } from './use-cases/check-memories';
import { EnrichMemoryUseCase } from './use-cases/enrich-memory.use-case';
import { PurgeStoresUseCase } from './use-cases/purge-stores.use-case';
import { ReembedMemoriesUseCase } from './use-cases/reembed-memories.use-case';
import { VECTOR_INDEX, type VectorIndex } from './vector-index/vector-index.port';

/**
 * Background work of the memory service, in one place (docs/architecture.md, "Background work"): at
 * start-up the optional warm-up, the vector index's readiness check, the purge jobs and sweep
 * ({@link PurgeStoresUseCase}), the enrichment and re-embedding jobs, the index-versus-database comparison
 * (gauge `agent_memory_index_missing_memories`) and the idempotency-key clean-up (every 10 minutes); at
 * shutdown it stops them and flushes the pending compaction and table rewrite before the index closes.
 */
@Injectable()
export class MemoryLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MemoryLifecycle');
  private idempotencyCleanup?: PeriodicTask;

  constructor(
    private readonly purge: PurgeStoresUseCase,
    private readonly repository: MemoryRepository,
    private readonly enrich: EnrichMemoryUseCase,
    private readonly reembed: ReembedMemoriesUseCase,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(MEMORY_TYPE_CLASSIFIER) private readonly classifier: MemoryTypeClassifier,
    @Inject(SUMMARISER) private readonly summariser: Summariser,
    @Inject(MEMORY_MODULE_OPTIONS) private readonly options: MemoryModuleOptions,
    @Inject(MEMORY_RECLAIM) private readonly reclaim: MemoryReclaim,
    @Optional() private readonly readiness?: ReadinessRegistry,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.warmUp) {
      // one pass through what a remember runs (see MemoryModuleOptions.warmUp); a failure only means a cold start
      const sample = 'Warm-up: the quarterly planning meeting moved to Thursday. Alice will send the agenda.';
      await Promise.all([this.classifier.classify(sample), this.summariser.summarise(sample.repeat(5))]).catch((err: unknown) => this.logger.warn({ err }, 'Warm-up failed; models load on first use'));
    }
    // /readyz of a memory process also asks its vector index (Qdrant or the vector-index service)
    this.readiness?.register('vector-index', async () => void (await this.index.count('readiness-probe')));
    await this.purge.start();
    this.enrich.start();
    await this.reembed.start();
    // Damage must not go unnoticed: memories the index lacks are logged at start (in the background).
    // The gauge agent_memory_index_missing_memories carries the result to /metrics (0 when consistent).
    const missing = this.metrics
      ? new Gauge({ name: `${METRIC_PREFIX}index_missing_memories`, help: 'Memories with a row but no vector in the index, found by the start-up comparison (npm run data:check -- --repair).', registers: [this.metrics.registry] })
      : undefined;
    void compareIndexWithDatabase(this.repository, this.index, this.logger)
      .then((drifts) => missing?.set(drifts.reduce((sum, d) => sum + d.rows - d.points, 0)))
      .catch((err: unknown) => this.logger.warn({ err }, 'Could not compare the vector index with the database'));
    // Expired idempotency keys (one DELETE, safe in every replica; IDEMPOTENCY_CLEANUP in libs/platform).
    this.idempotencyCleanup = startPeriodicTask('memory-idempotency-cleanup', IDEMPOTENCY_CLEANUP.intervalMs, () => this.repository.idempotency.deleteExpired());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.idempotencyCleanup?.stop();
    await this.purge.stop();
    await this.purge.flushCompaction();
    await this.reclaim.flush();
    await this.index.close();
    await this.embedder.close?.();
  }
}

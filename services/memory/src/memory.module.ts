import { type DynamicModule, Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { BusClient, DATABASE, type Database, FairScheduler, type FairSchedulerOptions, IDEMPOTENCY_CLEANUP, METRIC_PREFIX, Metrics, type PeriodicTask, ReadinessRegistry, ReclaimScheduler, startPeriodicTask } from '@agent-memory/platform';
import { MEMORY_TYPE_CLASSIFIER, type MemoryTypeClassifier } from './classification/memory-type-classifier.port';
import { PrototypeMemoryTypeClassifier } from './classification/prototype.memory-type-classifier';
import { EMBEDDER, type Embedder } from './embedding/embedder.port';
import { ENRICHER } from './enrichment/enricher.port';
import { OpenAiCompatibleEnricher } from './enrichment/openai-compatible.enricher';
import { OpenAiCompatibleEmbedder } from './embedding/openai-compatible.embedder';
import { UseLiteEmbedder } from './embedding/use-lite.embedder';
import { MemoryMessageHandler } from './memory.message-handler';
import { MemoryMaintenanceRepository } from './persistence/memory-maintenance.repository';
import { DEFAULT_FORGET_VACUUM_DELAY_MS, MEMORY_RECLAIM, MEMORY_RECLAIM_TABLES, type MemoryReclaim } from './persistence/memory-reclaim';
import { DEFAULT_MEMORY_QUOTA, MEMORY_QUOTA, type MemoryQuota } from './persistence/memory-quota';
import { MemoryRepository } from './persistence/memory.repository';
import { DEFAULT_MEMORY_ADMISSION, MEMORY_WORK_SCHEDULER } from './use-cases/admission';
import { MEMORY_PRISMA, type MemoryPrismaClient, openMemoryPrisma } from './persistence/prisma';
import { compareIndexWithDatabase } from './use-cases/check-memories';
import { ExtractiveSummariser } from './summary/extractive.summariser';
import { SUMMARISER, type Summariser } from './summary/summariser.port';
import { ContextUseCase } from './use-cases/context.use-case';
import { EnrichMemoryUseCase } from './use-cases/enrich-memory.use-case';
import { ForgetUseCase } from './use-cases/forget.use-case';
import { PurgeRecordUseCase } from './use-cases/purge-record.use-case';
import { PurgeStoresUseCase } from './use-cases/purge-stores.use-case';
import { RecallUseCase } from './use-cases/recall.use-case';
import { ReembedMemoriesUseCase } from './use-cases/reembed-memories.use-case';
import { RememberUseCase } from './use-cases/remember.use-case';
import { EmbeddedVectorIndex } from './vector-index/embedded.vector-index';
import { QdrantVectorIndex } from './vector-index/qdrant.vector-index';
import { RemoteVectorIndex } from './vector-index/remote.vector-index';
import { VECTOR_INDEX, type VectorIndex } from './vector-index/vector-index.port';

/** Which embedder the memory service uses (DESIGN.md §2: local model by default, OpenAI-compatible optional). */
export type EmbedderConfig =
  | { kind: 'use-lite' }
  | { kind: 'openai-compatible'; baseUrl: string; model: string; apiKey?: string; dimension: number; timeoutMs: number };

/** Which vector index the memory service uses. */
export type VectorIndexConfig =
  /** Standalone: the index under `directory`; `memoryBudgetBytes` bounds the tenant indexes kept loaded (embedded.vector-index.ts). */
  | { kind: 'embedded'; directory: string; memoryBudgetBytes?: number }
  /** Cluster mode without Qdrant: the `vector-index` service over the bus (see vector-index.message-handler.ts). */
  | { kind: 'remote' }
  /** Cluster mode with Qdrant: one collection per embedder, `<collectionPrefix>__<embedder>__<dimension>` (qdrant.vector-index.ts). */
  | { kind: 'qdrant'; url: string; apiKey?: string; collectionPrefix?: string };

/** The OpenAI-compatible chat endpoint that refines type and summary after remember (env `ENRICHMENT_LLM_*`). */
export interface EnrichmentConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Per-request timeout, ms; default 30000. */
  timeoutMs?: number;
}

export interface MemoryModuleOptions {
  embedder: EmbedderConfig;
  vectorIndex: VectorIndexConfig;
  /** Optional: without it no enrichment is queued and memories keep the local type and summary. */
  enrichment?: EnrichmentConfig;
  /**
   * Load the embedding model, the type classifier's prototypes and the summariser at start-up, before the
   * process reports ready, instead of on the first remember or recall (cluster mode: a replica behind a
   * readiness probe must not take its first requests cold; ~2-3 s of CPU). Default false (standalone
   * starts faster and loads on first use).
   */
  warmUp?: boolean;
  /** Per-agent storage quota (docs/api.md, "Storage quotas"); default {@link DEFAULT_MEMORY_QUOTA}. */
  quota?: MemoryQuota;
  /**
   * Admission control of remember and recall (docs/configuration.md, "Fairness between agents"); default
   * {@link DEFAULT_MEMORY_ADMISSION}.
   */
  admission?: FairSchedulerOptions;
  /**
   * How soon after a forget or record purge the memory tables are rewritten so that no dead row keeps the
   * forgotten text (`FORGET_VACUUM_DELAY_MS`, ms; docs/deployment.md, "Forgotten content and the database
   * files"). Default {@link DEFAULT_FORGET_VACUUM_DELAY_MS}.
   */
  vacuumDelayMs?: number;
}

const MEMORY_MODULE_OPTIONS = Symbol('MemoryModuleOptions');

@Injectable()
class MemoryLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MemoryLifecycle');
  private idempotencyCleanup?: PeriodicTask;

  constructor(
    private readonly purge: PurgeStoresUseCase,
    private readonly maintenance: MemoryMaintenanceRepository,
    private readonly enrich: EnrichMemoryUseCase,
    private readonly reembed: ReembedMemoriesUseCase,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(MEMORY_TYPE_CLASSIFIER) private readonly classifier: MemoryTypeClassifier,
    @Inject(SUMMARISER) private readonly summariser: Summariser,
    @Inject(MEMORY_MODULE_OPTIONS) private readonly options: MemoryModuleOptions,
    @Inject(MEMORY_RECLAIM) private readonly reclaim: MemoryReclaim,
    @Inject(MEMORY_PRISMA) private readonly prisma: MemoryPrismaClient,
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
    void compareIndexWithDatabase(this.prisma, this.index, this.logger)
      .then((drifts) => missing?.set(drifts.reduce((sum, d) => sum + d.rows - d.points, 0)))
      .catch((err: unknown) => this.logger.warn({ err }, 'Could not compare the vector index with the database'));
    // Expired idempotency keys (one DELETE, safe in every replica; IDEMPOTENCY_CLEANUP in libs/platform).
    this.idempotencyCleanup = startPeriodicTask('memory-idempotency-cleanup', IDEMPOTENCY_CLEANUP.intervalMs, () => this.maintenance.deleteExpiredIdempotencyKeys());
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

/**
 * The memory service (DESIGN.md §1) and its composition root: the only place that picks the embedder,
 * vector index, classifier and summariser adapters (STYLE.md habit 3). Answers `memory.v1.*` and
 * consumes `records.v1.record-deleted`.
 */
@Module({})
export class MemoryModule {
  static forRoot(options: MemoryModuleOptions): DynamicModule {
    return {
      module: MemoryModule,
      controllers: [MemoryMessageHandler],
      providers: [
        { provide: MEMORY_MODULE_OPTIONS, useValue: options },
        { provide: MEMORY_QUOTA, useValue: options.quota ?? DEFAULT_MEMORY_QUOTA },
        { provide: MEMORY_WORK_SCHEDULER, useValue: new FairScheduler(options.admission ?? DEFAULT_MEMORY_ADMISSION) },
        { provide: MEMORY_PRISMA, useFactory: (db: Database) => openMemoryPrisma(db), inject: [DATABASE] },
        {
          provide: MEMORY_RECLAIM,
          useFactory: (db: Database): MemoryReclaim => new ReclaimScheduler(db, MEMORY_RECLAIM_TABLES, options.vacuumDelayMs ?? DEFAULT_FORGET_VACUUM_DELAY_MS),
          inject: [DATABASE],
        },
        {
          provide: EMBEDDER,
          useFactory: (): Embedder =>
            options.embedder.kind === 'use-lite'
              ? new UseLiteEmbedder()
              : new OpenAiCompatibleEmbedder({
                  baseUrl: options.embedder.baseUrl,
                  model: options.embedder.model,
                  apiKey: options.embedder.apiKey,
                  dimension: options.embedder.dimension,
                  timeoutMs: options.embedder.timeoutMs,
                }),
        },
        {
          provide: VECTOR_INDEX,
          useFactory: async (embedder: Embedder, bus: BusClient): Promise<VectorIndex> => {
            const config = options.vectorIndex;
            const index =
              config.kind === 'remote'
                ? new RemoteVectorIndex(bus)
                : config.kind === 'qdrant'
                  ? new QdrantVectorIndex({ url: config.url, apiKey: config.apiKey, collectionPrefix: config.collectionPrefix })
                  : new EmbeddedVectorIndex({ directory: config.directory, memoryBudgetBytes: config.memoryBudgetBytes });
            await index.open({ embedderId: embedder.id, dimension: embedder.dimension });
            return index;
          },
          inject: [EMBEDDER, BusClient],
        },
        { provide: MEMORY_TYPE_CLASSIFIER, useFactory: (embedder: Embedder) => new PrototypeMemoryTypeClassifier(embedder), inject: [EMBEDDER] },
        { provide: SUMMARISER, useValue: new ExtractiveSummariser() },
        {
          provide: ENRICHER,
          useValue: options.enrichment
            ? new OpenAiCompatibleEnricher({
                baseUrl: options.enrichment.baseUrl,
                model: options.enrichment.model,
                apiKey: options.enrichment.apiKey,
                timeoutMs: options.enrichment.timeoutMs,
              })
            : null,
        },
        MemoryRepository,
        MemoryMaintenanceRepository,
        RememberUseCase,
        RecallUseCase,
        ForgetUseCase,
        ContextUseCase,
        PurgeStoresUseCase,
        PurgeRecordUseCase,
        EnrichMemoryUseCase,
        ReembedMemoriesUseCase,
        MemoryLifecycle,
      ],
    };
  }
}

import { type DynamicModule, Module } from '@nestjs/common';
import { BusClient, DATABASE, type Database, FairScheduler, ReclaimScheduler } from '@agent-memory/platform';
import { MEMORY_TYPE_CLASSIFIER } from './classification/memory-type-classifier.port';
import { PrototypeMemoryTypeClassifier } from './classification/prototype.memory-type-classifier';
import { EMBEDDER, type Embedder } from './embedding/embedder.port';
import { ENRICHER } from './enrichment/enricher.port';
import { OpenAiCompatibleEnricher } from './enrichment/openai-compatible.enricher';
import { OpenAiCompatibleEmbedder } from './embedding/openai-compatible.embedder';
import { createUseLiteEmbedder } from './embedding/use-lite-runtime';
import { MemoryMessageHandler } from './memory.message-handler';
import { MemoryLifecycle } from './memory.lifecycle';
import { MEMORY_MODULE_OPTIONS, type MemoryModuleOptions } from './memory.options';
import { DEFAULT_FORGET_VACUUM_DELAY_MS, MEMORY_RECLAIM, MEMORY_RECLAIM_TABLES, type MemoryReclaim } from './persistence/memory-reclaim';
import { DEFAULT_MEMORY_QUOTA, MEMORY_QUOTA } from './persistence/memory-quota';
import { MemoryRepository } from './persistence/memory.repository';
import { PrismaMemoryRepository } from './persistence/prisma-memory.repository';
import { DEFAULT_MEMORY_ADMISSION, MEMORY_WORK_SCHEDULER } from './use-cases/admission';
import { MEMORY_PRISMA, openMemoryPrisma } from './persistence/prisma';
import { ExtractiveSummariser } from './summary/extractive.summariser';
import { SUMMARISER } from './summary/summariser.port';
import { DEFAULT_CONTEXT } from './recall/contextual-index';
import { ContextUseCase } from './use-cases/context.use-case';
import { ContextualIndexer, RECALL_CONTEXT } from './use-cases/contextual-indexer';
import { EnrichMemoryUseCase } from './use-cases/enrich-memory.use-case';
import { ForgetUseCase } from './use-cases/forget.use-case';
import { ListMemoriesUseCase } from './use-cases/list-memories.use-case';
import { PurgeRecordUseCase } from './use-cases/purge-record.use-case';
import { PurgeStoresUseCase } from './use-cases/purge-stores.use-case';
import { RecallUseCase } from './use-cases/recall.use-case';
import { ReembedMemoriesUseCase } from './use-cases/reembed-memories.use-case';
import { RememberUseCase } from './use-cases/remember.use-case';
import { EmbeddedVectorIndex } from './vector-index/embedded.vector-index';
import { QdrantVectorIndex } from './vector-index/qdrant.vector-index';
import { RemoteVectorIndex } from './vector-index/remote.vector-index';
import { VECTOR_INDEX, type VectorIndex } from './vector-index/vector-index.port';

export type { EmbedderConfig, EnrichmentConfig, MemoryModuleOptions, VectorIndexConfig } from './memory.options';

/**
 * The memory service and its composition root: the only place that picks the embedder, vector index,
 * classifier and summariser adapters (docs/architecture.md, "Ports and adapters"). Answers `memory.v1.*`
 * and consumes `records.v1.record-deleted`; its background work is {@link MemoryLifecycle}.
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
        { provide: RECALL_CONTEXT, useValue: { ...DEFAULT_CONTEXT, ...options.recallContext } },
        ContextualIndexer,
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
              ? createUseLiteEmbedder({ runtime: options.embedder.runtime, precision: options.embedder.precision, modelCacheDirectory: options.embedder.modelCacheDirectory })
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
                  : new EmbeddedVectorIndex({ directory: config.directory, memoryBudgetBytes: config.memoryBudgetBytes, syncWrites: config.syncWrites });
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
        { provide: MemoryRepository, useClass: PrismaMemoryRepository },
        RememberUseCase,
        RecallUseCase,
        ForgetUseCase,
        ContextUseCase,
        ListMemoriesUseCase,
        PurgeStoresUseCase,
        PurgeRecordUseCase,
        EnrichMemoryUseCase,
        ReembedMemoriesUseCase,
        MemoryLifecycle,
      ],
    };
  }
}

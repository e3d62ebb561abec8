import { type DynamicModule, Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DATABASE, type Database } from '@agent-memory/platform';
import { MEMORY_TYPE_CLASSIFIER } from './classification/memory-type-classifier.port';
import { PrototypeMemoryTypeClassifier } from './classification/prototype.memory-type-classifier';
import { EMBEDDER, type Embedder } from './embedding/embedder.port';
import { OpenAiCompatibleEmbedder } from './embedding/openai-compatible.embedder';
import { UseLiteEmbedder } from './embedding/use-lite.embedder';
import { MemoryMessageHandler } from './memory.message-handler';
import { MemoryRepository } from './persistence/memory.repository';
import { MEMORY_PRISMA, openMemoryPrisma } from './persistence/prisma';
import { ExtractiveSummariser } from './summary/extractive.summariser';
import { SUMMARISER } from './summary/summariser.port';
import { ContextUseCase } from './use-cases/context.use-case';
import { ForgetUseCase } from './use-cases/forget.use-case';
import { PurgeRecordUseCase } from './use-cases/purge-record.use-case';
import { PurgeStoresUseCase } from './use-cases/purge-stores.use-case';
import { RecallUseCase } from './use-cases/recall.use-case';
import { RememberUseCase } from './use-cases/remember.use-case';
import { EmbeddedVectorIndex } from './vector-index/embedded.vector-index';
import { VECTOR_INDEX, type VectorIndex } from './vector-index/vector-index.port';

/** Which embedder the memory service uses (DESIGN.md §2: local model by default, OpenAI-compatible optional). */
export type EmbedderConfig =
  | { kind: 'use-lite' }
  | { kind: 'openai-compatible'; baseUrl: string; model: string; apiKey?: string; dimension: number; timeoutMs: number };

/** Which vector index the memory service uses. */
export type VectorIndexConfig = { kind: 'embedded'; directory: string };

export interface MemoryModuleOptions {
  embedder: EmbedderConfig;
  vectorIndex: VectorIndexConfig;
}

@Injectable()
class MemoryLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly purge: PurgeStoresUseCase,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.purge.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.purge.flushCompaction();
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
        { provide: MEMORY_PRISMA, useFactory: (db: Database) => openMemoryPrisma(db), inject: [DATABASE] },
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
          useFactory: async (embedder: Embedder): Promise<VectorIndex> => {
            const index = new EmbeddedVectorIndex({ directory: options.vectorIndex.directory });
            await index.open({ embedderId: embedder.id, dimension: embedder.dimension });
            return index;
          },
          inject: [EMBEDDER],
        },
        { provide: MEMORY_TYPE_CLASSIFIER, useFactory: (embedder: Embedder) => new PrototypeMemoryTypeClassifier(embedder), inject: [EMBEDDER] },
        { provide: SUMMARISER, useValue: new ExtractiveSummariser() },
        MemoryRepository,
        RememberUseCase,
        RecallUseCase,
        ForgetUseCase,
        ContextUseCase,
        PurgeStoresUseCase,
        PurgeRecordUseCase,
        MemoryLifecycle,
      ],
    };
  }
}

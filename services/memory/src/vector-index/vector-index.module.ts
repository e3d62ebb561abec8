import { type DynamicModule, Module } from '@nestjs/common';
import { SharedEmbeddedIndex, VECTOR_INDEX_SERVICE_OPTIONS, type VectorIndexServiceOptions } from './shared-embedded-index';
import { VectorIndexLifecycle } from './vector-index.lifecycle';
import { VectorIndexMessageHandler } from './vector-index.message-handler';

/**
 * The `vector-index` service (cluster mode without `QDRANT_URL`): the embedded index under `directory`,
 * answering `vector-index.v1.*`. Run exactly one replica (the index takes a lock on its directory).
 */
@Module({})
export class VectorIndexServiceModule {
  /** `memoryBudgetBytes`: tenant indexes kept loaded (`VECTOR_INDEX_MEMORY_BUDGET_MB`, docs/configuration.md). */
  static forRoot(options: VectorIndexServiceOptions): DynamicModule {
    return {
      module: VectorIndexServiceModule,
      controllers: [VectorIndexMessageHandler],
      providers: [{ provide: VECTOR_INDEX_SERVICE_OPTIONS, useValue: { directory: options.directory, memoryBudgetBytes: options.memoryBudgetBytes } }, SharedEmbeddedIndex, VectorIndexLifecycle],
    };
  }
}

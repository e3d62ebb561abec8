import { Controller, Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import {
  decodeDenseVector,
  DomainError,
  SUBJECTS,
  VectorIndexDeleteSchema,
  VectorIndexOpenSchema,
  VectorIndexScoreDenseSchema,
  VectorIndexSearchDenseSchema,
  VectorIndexSearchSparseSchema,
  VectorIndexTenantSchema,
  VectorIndexUpsertSchema,
} from '@agent-memory/shared';
import { EmbeddedVectorIndex, type EmbeddedVectorIndexOptions } from './embedded.vector-index';
import type { IndexDescriptor } from './vector-index.port';

const OK = { ok: true } as const;

/**
 * Holds the one embedded index of the `vector-index` service. The index is opened by the first
 * `open` request (the memory replicas send their embedder's descriptor); a later `open` with another
 * descriptor is refused, as the embedded index itself refuses vectors of another embedder.
 */
@Injectable()
export class SharedEmbeddedIndex implements OnApplicationShutdown {
  private opened?: { descriptor: IndexDescriptor; ready: Promise<void> };
  readonly index: EmbeddedVectorIndex;

  constructor(@Inject('VECTOR_INDEX_OPTIONS') options: EmbeddedVectorIndexOptions) {
    this.index = new EmbeddedVectorIndex(options);
  }

  async open(descriptor: IndexDescriptor): Promise<void> {
    if (!this.opened) {
      const ready = this.index.open(descriptor);
      this.opened = { descriptor, ready };
      // a failed open (a lock held by a dying predecessor, say) must not stick: the next open retries
      ready.catch(() => {
        if (this.opened?.ready === ready) this.opened = undefined;
      });
    }
    else if (this.opened.descriptor.embedderId !== descriptor.embedderId || this.opened.descriptor.dimension !== descriptor.dimension) {
      throw new DomainError('INTERNAL_ERROR', `The vector index holds ${this.opened.descriptor.embedderId}/${this.opened.descriptor.dimension} vectors, not ${descriptor.embedderId}/${descriptor.dimension}`);
    }
    await this.opened.ready;
  }

  /** The opened index; INTERNAL_ERROR before the first `open` (a memory replica always opens first). */
  async ready(): Promise<EmbeddedVectorIndex> {
    if (!this.opened) throw new DomainError('INTERNAL_ERROR', 'The vector index is not open yet');
    await this.opened.ready;
    return this.index;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.opened) await this.index.close();
  }
}

/** Bus edge of the `vector-index` service: one thin method per subject of `SUBJECTS.vectorIndex`. */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class VectorIndexMessageHandler {
  constructor(private readonly shared: SharedEmbeddedIndex) {}

  @MessagePattern(SUBJECTS.vectorIndex.open)
  async open(@Payload(new MessagePipe(VectorIndexOpenSchema)) m: z.output<typeof VectorIndexOpenSchema>) {
    await this.shared.open(m);
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.upsert)
  async upsert(@Payload(new MessagePipe(VectorIndexUpsertSchema)) m: z.output<typeof VectorIndexUpsertSchema>) {
    await (await this.shared.ready()).upsert(m.points.map((p) => ({ ...p, dense: decodeDenseVector(p.dense) })));
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.searchDense)
  async searchDense(@Payload(new MessagePipe(VectorIndexSearchDenseSchema)) m: z.output<typeof VectorIndexSearchDenseSchema>) {
    return (await this.shared.ready()).searchDense(decodeDenseVector(m.vector), m.search);
  }

  @MessagePattern(SUBJECTS.vectorIndex.searchSparse)
  async searchSparse(@Payload(new MessagePipe(VectorIndexSearchSparseSchema)) m: z.output<typeof VectorIndexSearchSparseSchema>) {
    return (await this.shared.ready()).searchSparse(m.query, m.search);
  }

  @MessagePattern(SUBJECTS.vectorIndex.scoreDense)
  async scoreDense(@Payload(new MessagePipe(VectorIndexScoreDenseSchema)) m: z.output<typeof VectorIndexScoreDenseSchema>) {
    return [...(await (await this.shared.ready()).scoreDense(decodeDenseVector(m.vector), m.tenant, m.ids))];
  }

  @MessagePattern(SUBJECTS.vectorIndex.delete)
  async delete(@Payload(new MessagePipe(VectorIndexDeleteSchema)) m: z.output<typeof VectorIndexDeleteSchema>) {
    await (await this.shared.ready()).delete(m.tenant, m.ids);
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.deleteTenant)
  async deleteTenant(@Payload(new MessagePipe(VectorIndexTenantSchema)) m: z.output<typeof VectorIndexTenantSchema>) {
    await (await this.shared.ready()).deleteTenant(m.tenant);
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.compact)
  async compact() {
    await (await this.shared.ready()).compact();
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.count)
  async count(@Payload(new MessagePipe(VectorIndexTenantSchema)) m: z.output<typeof VectorIndexTenantSchema>) {
    return { count: await (await this.shared.ready()).count(m.tenant) };
  }
}

/**
 * The `vector-index` service (cluster mode without `QDRANT_URL`): the embedded index under `directory`,
 * answering `vector-index.v1.*`. Run exactly one replica (the index takes a lock on its directory).
 */
@Module({})
export class VectorIndexServiceModule {
  /** `memoryBudgetBytes`: tenant indexes kept loaded (`VECTOR_INDEX_MEMORY_BUDGET_MB`, docs/configuration.md). */
  static forRoot(options: { directory: string; memoryBudgetBytes?: number }): DynamicModule {
    return {
      module: VectorIndexServiceModule,
      controllers: [VectorIndexMessageHandler],
      providers: [{ provide: 'VECTOR_INDEX_OPTIONS', useValue: { directory: options.directory, memoryBudgetBytes: options.memoryBudgetBytes } }, SharedEmbeddedIndex],
    };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@agent-memory/shared';
import { EmbeddedVectorIndex } from './embedded.vector-index';
import type { EmbeddedVectorIndexOptions } from './embedded.vector-index.options';
import type { IndexDescriptor } from './vector-index.port';

/** Options of the `vector-index` service (`VectorIndexServiceModule.forRoot`). */
export type VectorIndexServiceOptions = Pick<EmbeddedVectorIndexOptions, 'directory' | 'memoryBudgetBytes'>;

/** DI token of the {@link VectorIndexServiceOptions}. */
export const VECTOR_INDEX_SERVICE_OPTIONS = Symbol('VECTOR_INDEX_SERVICE_OPTIONS');

/**
 * Holds the one embedded index of the `vector-index` service. The index is opened by the first
 * `open` request (the memory replicas send their embedder's descriptor); a later `open` with another
 * descriptor is refused, as the embedded index itself refuses vectors of another embedder. Closed at
 * shutdown by `VectorIndexLifecycle`.
 */
@Injectable()
export class SharedEmbeddedIndex {
  private opened?: { descriptor: IndexDescriptor; ready: Promise<void> };
  readonly index: EmbeddedVectorIndex;

  constructor(@Inject(VECTOR_INDEX_SERVICE_OPTIONS) options: VectorIndexServiceOptions) {
    this.index = new EmbeddedVectorIndex({ directory: options.directory, memoryBudgetBytes: options.memoryBudgetBytes });
  }

  /** Opens the index for `descriptor` (once); INTERNAL_ERROR when it is open for another embedder or dimension. */
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

  /** Closes the index if it was ever opened (flushes its logs and releases the directory lock). */
  async close(): Promise<void> {
    if (this.opened) await this.index.close();
  }
}

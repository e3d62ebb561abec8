import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { MemoryEnrichJob, MemoryType } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore, JOB_QUEUE, type JobQueue, type RetryPolicy } from '@agent-memory/platform';
import { EMBEDDER, type Embedder } from '../embedding/embedder.port';
import { ENRICHER, type Enricher } from '../enrichment/enricher.port';
import { MemoryRepository, type GuardedWriteOutcome } from '../persistence/memory.repository';
import { embedDocument } from '../recall/document-embedding';
import { encodeKeywords } from '../recall/keyword-encoder';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';
import { ContextualIndexer } from './contextual-indexer';

/** What one enrichment did: written, nothing to change, or skipped because the memory is gone or changed. */
export type EnrichOutcome = GuardedWriteOutcome | 'unchanged' | 'superseded';

/**
 * Retries of `memory.enrich`: an LLM endpoint that is down for a few minutes is waited for; after that
 * the memory keeps its local type and summary (the job is dead-lettered).
 */
export const ENRICH_RETRY: RetryPolicy = { attempts: 6, backoffMs: 1_000, maxBackoffMs: 60_000 };

/**
 * Enrichment (classification and summary refinement by a configured LLM; docs/configuration.md): after a
 * remember, the configured {@link Enricher} proposes a type and summary for the memory's content, and the
 * proposal replaces the local classifier's type (only when the agent gave none) and the extractive summary.
 *
 * Safety: the metadata and, when the type changes, the vector payload are written in one transaction that
 * first locks the memory row (`MemoryRepository.applyEnrichment`). A memory forgotten meanwhile is not
 * written back (forget deletes the row under the same lock, so its purge always runs after our vector
 * write), and an enrichment of an older content version never overwrites a newer one (the content hash is
 * compared under the lock; the newer remember queued its own job). When the type changes, the vector is
 * re-made from the content with the configured embedder (the simplest correct route: the index port cannot
 * read a vector back, and it keeps vector and payload consistent); the row's embedder id follows.
 * Idempotent: a second run finds nothing to change or writes the same values.
 *
 * Without a configured enricher, {@link start} registers nothing and {@link queueAfterRemember} queues nothing.
 */
@Injectable()
export class EnrichMemoryUseCase {
  private readonly logger = new Logger(EnrichMemoryUseCase.name);

  constructor(
    private readonly repository: MemoryRepository,
    @Optional() @Inject(ENRICHER) private readonly enricher: Enricher | null,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    @Optional() private readonly contextual?: ContextualIndexer,
  ) {}

  /** Whether an enricher is configured. */
  get enabled(): boolean {
    return this.enricher !== null && this.enricher !== undefined;
  }

  /** Registers the `memory.enrich` handler (call once at start-up); nothing without an enricher. */
  start(): void {
    if (!this.enabled) return;
    this.jobs.process(
      'memory.enrich',
      async (job) => {
        const outcome = await this.execute(job);
        this.logger.debug({ memoryId: job.memoryId, outcome }, 'Enrichment done');
      },
      ENRICH_RETRY,
    );
  }

  /**
   * Queues the enrichment of version `contentHash` of a memory just remembered; `reclassify` is false when
   * the agent gave the type. Never throws: the memory is already saved, and a lost enrichment only leaves
   * the local type and summary in place (logged). Does not wait for the queue either: the enqueue runs in
   * the background, so a slow or unreachable Redis never delays the remember's answer.
   */
  queueAfterRemember(memoryId: string, contentHash: string, reclassify: boolean): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    // One waiting job per version: a replayed or repeated remember adds none.
    void this.jobs
      .enqueue('memory.enrich', { memoryId, contentHash, reclassify }, { jobId: `enrich_${memoryId}_${contentHash.slice(-16)}` })
      .catch((err: unknown) => this.logger.warn({ memoryId, err }, 'Could not queue enrichment; the memory keeps its local type and summary'));
    return Promise.resolve();
  }

  /** Runs one enrichment job; see the class comment. Throws (so the job is retried) when the enricher, index or database fails. */
  async execute(job: MemoryEnrichJob): Promise<EnrichOutcome> {
    const enricher = this.enricher;
    if (!enricher) return 'unchanged';
    const row = await this.repository.findAnyById(job.memoryId);
    if (!row) return 'gone';
    if (job.contentHash !== undefined && row.contentHash !== job.contentHash) return 'superseded';
    const bytes = await this.blobs.get(row.blobKey);
    // The blob goes with forget's purge: the memory is being forgotten.
    if (!bytes) return 'gone';
    const content = bytes.toString('utf8');
    const proposal = await enricher.enrich(content);
    const type: MemoryType = job.reclassify && proposal.type ? proposal.type : (row.type as MemoryType);
    const summary = proposal.summary ?? row.summary;
    if (type === row.type && summary === row.summary) return 'unchanged';
    if (type === row.type) {
      return this.repository.applyEnrichment({ id: row.id, contentHash: row.contentHash, type, summary, embedderId: row.embedderId });
    }
    // The type is in the vector payload (recall filters by it): write the point again with the new type.
    // With contextual indexing the own entry is written here (no model work or neighbour locks in the
    // transaction) and the contextual one after COMMIT, as after a remember (ContextualIndexer).
    const dense = await embedDocument(this.embedder, content, { scope: row.recordId });
    const sparse = encodeKeywords(content);
    const outcome = await this.repository.applyEnrichment({ id: row.id, contentHash: row.contentHash, type, summary, embedderId: this.embedder.id }, () =>
      this.index.upsert([{ id: row.id, tenant: row.recordId, dense, sparse, payload: { type } }]),
    );
    if (outcome === 'applied') await this.contextual?.afterWrite(row.id, { contentHash: row.contentHash, dense, sparse });
    return outcome;
  }
}

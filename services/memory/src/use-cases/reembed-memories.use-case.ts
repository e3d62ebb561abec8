import { Inject, Injectable, Logger } from '@nestjs/common';
import type { MemoryReembedJob, MemoryType } from '@agent-memory/shared';
import { BLOB_STORE, type BlobStore, DEFAULT_RETRY, JOB_QUEUE, type JobQueue, verifyBlob } from '@agent-memory/platform';
import { EMBEDDER, type Embedder } from '../embedding/embedder.port';
import { normaliseL2 } from '../embedding/vector-math';
import { MemoryRepository } from '../persistence/memory.repository';
import { chunkForEmbedding } from '../recall/document-embedding';
import { encodeKeywords } from '../recall/keyword-encoder';
import { VECTOR_INDEX, type VectorIndex, type VectorPoint } from '../vector-index/vector-index.port';

/** Memories re-embedded per job: one embedder call and one index write each. */
export const REEMBED_BATCH_SIZE = 64;

/** What one batch did; for logs and tests. */
export interface ReembedBatchResult {
  /** Memories whose vectors were rewritten with the current embedder. */
  reembedded: number;
  /** Cursor of the next batch, queued as its own job; absent when this was the last batch. */
  next?: string;
}

/** Job id of a re-embedding batch: one waiting job per embedder and cursor (BullMQ escapes the id). */
function reembedJobId(embedderId: string, cursor?: string): string {
  return `reembed_${embedderId}_${cursor ?? 'start'}`;
}

/**
 * Embeddings of whole memories, as `embedDocument` (recall/document-embedding.ts) makes them (mean of the
 * chunk vectors, re-normalised), for many memories in one embedder call. Returns one unit vector per content.
 */
async function embedDocuments(embedder: Embedder, contents: readonly string[]): Promise<Float32Array[]> {
  const chunked = contents.map((content) => chunkForEmbedding(content));
  const flat = chunked.flat();
  const vectors = flat.length > 0 ? await embedder.embed(flat, { purpose: 'document' }) : [];
  if (vectors.length !== flat.length) throw new Error(`The embedder returned ${vectors.length} vectors for ${flat.length} texts`);
  let at = 0;
  return chunked.map((chunks) => {
    const own = vectors.slice(at, (at += chunks.length));
    if (own.length === 1) return own[0];
    const mean = new Float32Array(embedder.dimension);
    for (const v of own) for (let i = 0; i < mean.length; i++) mean[i] += v[i];
    return normaliseL2(mean);
  });
}

/**
 * Re-embedding after an embedder change (docs/architecture.md, "Background work"): every memory whose `embedder_id` is not the
 * configured embedder's id gets a new vector from its content (blob store), written to the index opened
 * for the configured embedder (Qdrant: that embedder's own collection), and its `embedder_id` updated.
 *
 * - Batches of {@link REEMBED_BATCH_SIZE} in id order; each batch is one `memory.reembed` job that queues
 *   the next one with its cursor, so the work survives restarts and spreads over workers. Progress is
 *   durable in the rows: a crash loses at most the running batch, and {@link start} queues a new run at
 *   start-up whenever any row has another embedder id.
 * - Each batch writes under row locks (`MemoryRepository.applyReembed`): a memory forgotten meanwhile is
 *   never written back, and one replaced meanwhile (its new version already has the new embedder's vector)
 *   is left alone. A memory whose blob is missing (being forgotten) is skipped. Idempotent.
 * - A job for another embedder id (a worker configured differently, mid-rollout) is dropped.
 * - The previous embedder's vectors stay where they were (Qdrant: its collection), unused: delete that
 *   collection once re-embedding is complete (logged). The embedded index holds one embedder per
 *   directory and refuses to open for another, so in standalone mode a changed embedder needs the old
 *   `vectors/` directory moved away first; this job then rebuilds the index from the blob store.
 */
@Injectable()
export class ReembedMemoriesUseCase {
  private readonly logger = new Logger(ReembedMemoriesUseCase.name);

  constructor(
    private readonly repository: MemoryRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
  ) {}

  /** Registers the `memory.reembed` handler and queues a run if any memory has another embedder's vector (call once at start-up). */
  async start(): Promise<void> {
    this.jobs.process('memory.reembed', async (job) => {
      await this.runBatch(job);
    }, DEFAULT_RETRY);
    if (await this.repository.anyOtherEmbedder(this.embedder.id)) {
      this.logger.log({ embedderId: this.embedder.id }, 'Memories embedded by another embedder found; re-embedding queued');
      await this.jobs.enqueue('memory.reembed', { embedderId: this.embedder.id }, { jobId: reembedJobId(this.embedder.id) });
    }
  }

  /** Re-embeds one batch after `job.cursor` and queues the next; throws (job retried) when a store or the embedder fails. */
  async runBatch(job: MemoryReembedJob, batchSize = REEMBED_BATCH_SIZE): Promise<ReembedBatchResult> {
    const embedderId = this.embedder.id;
    if (job.embedderId !== embedderId) {
      this.logger.warn({ jobEmbedder: job.embedderId, embedderId }, 'Re-embedding job for another embedder dropped');
      return { reembedded: 0 };
    }
    const rows = await this.repository.listOtherEmbedder(embedderId, batchSize, job.cursor);
    const contents = await Promise.all(rows.map((row) => this.contentOf(row)));
    const present = rows.flatMap((row, i) => (contents[i] === null ? [] : [{ row, content: contents[i] }]));
    const dense = await embedDocuments(this.embedder, present.map((p) => p.content));
    const points = new Map<string, VectorPoint>(
      present.map(({ row, content }, i) => [
        row.id,
        { id: row.id, tenant: row.recordId, dense: dense[i], sparse: encodeKeywords(content), payload: { type: row.type as MemoryType } },
      ]),
    );
    const written =
      present.length === 0
        ? []
        : await this.repository.applyReembed(
            present.map(({ row }) => ({ id: row.id, contentHash: row.contentHash })),
            embedderId,
            (ids) => this.index.upsert(ids.map((id) => points.get(id)!)),
          );
    const next = rows.length === batchSize ? rows[rows.length - 1].id : undefined;
    if (next) {
      await this.jobs.enqueue('memory.reembed', { embedderId, cursor: next }, { jobId: reembedJobId(embedderId, next) });
    } else {
      this.logger.log({ embedderId }, 'Re-embedding pass complete; vectors of the previous embedder are no longer used');
    }
    return { reembedded: written.length, next };
  }

  /**
   * The content of `row`, or null when its blob is missing (being forgotten) or does not hash to the row's
   * `contentHash` (damaged: logged, and never embedded; `npm run data:check` reports it).
   */
  private async contentOf(row: { id: string; blobKey: string; contentHash: string }): Promise<string | null> {
    const bytes = await this.blobs.get(row.blobKey);
    if (!bytes) return null;
    const damage = verifyBlob(row.blobKey, bytes, row.contentHash);
    if (damage) {
      this.logger.error({ memoryId: row.id, blobKey: row.blobKey, expectedHash: row.contentHash, actualHash: damage.actualHash }, 'Memory content failed its integrity check; not re-embedded');
      return null;
    }
    return bytes.toString('utf8');
  }
}

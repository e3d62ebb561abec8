import type { BusClient } from '@agent-memory/platform';
import {
  encodeDenseVector,
  SUBJECTS,
  VectorAckReplySchema,
  VectorCandidatesReplySchema,
  VectorCountReplySchema,
  VectorHitsReplySchema,
  VectorScoresReplySchema,
} from '@agent-memory/shared';
import type { CandidateHits, CandidateSearch, IndexDescriptor, SparseVector, VectorHit, VectorIndex, VectorPoint, VectorSearch } from './vector-index.port';

const UPSERT_BATCH = 500;

/**
 * {@link VectorIndex} adapter that calls the `vector-index` service over the bus (cluster mode without
 * Qdrant): every memory replica and the memory worker share the one embedded index that service holds.
 * Errors of the service arrive as DomainErrors (INTERNAL_ERROR when it is down or slow).
 */
export class RemoteVectorIndex implements VectorIndex {
  private descriptor?: IndexDescriptor;

  constructor(private readonly bus: BusClient) {}

  /**
   * Sends a request; if the vector-index service restarted since we opened it ("not open yet"), opens it
   * again with our descriptor and retries once.
   */
  private async call<S extends Parameters<BusClient['request']>[2]>(subject: string, payload: unknown, reply: S) {
    try {
      return await this.bus.request(subject, payload, reply);
    } catch (err) {
      if (!this.descriptor || !/not open yet/.test((err as Error).message)) throw err;
      await this.bus.request(SUBJECTS.vectorIndex.open, this.descriptor, VectorAckReplySchema);
      return this.bus.request(subject, payload, reply);
    }
  }

  /**
   * Opens the shared index for `descriptor`, waiting up to `waitMs` for the vector-index service to come
   * up (processes of a cluster start in any order). Throws its refusal (another embedder) at once.
   */
  async open(descriptor: IndexDescriptor, waitMs = 60_000): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        await this.bus.request(SUBJECTS.vectorIndex.open, descriptor, VectorAckReplySchema);
        this.descriptor = descriptor;
        return;
      } catch (err) {
        const unavailable = /unavailable|did not answer/i.test((err as Error).message);
        if (!unavailable || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  async upsert(points: readonly VectorPoint[]): Promise<void> {
    for (let i = 0; i < points.length; i += UPSERT_BATCH) {
      const batch = points.slice(i, i + UPSERT_BATCH).map((p) => ({ ...p, dense: encodeDenseVector(p.dense) }));
      await this.call(SUBJECTS.vectorIndex.upsert, { points: batch }, VectorAckReplySchema);
    }
  }

  async searchDense(vector: Float32Array, search: VectorSearch): Promise<VectorHit[]> {
    return this.call(SUBJECTS.vectorIndex.searchDense, { vector: encodeDenseVector(vector), search }, VectorHitsReplySchema);
  }

  async searchSparse(query: SparseVector, search: VectorSearch): Promise<VectorHit[]> {
    return this.call(SUBJECTS.vectorIndex.searchSparse, { query, search }, VectorHitsReplySchema);
  }

  async scoreDense(vector: Float32Array, tenant: string, ids: readonly string[]): Promise<Map<string, number>> {
    const pairs = await this.call(SUBJECTS.vectorIndex.scoreDense, { vector: encodeDenseVector(vector), tenant, ids }, VectorScoresReplySchema);
    return new Map(pairs);
  }

  /** One round trip (`search-candidates`) instead of search-dense and search-sparse, then score-dense. */
  async searchCandidates({ vector, sparse, search }: CandidateSearch): Promise<CandidateHits> {
    const reply = await this.call(SUBJECTS.vectorIndex.searchCandidates, { vector: encodeDenseVector(vector), sparse, search }, VectorCandidatesReplySchema);
    return { dense: reply.dense, sparse: reply.sparse, cosines: new Map(reply.cosines) };
  }

  async delete(tenant: string, ids: readonly string[]): Promise<void> {
    await this.call(SUBJECTS.vectorIndex.delete, { tenant, ids }, VectorAckReplySchema);
  }

  async deleteTenant(tenant: string): Promise<void> {
    await this.call(SUBJECTS.vectorIndex.deleteTenant, { tenant }, VectorAckReplySchema);
  }

  async compact(): Promise<void> {
    await this.call(SUBJECTS.vectorIndex.compact, {}, VectorAckReplySchema);
  }

  async count(tenant: string): Promise<number> {
    return (await this.call(SUBJECTS.vectorIndex.count, { tenant }, VectorCountReplySchema)).count;
  }

  async close(): Promise<void> {
    // the service owns the index; nothing to release here
  }
}

import { MessagePattern, Payload } from '@nestjs/microservices';
import { BusEdge } from '@agent-memory/platform';
import { decodeDenseVector, SUBJECTS } from '@agent-memory/shared';
import { SharedEmbeddedIndex } from './shared-embedded-index';
import {
  VectorIndexCompactMessage,
  VectorIndexDeleteMessage,
  VectorIndexOpenMessage,
  VectorIndexScoreDenseMessage,
  VectorIndexSearchCandidatesMessage,
  VectorIndexSearchDenseMessage,
  VectorIndexSearchSparseMessage,
  VectorIndexTenantMessage,
  VectorIndexUpsertMessage,
} from './vector-index.messages';

const OK = { ok: true } as const;

/**
 * Bus edge of the `vector-index` service: one thin method per subject of `SUBJECTS.vectorIndex`, each
 * receiving a message validated by its message class and calling the shared embedded index (the
 * service has no use cases: it is the vector index port served over the bus; docs/architecture.md,
 * "Service shape"). Dense vectors arrive base64-encoded and are decoded here.
 */
@BusEdge()
export class VectorIndexMessageHandler {
  constructor(private readonly shared: SharedEmbeddedIndex) {}

  @MessagePattern(SUBJECTS.vectorIndex.open)
  async open(@Payload() m: VectorIndexOpenMessage) {
    await this.shared.open(m);
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.upsert)
  async upsert(@Payload() m: VectorIndexUpsertMessage) {
    await (await this.shared.ready()).upsert(m.points.map((p) => ({ ...p, dense: decodeDenseVector(p.dense) })));
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.searchDense)
  async searchDense(@Payload() m: VectorIndexSearchDenseMessage) {
    return (await this.shared.ready()).searchDense(decodeDenseVector(m.vector), m.search);
  }

  @MessagePattern(SUBJECTS.vectorIndex.searchSparse)
  async searchSparse(@Payload() m: VectorIndexSearchSparseMessage) {
    return (await this.shared.ready()).searchSparse(m.query, m.search);
  }

  @MessagePattern(SUBJECTS.vectorIndex.scoreDense)
  async scoreDense(@Payload() m: VectorIndexScoreDenseMessage) {
    return [...(await (await this.shared.ready()).scoreDense(decodeDenseVector(m.vector), m.tenant, m.ids))];
  }

  @MessagePattern(SUBJECTS.vectorIndex.searchCandidates)
  async searchCandidates(@Payload() m: VectorIndexSearchCandidatesMessage) {
    const found = await (await this.shared.ready()).searchCandidates({ vector: decodeDenseVector(m.vector), sparse: m.sparse, search: m.search });
    return { dense: found.dense, sparse: found.sparse, cosines: [...found.cosines] };
  }

  @MessagePattern(SUBJECTS.vectorIndex.delete)
  async delete(@Payload() m: VectorIndexDeleteMessage) {
    await (await this.shared.ready()).delete(m.tenant, m.ids);
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.deleteTenant)
  async deleteTenant(@Payload() m: VectorIndexTenantMessage) {
    await (await this.shared.ready()).deleteTenant(m.tenant);
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.compact)
  // the payload is declared even though unused: a handler without one gets the raw message through the
  // edge's validation pipe, which refuses an undeclared payload
  async compact(@Payload() _m: VectorIndexCompactMessage) {
    await (await this.shared.ready()).compact();
    return OK;
  }

  @MessagePattern(SUBJECTS.vectorIndex.count)
  async count(@Payload() m: VectorIndexTenantMessage) {
    return { count: await (await this.shared.ready()).count(m.tenant) };
  }
}

import { messageClass } from '@agent-memory/platform';
import {
  VectorIndexCompactSchema,
  VectorIndexDeleteSchema,
  VectorIndexOpenSchema,
  VectorIndexScoreDenseSchema,
  VectorIndexSearchCandidatesSchema,
  VectorIndexSearchDenseSchema,
  VectorIndexSearchSparseSchema,
  VectorIndexTenantSchema,
  VectorIndexUpsertSchema,
} from '@agent-memory/shared';

// Messages of the `vector-index` service (`vector-index.v1.*`, docs/architecture.md "Bus subjects").
// Dense vectors travel as base64 of their float32 bytes (`encodeDenseVector`).

/** `vector-index.v1.open`: `{ embedderId, dimension }`, the descriptor of the memory replica's embedder. */
export class VectorIndexOpenMessage extends messageClass(VectorIndexOpenSchema) {}
/** `vector-index.v1.upsert`: `{ points }`, at most 1,000 points (id, tenant, dense, sparse, payload). */
export class VectorIndexUpsertMessage extends messageClass(VectorIndexUpsertSchema) {}
/** `vector-index.v1.search-dense`: `{ vector, search }`. */
export class VectorIndexSearchDenseMessage extends messageClass(VectorIndexSearchDenseSchema) {}
/** `vector-index.v1.search-sparse`: `{ query: { indices, values }, search }`. */
export class VectorIndexSearchSparseMessage extends messageClass(VectorIndexSearchSparseSchema) {}
/** `vector-index.v1.score-dense`: `{ vector, tenant, ids }`, at most 10,000 ids. */
export class VectorIndexScoreDenseMessage extends messageClass(VectorIndexScoreDenseSchema) {}
/** `vector-index.v1.search-candidates`: `{ vector, sparse: { indices, values }, search }` (one hybrid recall's candidates). */
export class VectorIndexSearchCandidatesMessage extends messageClass(VectorIndexSearchCandidatesSchema) {}
/** `vector-index.v1.delete`: `{ tenant, ids }`, at most 10,000 ids. */
export class VectorIndexDeleteMessage extends messageClass(VectorIndexDeleteSchema) {}
/** `vector-index.v1.compact`: `{}` (nothing: every tenant's log is rewritten). */
export class VectorIndexCompactMessage extends messageClass(VectorIndexCompactSchema) {}
/** `vector-index.v1.delete-tenant` and `vector-index.v1.count`: `{ tenant }`. */
export class VectorIndexTenantMessage extends messageClass(VectorIndexTenantSchema) {}

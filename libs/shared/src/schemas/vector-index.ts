import { z } from 'zod';
import { MemoryTypeSchema } from './common';

/**
 * Bus contracts of the `vector-index` service: the embedded vector index served to the memory replicas
 * over NATS in cluster mode when no Qdrant is configured (docs/architecture.md, "Processes"), so that every memory replica and
 * the memory worker see one index. Dense vectors travel as base64 of little-endian float32 bytes.
 */
export const DenseVectorWireSchema = z.string().max(200_000);
export const SparseVectorWireSchema = z.object({ indices: z.array(z.number().int().nonnegative()), values: z.array(z.number()) });
export const TenantSchema = z.string().min(1).max(64);

export const VectorIndexOpenSchema = z.object({ embedderId: z.string().min(1).max(256), dimension: z.number().int().min(1).max(8192) });
export const VectorPointWireSchema = z.object({
  id: z.string().min(1).max(64),
  tenant: TenantSchema,
  dense: DenseVectorWireSchema,
  sparse: SparseVectorWireSchema,
  payload: z.object({ type: MemoryTypeSchema }),
});
export const VectorIndexUpsertSchema = z.object({ points: z.array(VectorPointWireSchema).max(1000) });
export const VectorSearchWireSchema = z.object({
  tenant: TenantSchema,
  limit: z.number().int().min(1).max(10_000),
  types: z.array(MemoryTypeSchema).optional(),
});
export const VectorIndexSearchDenseSchema = z.object({ vector: DenseVectorWireSchema, search: VectorSearchWireSchema });
export const VectorIndexSearchSparseSchema = z.object({ query: SparseVectorWireSchema, search: VectorSearchWireSchema });
export const VectorIndexScoreDenseSchema = z.object({ vector: DenseVectorWireSchema, tenant: TenantSchema, ids: z.array(z.string().min(1).max(64)).max(10_000) });
/** `search-candidates`: a hybrid recall's dense and sparse queries (the sparse one may have no terms). */
export const VectorIndexSearchCandidatesSchema = z.object({ vector: DenseVectorWireSchema, sparse: SparseVectorWireSchema, search: VectorSearchWireSchema });
export const VectorIndexDeleteSchema = z.object({ tenant: TenantSchema, ids: z.array(z.string().min(1).max(64)).max(10_000) });
export const VectorIndexTenantSchema = z.object({ tenant: TenantSchema });
/** `compact` carries nothing (the client sends `{}`). */
export const VectorIndexCompactSchema = z.object({});

export const VectorHitsReplySchema = z.array(z.object({ id: z.string(), score: z.number() }));
export const VectorScoresReplySchema = z.array(z.tuple([z.string(), z.number()]));
/** The reply of `search-candidates`: dense and sparse hits, and the cosines of the sparse-only hits as [id, cosine] pairs. */
export const VectorCandidatesReplySchema = z.object({ dense: VectorHitsReplySchema, sparse: VectorHitsReplySchema, cosines: VectorScoresReplySchema });
export const VectorCountReplySchema = z.object({ count: z.number().int().nonnegative() });
export const VectorAckReplySchema = z.object({ ok: z.literal(true) });

/** Encodes a float32 vector for the wire (base64 of its bytes). */
export function encodeDenseVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

/** Decodes {@link encodeDenseVector}; throws on a byte length that is not a multiple of 4. */
export function decodeDenseVector(s: string): Float32Array {
  const bytes = Buffer.from(s, 'base64');
  if (bytes.byteLength % 4 !== 0) throw new Error('dense vector: byte length is not a multiple of 4');
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

import { createHash } from 'node:crypto';
import type { Schemas } from '@qdrant/js-client-rest';
import { checkDescriptor, checkTenant } from './port-input';
import type { IndexDescriptor } from './vector-index.port';

// The layout of the Qdrant adapter's data (qdrant.vector-index.ts): vector and payload names, collection
// names, point ids, the tenant filter every request carries, and the check of an existing collection.

/** Name of the dense (cosine) vector of every point. */
export const DENSE_VECTOR = 'dense';
/** Name of the sparse vector holding the BM25 document weights of the keyword terms. */
export const KEYWORD_VECTOR = 'keywords';
/** Payload field of the tenant (the record id); keyword index with `is_tenant: true`. */
export const TENANT_FIELD = 'record_id';
/** Payload field holding the memory id (point ids are UUIDs derived from tenant and memory id). */
export const MEMORY_ID_FIELD = 'memory_id';
/** Payload field of the memory type; keyword index, filtered by `VectorSearch.types`. */
export const TYPE_FIELD = 'type';
/** Default collection prefix: collections are `memories__<embedder>__<dimension>`. */
export const DEFAULT_COLLECTION_PREFIX = 'memories';
type Condition = Schemas['Condition'];
type Filter = Schemas['Filter'];

/** Fixed namespace of the point-id UUIDs (RFC 9562 §5.5, name-based with SHA-1); never change it. */
const POINT_ID_NAMESPACE = Buffer.from('6f1d3c2a9b7e4d5f8a0c1e2b3d4f5a6b', 'hex');

/**
 * Collection name of an embedder: `<prefix>__<sanitised embedderId>-<8 hex of sha256(embedderId)>__<dimension>`.
 * The sanitised id (characters outside `[A-Za-z0-9_-]` become `_`, at most 100 kept) keeps the name
 * readable; the hash keeps two ids that sanitise alike (`a/b`, `a:b`) apart. Throws on a bad prefix or
 * descriptor. One collection per embedder, named by its model and dimension (docs/configuration.md).
 */
export function qdrantCollectionName(prefix: string, descriptor: IndexDescriptor): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix)) throw new Error(`Qdrant collection prefix must match [A-Za-z0-9_-]{1,64}, got ${JSON.stringify(prefix)}`);
  checkDescriptor(descriptor);
  const sanitised = descriptor.embedderId.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 100);
  const hash = createHash('sha256').update(descriptor.embedderId, 'utf8').digest('hex').slice(0, 8);
  return `${prefix}__${sanitised}-${hash}__${descriptor.dimension}`;
}

/**
 * Qdrant point id of a memory: a version-5 (SHA-1, name-based) UUID of `tenant + NUL + memoryId` in a fixed
 * namespace. Qdrant accepts only UUIDs or unsigned integers as ids; the memory id itself is kept in the
 * payload. The tenant is part of the name because the port lets two tenants hold the same point id
 * (vector-index.contract.ts, "keeps tenants apart ... even for the same point id"). Deterministic: the same
 * pair always gives the same UUID, so an upsert replaces and a delete finds the point.
 */
export function qdrantPointId(tenant: string, memoryId: string): string {
  const digest = createHash('sha1').update(POINT_ID_NAMESPACE).update(`${tenant}\u0000${memoryId}`, 'utf8').digest();
  const bytes = digest.subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The filter of every request: `must` the tenant (payload `record_id`), plus `extra` conditions.
 * Payload-based multitenancy (Qdrant docs, "Configure Multitenancy"): no request may go without it.
 */
export function tenantFilter(tenant: string, ...extra: Condition[]): Filter {
  checkTenant(tenant);
  return { must: [{ key: TENANT_FIELD, match: { value: tenant } }, ...extra] };
}

/** What is wrong with an existing collection for `descriptor`, or null when it fits. */
export function collectionMismatch(info: Schemas['CollectionInfo'], descriptor: IndexDescriptor): string | null {
  const vectors = info.config.params.vectors;
  if (!vectors || typeof (vectors as { size?: unknown }).size === 'number') return `it has no named "${DENSE_VECTOR}" vector`;
  const dense = (vectors as Record<string, Schemas['VectorParams'] | undefined>)[DENSE_VECTOR];
  if (!dense) return `it has no named "${DENSE_VECTOR}" vector`;
  if (dense.size !== descriptor.dimension || dense.distance !== 'Cosine') return `its "${DENSE_VECTOR}" vector has size ${dense.size} and distance ${dense.distance}`;
  const sparse = info.config.params.sparse_vectors?.[KEYWORD_VECTOR];
  if (!sparse) return `it has no sparse "${KEYWORD_VECTOR}" vector`;
  if (sparse.modifier !== 'idf') return `its sparse "${KEYWORD_VECTOR}" vector has modifier ${JSON.stringify(sparse.modifier ?? 'none')}`;
  return null;
}

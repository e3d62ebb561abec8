import { createHash } from 'node:crypto';
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { DEFAULT_BM25, type Bm25Parameters } from './bm25';
import type { IndexDescriptor, SparseVector, VectorHit, VectorIndex, VectorPoint, VectorSearch } from './vector-index.port';

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
/**
 * Assumed average document length (sum of term frequencies) of BM25 length normalisation. Qdrant keeps no
 * per-tenant length statistics, so the document weights are computed client-side against this constant.
 * 14 is the measured mean over the 5,882 LoCoMo turns with the service's keyword encoder (median 12).
 */
export const DEFAULT_AVG_DOC_LENGTH = 14;

/** BM25 parameters of the Qdrant adapter: the embedded index's k1 and b plus the assumed average length. */
export interface QdrantBm25Parameters extends Bm25Parameters {
  avgDocLength: number;
}

/** The calls of `QdrantClient` this adapter makes; a seam for unit tests that record the requests. */
export type QdrantIndexClient = Pick<
  QdrantClient,
  'collectionExists' | 'createCollection' | 'getCollection' | 'createPayloadIndex' | 'upsert' | 'query' | 'delete' | 'count'
>;

/** Options of {@link QdrantVectorIndex}. Give `url` (and `apiKey`) or a ready `client`. */
export interface QdrantVectorIndexOptions {
  /** Qdrant REST URL, e.g. `http://qdrant:6333` (env `QDRANT_URL`). */
  url?: string;
  /** Sent as the `api-key` header (env `QDRANT_API_KEY`). */
  apiKey?: string;
  /** A client to use instead of one built from `url`. */
  client?: QdrantIndexClient;
  /** Prefix of the collection names; `[A-Za-z0-9_-]{1,64}`. Default {@link DEFAULT_COLLECTION_PREFIX}. */
  collectionPrefix?: string;
  /**
   * A fixed collection name instead of one derived from prefix and embedder. Such a collection is checked
   * by vector size and distance only (its name carries no embedder), so prefer the derived names.
   */
  collection?: string;
  /** BM25 document weighting; default {@link DEFAULT_BM25} and {@link DEFAULT_AVG_DOC_LENGTH}. */
  bm25?: Partial<QdrantBm25Parameters>;
  /** Request timeout of a client built from `url`, in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Points per upsert request. Default 256. */
  upsertBatchSize?: number;
}

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
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
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

/**
 * BM25 document weights of a point's terms, so that Qdrant's `idf` modifier completes the BM25 score:
 * weight = tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)), dl = Σ tf. Duplicate term ids are merged, terms with
 * tf ≤ 0 dropped, ids sorted. Same k1 and b as the embedded index (embedded.vector-index.ts, DEFAULT_BM25).
 */
export function bm25DocumentWeights(sparse: SparseVector, params: QdrantBm25Parameters): SparseVector {
  const merged = mergeTerms(sparse);
  let length = 0;
  for (const tf of merged.values) length += tf;
  const norm = params.k1 * (1 - params.b + (params.b * length) / params.avgDocLength);
  return { indices: merged.indices, values: merged.values.map((tf) => (tf * (params.k1 + 1)) / (tf + norm)) };
}

/** Merges duplicate term ids (summing values), drops values ≤ 0, sorts by id. */
export function mergeTerms(sparse: SparseVector): SparseVector {
  checkSparse(sparse);
  const merged = new Map<number, number>();
  sparse.indices.forEach((index, j) => {
    const value = sparse.values[j]!;
    if (value > 0) merged.set(index, (merged.get(index) ?? 0) + value);
  });
  const indices = [...merged.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => merged.get(index)!) };
}

/**
 * Cluster adapter of {@link VectorIndex} on Qdrant (docs/architecture.md, "Ports and adapters"), over `@qdrant/js-client-rest`.
 *
 * - One collection per embedder ({@link qdrantCollectionName}), created by `open` if missing, with a named
 *   dense vector `dense` (size = dimension, Cosine) and a named sparse vector `keywords` with
 *   `modifier: idf`; HNSW `m: 0, payload_m: 16`, so that Qdrant builds per-tenant graphs only (every query
 *   filters by tenant). Payload indexes: `record_id` keyword with `is_tenant: true`, `type` keyword.
 *   `open` tolerates a concurrent creator (409) and throws a clear error if the existing collection's
 *   vectors do not fit the descriptor. Needs Qdrant ≥ 1.11 (`is_tenant`; query API and idf since 1.10).
 * - Multitenancy by payload: every query, count and delete carries a `must` condition on `record_id`
 *   ({@link tenantFilter}). Point ids are UUIDs ({@link qdrantPointId}); hits return the payload `memory_id`.
 * - Writes use `wait: true`: a resolved upsert or delete is applied and visible to searches.
 * - Dense scores are Qdrant's cosine similarity (it normalises vectors on upsert and queries).
 * - Sparse scores: Qdrant computes Σ_query terms w_q · IDF · w_d with IDF = ln(1 + (N − n + 0.5)/(n + 0.5)),
 *   the same form as the embedded index, and w_d = {@link bm25DocumentWeights}. Differences from the
 *   embedded BM25: (1) N and n count the whole collection (all tenants), not the tenant, so a term common in
 *   other records weighs less here; (2) length normalisation uses a fixed average length (option
 *   `bm25.avgDocLength`, default {@link DEFAULT_AVG_DOC_LENGTH}) instead of the tenant's live average;
 *   (3) k1, b and avgdl are baked into the stored weights, so changing them needs a re-index (the embedded
 *   index applies them at query time). Rankings within a tenant therefore match closely but not exactly.
 * - `compact()` does nothing: Qdrant deletes are final (its optimiser drops deleted points from segments;
 *   nothing of them is readable through the API once the delete returns).
 *
 * Errors: methods other than `open`/`close` throw before `open`; `upsert`, `searchDense` and `scoreDense`
 * throw on a vector of the wrong dimension (before any request); Qdrant and network errors propagate.
 */
export class QdrantVectorIndex implements VectorIndex {
  private readonly client: QdrantIndexClient;
  private readonly prefix: string;
  private readonly fixedCollection?: string;
  private readonly bm25: QdrantBm25Parameters;
  private readonly batchSize: number;
  private descriptor: IndexDescriptor | null = null;
  private collection = '';

  constructor(options: QdrantVectorIndexOptions) {
    if (options.client) this.client = options.client;
    else if (options.url) {
      this.client = new QdrantClient({ url: options.url, apiKey: options.apiKey, timeout: options.timeoutMs ?? 30_000, checkCompatibility: false });
    } else throw new Error('QdrantVectorIndex needs a url or a client');
    this.prefix = options.collectionPrefix ?? DEFAULT_COLLECTION_PREFIX;
    this.fixedCollection = options.collection;
    if (this.fixedCollection !== undefined && !/^[A-Za-z0-9_-]{1,255}$/.test(this.fixedCollection)) {
      throw new Error(`Qdrant collection name must match [A-Za-z0-9_-]{1,255}, got ${JSON.stringify(this.fixedCollection)}`);
    }
    // Validates the prefix at construction, not at first open.
    qdrantCollectionName(this.prefix, { embedderId: 'x', dimension: 1 });
    this.bm25 = {
      k1: options.bm25?.k1 ?? DEFAULT_BM25.k1,
      b: options.bm25?.b ?? DEFAULT_BM25.b,
      avgDocLength: options.bm25?.avgDocLength ?? DEFAULT_AVG_DOC_LENGTH,
    };
    if (!(this.bm25.k1 >= 0) || !(this.bm25.b >= 0 && this.bm25.b <= 1) || !(this.bm25.avgDocLength > 0)) {
      throw new Error(`invalid BM25 parameters ${JSON.stringify(this.bm25)}`);
    }
    this.batchSize = Math.max(1, Math.floor(options.upsertBatchSize ?? 256));
  }

  /** The collection in use (after `open`). */
  get collectionName(): string {
    this.assertOpen();
    return this.collection;
  }

  async open(descriptor: IndexDescriptor): Promise<void> {
    checkDescriptor(descriptor);
    if (this.descriptor) {
      if (this.descriptor.embedderId === descriptor.embedderId && this.descriptor.dimension === descriptor.dimension) return;
      throw new Error(
        `Qdrant vector index is open for embedder "${this.descriptor.embedderId}" (${this.descriptor.dimension} dimensions); ` +
          `refusing to use it for "${descriptor.embedderId}" (${descriptor.dimension} dimensions)`,
      );
    }
    const name = this.fixedCollection ?? qdrantCollectionName(this.prefix, descriptor);
    await this.ensureCollection(name, descriptor);
    this.collection = name;
    this.descriptor = descriptor;
  }

  async upsert(points: readonly VectorPoint[]): Promise<void> {
    const dim = this.assertOpen().dimension;
    // Validate every point before the first request: a bad batch writes nothing.
    const structs: Schemas['PointStruct'][] = points.map((point) => {
      checkTenant(point?.tenant);
      checkId(point.id);
      if (!(point.dense instanceof Float32Array) || point.dense.length !== dim) {
        throw new Error(`point ${point.id}: dense vector has ${point.dense?.length} dimensions, the index has ${dim}`);
      }
      if (typeof point.payload?.type !== 'string' || point.payload.type.length === 0) throw new Error(`point ${point.id}: payload.type must be a non-empty string`);
      const keywords = bm25DocumentWeights(point.sparse, this.bm25);
      const vector: Record<string, number[] | Schemas['SparseVector']> = { [DENSE_VECTOR]: Array.from(point.dense) };
      // A point without terms simply has no sparse vector (and never matches a keyword search).
      if (keywords.indices.length > 0) vector[KEYWORD_VECTOR] = keywords;
      return {
        id: qdrantPointId(point.tenant, point.id),
        vector,
        payload: { [TENANT_FIELD]: point.tenant, [MEMORY_ID_FIELD]: point.id, [TYPE_FIELD]: point.payload.type },
      };
    });
    for (let i = 0; i < structs.length; i += this.batchSize) {
      await this.client.upsert(this.collection, { wait: true, points: structs.slice(i, i + this.batchSize) });
    }
  }

  async searchDense(vector: Float32Array, search: VectorSearch): Promise<VectorHit[]> {
    this.checkQueryVector(vector);
    const request = this.searchRequest(search);
    if (!request) return [];
    return this.hits(await this.client.query(this.collection, { ...request, query: Array.from(vector), using: DENSE_VECTOR }));
  }

  async searchSparse(query: SparseVector, search: VectorSearch): Promise<VectorHit[]> {
    this.assertOpen();
    const terms = mergeTerms(query);
    const request = this.searchRequest(search);
    if (!request || terms.indices.length === 0) return [];
    const hits = this.hits(await this.client.query(this.collection, { ...request, query: terms, using: KEYWORD_VECTOR }));
    return hits.filter((hit) => hit.score > 0);
  }

  async scoreDense(vector: Float32Array, tenant: string, ids: readonly string[]): Promise<Map<string, number>> {
    this.checkQueryVector(vector);
    const unique = [...new Set(ids)];
    unique.forEach(checkId);
    const scores = new Map<string, number>();
    if (unique.length === 0) return scores;
    const response = await this.client.query(this.collection, {
      query: Array.from(vector),
      using: DENSE_VECTOR,
      filter: tenantFilter(tenant, { has_id: unique.map((id) => qdrantPointId(tenant, id)) }),
      limit: unique.length,
      // Exact: every listed point must be scored, not only those an HNSW walk reaches.
      params: { exact: true },
      with_payload: [MEMORY_ID_FIELD],
    });
    for (const hit of this.hits(response)) scores.set(hit.id, hit.score);
    return scores;
  }

  async delete(tenant: string, ids: readonly string[]): Promise<void> {
    this.assertOpen();
    checkTenant(tenant);
    const unique = [...new Set(ids)];
    unique.forEach(checkId);
    if (unique.length === 0) return;
    await this.client.delete(this.collection, { wait: true, filter: tenantFilter(tenant, { has_id: unique.map((id) => qdrantPointId(tenant, id)) }) });
  }

  async deleteTenant(tenant: string): Promise<void> {
    this.assertOpen();
    await this.client.delete(this.collection, { wait: true, filter: tenantFilter(tenant) });
  }

  /** Nothing to do: a Qdrant delete is final once it returns (see the class docs). */
  async compact(): Promise<void> {
    this.assertOpen();
  }

  async count(tenant: string): Promise<number> {
    this.assertOpen();
    const { count } = await this.client.count(this.collection, { filter: tenantFilter(tenant), exact: true });
    return count;
  }

  /** Forgets the descriptor; the REST client holds no resources that need closing. */
  async close(): Promise<void> {
    this.descriptor = null;
    this.collection = '';
  }

  // ---------------------------------------------------------------- collection set-up

  /** Creates the collection and payload indexes if missing; checks an existing collection's vectors. */
  private async ensureCollection(name: string, descriptor: IndexDescriptor): Promise<void> {
    const { exists } = await this.client.collectionExists(name);
    if (!exists) {
      try {
        await this.client.createCollection(name, {
          vectors: { [DENSE_VECTOR]: { size: descriptor.dimension, distance: 'Cosine' } },
          sparse_vectors: { [KEYWORD_VECTOR]: { modifier: 'idf' } },
          hnsw_config: { m: 0, payload_m: 16 },
        });
      } catch (error) {
        // Another replica created it between our check and our create (409 Conflict; older servers answer 400).
        if (httpStatus(error) !== 409 && !(await this.client.collectionExists(name)).exists) throw error;
      }
    }
    const info = await this.client.getCollection(name);
    const problem = collectionMismatch(info, descriptor);
    if (problem) {
      throw new Error(
        `Qdrant collection "${name}" does not fit embedder "${descriptor.embedderId}" (${descriptor.dimension} dimensions, Cosine, ` +
          `sparse "${KEYWORD_VECTOR}" with idf): ${problem}. Use another collection prefix or re-embed into a new collection.`,
      );
    }
    const indexes: Array<[string, Schemas['PayloadFieldSchema']]> = [
      [TENANT_FIELD, { type: 'keyword', is_tenant: true }],
      [TYPE_FIELD, 'keyword'],
    ];
    for (const [field, schema] of indexes) {
      // Creating an existing index would rebuild it; skip those already there.
      if (info.payload_schema?.[field]) continue;
      await this.client.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true });
    }
  }

  // ---------------------------------------------------------------- helpers

  /** Shared part of a tenant search; null when the search can have no hit (limit ≤ 0, empty type list). */
  private searchRequest(search: VectorSearch): { filter: Filter; limit: number; with_payload: string[] } | null {
    checkTenant(search?.tenant);
    if (typeof search.limit !== 'number' || Number.isNaN(search.limit)) throw new Error('search limit must be a number');
    const limit = Math.floor(search.limit);
    if (limit <= 0) return null;
    if (search.types !== undefined && search.types.length === 0) return null;
    const filter =
      search.types === undefined ? tenantFilter(search.tenant) : tenantFilter(search.tenant, { key: TYPE_FIELD, match: { any: [...search.types] } });
    return { filter, limit, with_payload: [MEMORY_ID_FIELD] };
  }

  /** Hits with memory ids from the payload, in Qdrant's order (best first). */
  private hits(response: Schemas['QueryResponse']): VectorHit[] {
    return response.points.map((point) => {
      const id = point.payload?.[MEMORY_ID_FIELD];
      if (typeof id !== 'string') throw new Error(`Qdrant point ${String(point.id)} in ${this.collection} has no ${MEMORY_ID_FIELD} payload`);
      return { id, score: point.score };
    });
  }

  private checkQueryVector(vector: Float32Array): void {
    const dim = this.assertOpen().dimension;
    if (!(vector instanceof Float32Array) || vector.length !== dim) throw new Error(`query vector has ${vector?.length} dimensions, the index has ${dim}`);
  }

  private assertOpen(): IndexDescriptor {
    if (!this.descriptor) throw new Error('Qdrant vector index is not open');
    return this.descriptor;
  }
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

function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function checkDescriptor(descriptor: IndexDescriptor): void {
  if (!descriptor || typeof descriptor.embedderId !== 'string' || descriptor.embedderId.length === 0) throw new Error('index descriptor needs a non-empty embedderId');
  if (!Number.isInteger(descriptor.dimension) || descriptor.dimension <= 0) {
    throw new Error(`index descriptor dimension must be a positive integer, got ${descriptor.dimension}`);
  }
}

function checkTenant(tenant: string): void {
  if (typeof tenant !== 'string' || tenant.length === 0) throw new Error('tenant must be a non-empty string');
}

function checkId(id: string): void {
  if (typeof id !== 'string' || id.length === 0) throw new Error('point id must be a non-empty string');
}

function checkSparse(sparse: SparseVector): void {
  if (!sparse || !Array.isArray(sparse.indices) || !Array.isArray(sparse.values) || sparse.indices.length !== sparse.values.length) {
    throw new Error('sparse vector: indices and values must be arrays of equal length');
  }
  sparse.indices.forEach((index, j) => {
    if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) throw new Error(`sparse vector: index ${index} is not an unsigned 32-bit integer`);
    if (!Number.isFinite(sparse.values[j])) throw new Error(`sparse vector: value ${sparse.values[j]} is not finite`);
  });
}

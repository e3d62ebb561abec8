import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { bm25DocumentWeights, type Bm25DocumentParameters, DEFAULT_BM25, mergeTerms } from './bm25';
import { checkDescriptor, checkId, checkSearch, checkTenant } from './port-input';
import {
  collectionMismatch,
  DEFAULT_COLLECTION_PREFIX,
  DENSE_VECTOR,
  KEYWORD_VECTOR,
  MEMORY_ID_FIELD,
  qdrantCollectionName,
  qdrantPointId,
  tenantFilter,
  TENANT_FIELD,
  TYPE_FIELD,
} from './qdrant-collection';
import { type CandidateHits, type CandidateSearch, type IndexDescriptor, searchCandidatesViaPort, type SparseVector, type VectorHit, type VectorIndex, type VectorPoint, type VectorSearch } from './vector-index.port';

/**
 * Assumed average document length (sum of term frequencies) of BM25 length normalisation. Qdrant keeps no
 * per-tenant length statistics, so the document weights are computed client-side against this constant.
 * 14 is the measured mean over the 5,882 LoCoMo turns with the service's keyword encoder (median 12).
 */
export const DEFAULT_AVG_DOC_LENGTH = 14;

/** BM25 parameters of the Qdrant adapter: the embedded index's k1 and b plus the assumed average length. */
export type QdrantBm25Parameters = Bm25DocumentParameters;

export { bm25DocumentWeights, mergeTerms } from './bm25';
/** The collection layout (names, point ids, payload fields, tenant filter), for the adapter's importers. */
export * from './qdrant-collection';

type Filter = Schemas['Filter'];

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
  /** Request timeout of a client built from `url`, in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Points per upsert request. Default 256. */
  upsertBatchSize?: number;
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
 *   other records weighs less here; (2) length normalisation uses a fixed average length
 *   ({@link DEFAULT_AVG_DOC_LENGTH}) instead of the tenant's live average; (3) k1, b ({@link DEFAULT_BM25})
 *   and avgdl are baked into the stored weights, so changing them needs a re-index. Rankings within a tenant therefore match closely but not exactly.
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
  private readonly bm25: QdrantBm25Parameters = { ...DEFAULT_BM25, avgDocLength: DEFAULT_AVG_DOC_LENGTH };
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

  searchCandidates(request: CandidateSearch): Promise<CandidateHits> {
    return searchCandidatesViaPort(this, request);
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
    checkSearch(search);
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

function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

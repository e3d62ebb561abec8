import type { Schemas } from '@qdrant/js-client-rest';
import { DEFAULT_BM25 } from './bm25';
import { encodeKeywords, encodeQuery } from '../recall/keyword-encoder';
import {
  bm25DocumentWeights,
  DEFAULT_AVG_DOC_LENGTH,
  mergeTerms,
  qdrantCollectionName,
  type QdrantIndexClient,
  qdrantPointId,
  QdrantVectorIndex,
  tenantFilter,
} from './qdrant.vector-index';

/** A recorded client call: method name and its arguments. */
interface Call {
  method: string;
  collection: string;
  args: Record<string, unknown> | undefined;
}

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A collection description as Qdrant returns it, for a fitting or a given vector config. */
function collectionInfo(dense: { size: number; distance: Schemas['Distance'] }, withIndexes = false): Schemas['CollectionInfo'] {
  return {
    status: 'green',
    optimizer_status: 'ok',
    segments_count: 1,
    config: {
      params: { vectors: { dense }, sparse_vectors: { keywords: { modifier: 'idf' } } },
    } as unknown as Schemas['CollectionConfig'],
    payload_schema: withIndexes
      ? { record_id: { data_type: 'keyword', points: 0 }, type: { data_type: 'keyword', points: 0 } }
      : {},
  };
}

/**
 * Unit fake of the Qdrant client (the real one runs in qdrant.vector-index.int-spec.ts when QDRANT_URL is
 * set): records every call and answers from `responses`.
 */
function fakeClient(options: { exists?: boolean; info?: Schemas['CollectionInfo']; createError?: unknown; existsAfterError?: boolean; points?: Schemas['ScoredPoint'][] } = {}) {
  const calls: Call[] = [];
  let existsCalls = 0;
  const record = (method: string) => async (collection: string, args?: Record<string, unknown>) => {
    calls.push({ method, collection, args });
    switch (method) {
      case 'collectionExists':
        existsCalls++;
        return { exists: existsCalls === 1 ? (options.exists ?? false) : (options.existsAfterError ?? false) };
      case 'createCollection':
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the fake throws what the case hands it (a REST error object)
        if (options.createError) throw options.createError;
        return true;
      case 'getCollection':
        return options.info ?? collectionInfo({ size: 4, distance: 'Cosine' });
      case 'query':
        return { points: options.points ?? [] };
      case 'count':
        return { count: 7 };
      default:
        return { operation_id: 1, status: 'completed' };
    }
  };
  const client = {
    collectionExists: record('collectionExists'),
    createCollection: record('createCollection'),
    getCollection: record('getCollection'),
    createPayloadIndex: record('createPayloadIndex'),
    upsert: record('upsert'),
    query: record('query'),
    delete: record('delete'),
    count: record('count'),
  } as unknown as QdrantIndexClient;
  return { client, calls };
}

const DESCRIPTOR = { embedderId: 'test-model@4', dimension: 4 };
const vec = (...xs: number[]) => Float32Array.from([...xs, 0, 0, 0, 0].slice(0, 4));

describe('qdrantCollectionName', () => {
  it('carries prefix, sanitised embedder id with a short hash, and dimension', () => {
    expect(qdrantCollectionName('memories', { embedderId: 'use-lite@512', dimension: 512 })).toMatch(/^memories__use-lite_512-[0-9a-f]{8}__512$/);
    expect(qdrantCollectionName('memories', { embedderId: 'openai:text-embedding-3-small@1536', dimension: 1536 })).toMatch(
      /^memories__openai_text-embedding-3-small_1536-[0-9a-f]{8}__1536$/,
    );
  });

  it('is stable, and keeps ids that sanitise alike apart', () => {
    const a = qdrantCollectionName('p', { embedderId: 'a/b', dimension: 8 });
    expect(qdrantCollectionName('p', { embedderId: 'a/b', dimension: 8 })).toBe(a);
    expect(qdrantCollectionName('p', { embedderId: 'a:b', dimension: 8 })).not.toBe(a);
    expect(qdrantCollectionName('p', { embedderId: 'a/b', dimension: 16 })).not.toBe(a);
  });

  it('bounds the length and refuses bad prefixes or descriptors', () => {
    expect(qdrantCollectionName('p', { embedderId: 'x'.repeat(500), dimension: 8 }).length).toBeLessThanOrEqual(255);
    expect(() => qdrantCollectionName('bad prefix', DESCRIPTOR)).toThrow(/prefix/);
    expect(() => qdrantCollectionName('', DESCRIPTOR)).toThrow(/prefix/);
    expect(() => qdrantCollectionName('p', { embedderId: '', dimension: 8 })).toThrow(/embedderId/);
    expect(() => qdrantCollectionName('p', { embedderId: 'm', dimension: 0 })).toThrow(/dimension/);
  });
});

describe('qdrantPointId', () => {
  it('is a deterministic version-5 UUID of tenant and memory id', () => {
    const id = qdrantPointId('rec_1', 'mem_1');
    expect(id).toMatch(UUID_V5);
    expect(qdrantPointId('rec_1', 'mem_1')).toBe(id);
    expect(qdrantPointId('rec_1', 'mem_2')).not.toBe(id);
    // Two tenants may hold the same memory id (port contract): distinct points.
    expect(qdrantPointId('rec_2', 'mem_1')).not.toBe(id);
    // The separator keeps ("ab","c") and ("a","bc") apart.
    expect(qdrantPointId('ab', 'c')).not.toBe(qdrantPointId('a', 'bc'));
  });

  it('gives distinct valid UUIDs for many ids', () => {
    const ids = new Set(Array.from({ length: 2000 }, (_, i) => qdrantPointId('t', `mem_${i}`)));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(UUID_V5);
  });
});

describe('BM25 document weights', () => {
  it('merges duplicate terms, drops non-positive values and sorts ids', () => {
    expect(mergeTerms({ indices: [9, 3, 9, 5], values: [1, 2, 1, 0] })).toEqual({ indices: [3, 9], values: [2, 2] });
    expect(() => mergeTerms({ indices: [1], values: [] })).toThrow();
  });

  it('applies tf saturation and length normalisation with the embedded index k1 and b', () => {
    const params = { ...DEFAULT_BM25, avgDocLength: 4 };
    const { indices, values } = bm25DocumentWeights({ indices: [1, 2], values: [1, 3] }, params);
    expect(indices).toEqual([1, 2]);
    const norm = 1.2 * (1 - 0.3 + (0.3 * 4) / 4);
    expect(values[0]).toBeCloseTo((1 * 2.2) / (1 + norm), 10);
    expect(values[1]).toBeCloseTo((3 * 2.2) / (3 + norm), 10);
    // A longer document weighs the same term frequency less.
    const long = bm25DocumentWeights({ indices: [1, 2, 3, 4, 5, 6, 7, 8], values: [1, 1, 1, 1, 1, 1, 1, 1] }, params);
    expect(long.values[0]).toBeLessThan(values[0]);
    expect(DEFAULT_AVG_DOC_LENGTH).toBe(14);
  });
});

describe('tenantFilter', () => {
  it('puts the tenant first in `must`, then the extra conditions', () => {
    expect(tenantFilter('rec_1')).toEqual({ must: [{ key: 'record_id', match: { value: 'rec_1' } }] });
    expect(tenantFilter('rec_1', { has_id: ['x'] })).toEqual({ must: [{ key: 'record_id', match: { value: 'rec_1' } }, { has_id: ['x'] }] });
    expect(() => tenantFilter('')).toThrow(/tenant/);
  });
});

describe('QdrantVectorIndex requests (fake client)', () => {
  const TENANT_MUST = { key: 'record_id', match: { value: 'rec_A' } };

  it('creates the collection with named dense + idf sparse vectors, tenant-optimised HNSW and payload indexes', async () => {
    const { client, calls } = fakeClient();
    const index = new QdrantVectorIndex({ client, collectionPrefix: 'mem' });
    await index.open(DESCRIPTOR);
    const name = qdrantCollectionName('mem', DESCRIPTOR);
    expect(index.collectionName).toBe(name);
    expect(calls.map((c) => c.method)).toEqual(['collectionExists', 'createCollection', 'getCollection', 'createPayloadIndex', 'createPayloadIndex']);
    expect(calls[1]).toEqual({
      method: 'createCollection',
      collection: name,
      args: {
        vectors: { dense: { size: 4, distance: 'Cosine' } },
        sparse_vectors: { keywords: { modifier: 'idf' } },
        hnsw_config: { m: 0, payload_m: 16 },
      },
    });
    expect(calls[3].args).toEqual({ field_name: 'record_id', field_schema: { type: 'keyword', is_tenant: true }, wait: true });
    expect(calls[4].args).toEqual({ field_name: 'type', field_schema: 'keyword', wait: true });
    // Opening again for the same descriptor is a no-op; another descriptor is refused.
    await index.open(DESCRIPTOR);
    expect(calls).toHaveLength(5);
    await expect(index.open({ embedderId: 'other@4', dimension: 4 })).rejects.toThrow(/embedder/);
  });

  it('reuses a fitting collection without creating anything', async () => {
    const { client, calls } = fakeClient({ exists: true, info: collectionInfo({ size: 4, distance: 'Cosine' }, true) });
    await new QdrantVectorIndex({ client }).open(DESCRIPTOR);
    expect(calls.map((c) => c.method)).toEqual(['collectionExists', 'getCollection']);
    expect(calls[0].collection).toMatch(/^memories__test-model_4-[0-9a-f]{8}__4$/);
  });

  it('refuses an existing collection of another size or distance with a clear error', async () => {
    const { client } = fakeClient({ exists: true, info: collectionInfo({ size: 8, distance: 'Cosine' }) });
    await expect(new QdrantVectorIndex({ client }).open(DESCRIPTOR)).rejects.toThrow(
      /does not fit embedder "test-model@4" \(4 dimensions.*size 8 and distance Cosine/,
    );
    const dot = fakeClient({ exists: true, info: collectionInfo({ size: 4, distance: 'Dot' }) });
    await expect(new QdrantVectorIndex({ client: dot.client }).open(DESCRIPTOR)).rejects.toThrow(/distance Dot/);
    const noIdf = fakeClient({ exists: true, info: { ...collectionInfo({ size: 4, distance: 'Cosine' }), config: { params: { vectors: { dense: { size: 4, distance: 'Cosine' } }, sparse_vectors: { keywords: {} } } } as never } });
    await expect(new QdrantVectorIndex({ client: noIdf.client }).open(DESCRIPTOR)).rejects.toThrow(/modifier "none"/);
    const unnamed = fakeClient({ exists: true, info: { ...collectionInfo({ size: 4, distance: 'Cosine' }), config: { params: { vectors: { size: 4, distance: 'Cosine' } } } as never } });
    await expect(new QdrantVectorIndex({ client: unnamed.client }).open(DESCRIPTOR)).rejects.toThrow(/no named "dense" vector/);
  });

  it('tolerates a concurrent creator (409) and rethrows other create errors', async () => {
    const conflict = Object.assign(new Error('Conflict'), { status: 409 });
    const raced = fakeClient({ createError: conflict });
    await new QdrantVectorIndex({ client: raced.client }).open(DESCRIPTOR);
    expect(raced.calls.map((c) => c.method)).toContain('getCollection');

    const old = fakeClient({ createError: Object.assign(new Error('Bad Request'), { status: 400 }), existsAfterError: true });
    await new QdrantVectorIndex({ client: old.client }).open(DESCRIPTOR);

    const broken = fakeClient({ createError: Object.assign(new Error('Forbidden'), { status: 403 }) });
    await expect(new QdrantVectorIndex({ client: broken.client }).open(DESCRIPTOR)).rejects.toThrow('Forbidden');
  });

  it('sends the tenant must-condition with every query, count and delete, and waits on writes', async () => {
    const { client, calls } = fakeClient({ points: [{ id: qdrantPointId('rec_A', 'mem_1'), version: 1, score: 0.5, payload: { memory_id: 'mem_1' } }] });
    const index = new QdrantVectorIndex({ client, collectionPrefix: 'mem' });
    await index.open(DESCRIPTOR);
    const setup = calls.length;

    await index.upsert([{ tenant: 'rec_A', id: 'mem_1', dense: vec(1), sparse: encodeKeywords('red kite red'), payload: { type: 'fact' } }]);
    expect(await index.searchDense(vec(1), { tenant: 'rec_A', limit: 3 })).toEqual([{ id: 'mem_1', score: 0.5 }]);
    await index.searchDense(vec(1), { tenant: 'rec_A', limit: 3, types: ['skill', 'episode'] });
    expect(await index.searchSparse(encodeQuery('kite'), { tenant: 'rec_A', limit: 3 })).toEqual([{ id: 'mem_1', score: 0.5 }]);
    expect(await index.scoreDense(vec(1), 'rec_A', ['mem_1', 'mem_2', 'mem_1'])).toEqual(new Map([['mem_1', 0.5]]));
    await index.delete('rec_A', ['mem_1', 'mem_2']);
    await index.deleteTenant('rec_A');
    expect(await index.count('rec_A')).toBe(7);
    await index.compact();

    const requests = calls.slice(setup);
    expect(requests.map((c) => c.method)).toEqual(['upsert', 'query', 'query', 'query', 'query', 'delete', 'delete', 'count']);
    for (const call of requests) expect(call.collection).toBe(index.collectionName);
    for (const call of requests.filter((c) => c.method !== 'upsert')) {
      const filter = call.args!.filter as { must: unknown[] };
      expect(filter.must[0]).toEqual(TENANT_MUST);
    }

    const [upsert, dense, typed, sparse, score, del, delTenant, count] = requests;
    const point = (upsert.args!.points as Schemas['PointStruct'][])[0];
    expect(upsert.args!.wait).toBe(true);
    expect(point.id).toBe(qdrantPointId('rec_A', 'mem_1'));
    expect(point.payload).toEqual({ record_id: 'rec_A', memory_id: 'mem_1', type: 'fact' });
    const vectors = point.vector as { dense: number[]; keywords: { indices: number[]; values: number[] } };
    expect(vectors.dense).toEqual([1, 0, 0, 0]);
    expect(vectors.keywords.indices).toHaveLength(2);
    // "red" occurs twice: its BM25 weight is above that of "kite".
    expect(Math.max(...vectors.keywords.values)).toBeGreaterThan(Math.min(...vectors.keywords.values));

    expect(dense.args).toMatchObject({ using: 'dense', limit: 3, with_payload: ['memory_id'], query: [1, 0, 0, 0] });
    expect((typed.args!.filter as { must: unknown[] }).must[1]).toEqual({ key: 'type', match: { any: ['skill', 'episode'] } });
    expect(sparse.args).toMatchObject({ using: 'keywords', query: encodeQuery('kite') });
    expect(score.args).toMatchObject({ using: 'dense', limit: 2, params: { exact: true } });
    expect((score.args!.filter as { must: unknown[] }).must[1]).toEqual({ has_id: [qdrantPointId('rec_A', 'mem_1'), qdrantPointId('rec_A', 'mem_2')] });
    expect(del.args).toEqual({
      wait: true,
      filter: { must: [TENANT_MUST, { has_id: [qdrantPointId('rec_A', 'mem_1'), qdrantPointId('rec_A', 'mem_2')] }] },
    });
    expect(delTenant.args).toEqual({ wait: true, filter: { must: [TENANT_MUST] } });
    expect(count.args).toEqual({ filter: { must: [TENANT_MUST] }, exact: true });
  });

  it('answers empty searches without a request and drops zero-score sparse hits', async () => {
    const { client, calls } = fakeClient({ points: [{ id: 'x', version: 1, score: 0, payload: { memory_id: 'zero' } }] });
    const index = new QdrantVectorIndex({ client });
    await index.open(DESCRIPTOR);
    const setup = calls.length;
    expect(await index.searchDense(vec(1), { tenant: 't', limit: 0 })).toEqual([]);
    expect(await index.searchDense(vec(1), { tenant: 't', limit: 5, types: [] })).toEqual([]);
    expect(await index.searchSparse({ indices: [], values: [] }, { tenant: 't', limit: 5 })).toEqual([]);
    expect(await index.scoreDense(vec(1), 't', [])).toEqual(new Map());
    await index.delete('t', []);
    expect(calls).toHaveLength(setup);
    expect(await index.searchSparse(encodeQuery('kite'), { tenant: 't', limit: 5 })).toEqual([]);
  });

  it('rejects wrong dimensions before any request, and everything before open', async () => {
    const { client, calls } = fakeClient();
    const index = new QdrantVectorIndex({ client });
    await expect(index.count('t')).rejects.toThrow(/not open/);
    await index.open(DESCRIPTOR);
    const setup = calls.length;
    const short = new Float32Array(3);
    await expect(
      index.upsert([
        { tenant: 't', id: 'ok', dense: vec(1), sparse: encodeKeywords('fine'), payload: { type: 'fact' } },
        { tenant: 't', id: 'bad', dense: short, sparse: encodeKeywords('bad'), payload: { type: 'fact' } },
      ]),
    ).rejects.toThrow(/3 dimensions/);
    await expect(index.searchDense(short, { tenant: 't', limit: 1 })).rejects.toThrow(/dimensions/);
    await expect(index.scoreDense(short, 't', ['ok'])).rejects.toThrow(/dimensions/);
    expect(calls).toHaveLength(setup);
  });

  it('leaves out the sparse vector of a point without terms and splits large upserts', async () => {
    const { client, calls } = fakeClient();
    const index = new QdrantVectorIndex({ client, upsertBatchSize: 2 });
    await index.open(DESCRIPTOR);
    const setup = calls.length;
    await index.upsert(Array.from({ length: 5 }, (_, i) => ({ tenant: 't', id: `m${i}`, dense: vec(1, i), sparse: { indices: [], values: [] }, payload: { type: 'fact' as const } })));
    const upserts = calls.slice(setup);
    expect(upserts.map((c) => (c.args!.points as unknown[]).length)).toEqual([2, 2, 1]);
    expect(Object.keys((upserts[0].args!.points as Schemas['PointStruct'][])[0].vector as object)).toEqual(['dense']);
  });

  it('uses a fixed collection name when given, and validates names', async () => {
    const { client, calls } = fakeClient();
    const index = new QdrantVectorIndex({ client, collection: 'my_memories' });
    await index.open(DESCRIPTOR);
    expect(calls[0].collection).toBe('my_memories');
    expect(() => new QdrantVectorIndex({ client, collection: 'bad name' })).toThrow(/collection name/);
    expect(() => new QdrantVectorIndex({ client, collectionPrefix: 'bad/prefix' })).toThrow(/prefix/);
    expect(() => new QdrantVectorIndex({})).toThrow(/url or a client/);
  });
});

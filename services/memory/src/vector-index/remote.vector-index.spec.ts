import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BusClient } from '@agent-memory/platform';
import { SUBJECTS } from '@agent-memory/shared';
import type { z } from 'zod';
import { encodeKeywords, encodeQuery } from '../recall/keyword-encoder';
import { RemoteVectorIndex } from './remote.vector-index';
import { SharedEmbeddedIndex } from './shared-embedded-index';
import { VectorIndexMessageHandler } from './vector-index.message-handler';
import { searchCandidatesViaPort } from './vector-index.port';

/** A unit vector of 8 dimensions from its first components. */
function vec(...components: number[]): Float32Array {
  const out = new Float32Array(8);
  out.set(components);
  const norm = Math.hypot(...out);
  return out.map((x) => x / norm);
}

/**
 * The memory replica's adapter against the vector-index service's bus edge, with the wire in between as
 * JSON (what NATS carries) and the replies checked by their schemas, as the bus client checks them. Each
 * request's subject is recorded.
 */
describe('RemoteVectorIndex over the vector-index bus edge', () => {
  let directory: string;
  let shared: SharedEmbeddedIndex;
  let remote: RemoteVectorIndex;
  const subjects: string[] = [];

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'remote-vector-index-'));
    shared = new SharedEmbeddedIndex({ directory });
    const handler = new VectorIndexMessageHandler(shared);
    const routes: Record<string, (m: never) => Promise<unknown>> = {
      [SUBJECTS.vectorIndex.open]: (m) => handler.open(m),
      [SUBJECTS.vectorIndex.upsert]: (m) => handler.upsert(m),
      [SUBJECTS.vectorIndex.searchDense]: (m) => handler.searchDense(m),
      [SUBJECTS.vectorIndex.searchSparse]: (m) => handler.searchSparse(m),
      [SUBJECTS.vectorIndex.scoreDense]: (m) => handler.scoreDense(m),
      [SUBJECTS.vectorIndex.searchCandidates]: (m) => handler.searchCandidates(m),
    };
    const bus = {
      async request(subject: string, payload: unknown, reply: z.ZodTypeAny) {
        subjects.push(subject);
        const answer = await routes[subject](JSON.parse(JSON.stringify(payload)) as never);
        return reply.parse(JSON.parse(JSON.stringify(answer)));
      },
    } as unknown as BusClient;
    remote = new RemoteVectorIndex(bus);
    await remote.open({ embedderId: 'remote-test@8', dimension: 8 });
    await remote.upsert([
      { tenant: 't1', id: 'a', dense: vec(1, 0), sparse: encodeKeywords('apple orchard'), payload: { type: 'fact' } },
      { tenant: 't1', id: 'b', dense: vec(0.8, 0.6), sparse: encodeKeywords('banana'), payload: { type: 'fact' } },
      { tenant: 't1', id: 'c', dense: vec(0, 1), sparse: encodeKeywords('zebra apple'), payload: { type: 'episode' } },
    ]);
  });

  afterAll(async () => {
    await shared.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("answers a hybrid recall's candidates in one round trip, equal to the three separate calls", async () => {
    const request = { vector: vec(1, 0.1), sparse: encodeQuery('zebra apple'), search: { tenant: 't1', limit: 2 } };
    subjects.length = 0;
    const found = await remote.searchCandidates(request);
    expect(subjects).toEqual([SUBJECTS.vectorIndex.searchCandidates]);
    const separate = await searchCandidatesViaPort(remote, request);
    expect(subjects.slice(1).sort()).toEqual([SUBJECTS.vectorIndex.scoreDense, SUBJECTS.vectorIndex.searchDense, SUBJECTS.vectorIndex.searchSparse].sort());
    expect(found.dense).toEqual(separate.dense);
    expect(found.sparse).toEqual(separate.sparse);
    expect([...found.cosines]).toEqual([...separate.cosines]);
    expect([...found.cosines.keys()]).toEqual(['c']);
  });

  it('keeps the type filter and a query without terms', async () => {
    const found = await remote.searchCandidates({ vector: vec(0, 1), sparse: { indices: [], values: [] }, search: { tenant: 't1', limit: 5, types: ['fact'] } });
    expect(found.dense.map((hit) => hit.id).sort()).toEqual(['a', 'b']);
    expect(found.sparse).toEqual([]);
    expect(found.cosines.size).toBe(0);
  });
});

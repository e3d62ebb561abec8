import type { EmbedOptions, Embedder } from '../embedding/embedder.port';
import { UseLiteEmbedder, type EmbeddingBatchRunner } from '../embedding/use-lite.embedder';
import type { MemoryRepository } from '../persistence/memory.repository';
import { embedDocument } from '../recall/document-embedding';
import { type CandidateSearch, searchCandidatesViaPort, type VectorIndex } from '../vector-index/vector-index.port';
import { RecallUseCase } from './recall.use-case';

/** A runner that counts the texts reaching the model (vector = [1, 0, ...]). */
function countingRunner(): EmbeddingBatchRunner & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    async run(batch) {
      texts.push(...batch);
      return batch.map(() => Array.from({ length: 512 }, (_, i) => (i === 0 ? 1 : 0)));
    },
    dispose() {},
  };
}

/** An index with nothing in it: recall then only embeds the query. */
const emptyIndex = {
  searchDense: async () => [],
  searchSparse: async () => [],
  scoreDense: async () => new Map<string, number>(),
  searchCandidates(request: CandidateSearch) {
    return searchCandidatesViaPort(this as unknown as VectorIndex, request);
  },
} as unknown as VectorIndex;
const noRows = { findMany: async () => [] } as unknown as MemoryRepository;

describe('embedding scope of recall and remember (cross-tenant cache isolation)', () => {
  it("embeds each record's query in that record's scope, so another record's identical query reaches the model", async () => {
    const runner = countingRunner();
    const embedder = new UseLiteEmbedder({ loadRunner: async () => runner, batchWindowMs: 0 });
    const scopes: (string | undefined)[] = [];
    const spy = jest.spyOn(embedder, 'embed');
    const recall = new RecallUseCase(noRows, embedder, emptyIndex);
    await recall.execute({ agentId: 'agt_alice', recordId: 'rec_alice', body: { query: 'What is the door code?', limit: 5 } });
    await recall.execute({ agentId: 'agt_bob', recordId: 'rec_bob', body: { query: 'What is the door code?', limit: 5 } });
    await recall.execute({ agentId: 'agt_alice', recordId: 'rec_alice', body: { query: 'What is the door code?', limit: 5 } });
    for (const call of spy.mock.calls) scopes.push((call[1])?.scope);
    expect(scopes).toEqual(['rec_alice', 'rec_bob', 'rec_alice']);
    // Bob's identical question was embedded by the model; Alice's repeat came from her own cache entry.
    expect(runner.texts).toEqual(['the door code', 'the door code']);
    expect(embedder.stats.cacheHits).toBe(1);
  });

  it("passes a memory's record as the scope of every chunk of its embedding, as a document", async () => {
    const calls: (EmbedOptions | undefined)[] = [];
    const embedder: Embedder = {
      id: 'fake@2',
      dimension: 2,
      embed: async (texts, options) => {
        calls.push(options);
        return texts.map(() => Float32Array.from([1, 0]));
      },
    };
    await embedDocument(embedder, 'word '.repeat(1_000), { scope: 'rec_alice' });
    expect(calls).toEqual([{ scope: 'rec_alice', purpose: 'document' }]);
  });
});

describe('recall leaves entries without a visible row out of the fusion', () => {
  it('a stale or forgotten entry that matches better does not change the scores of the others', async () => {
    const embedder: Embedder = { id: 'fake@2', dimension: 2, embed: async (texts) => texts.map(() => Float32Array.from([1, 0])) };
    const indexOf = (hits: Array<{ id: string; cos: number; bm25: number }>) =>
      ({
        searchDense: async () => hits.map((h) => ({ id: h.id, score: h.cos })),
        searchSparse: async () => hits.map((h) => ({ id: h.id, score: h.bm25 })),
        scoreDense: async () => new Map<string, number>(),
        searchCandidates(request: CandidateSearch) {
          return searchCandidatesViaPort(this as unknown as VectorIndex, request);
        },
      }) as unknown as VectorIndex;
    const row = (id: string) => ({ id, path: id, type: 'episode', summary: '' });
    const shown = { findMany: async (_r: string, ids: readonly string[]) => ids.filter((id) => id !== 'mem_stale').map(row) } as unknown as MemoryRepository;
    const body = { query: 'zorblaxian marmalade', limit: 5 };
    const alone = await new RecallUseCase(shown, embedder, indexOf([{ id: 'mem_kept', cos: 0.5, bm25: 2 }])).execute({ agentId: 'agt_1', recordId: 'rec_1', body });
    const withStale = await new RecallUseCase(shown, embedder, indexOf([{ id: 'mem_stale', cos: 0.9, bm25: 10 }, { id: 'mem_kept', cos: 0.5, bm25: 2 }])).execute({ agentId: 'agt_1', recordId: 'rec_1', body });
    expect(withStale.memories.map((m) => m.id)).toEqual(['mem_kept']);
    expect(withStale.memories[0].similarity).toBe(alone.memories[0].similarity);
  });
});

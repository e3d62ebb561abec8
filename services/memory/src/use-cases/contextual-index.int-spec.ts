import 'reflect-metadata';
import type { BlobStore } from '@agent-memory/platform';
import { newId } from '@agent-memory/shared';
import type { UseLiteEmbedder } from '../embedding/use-lite.embedder';
import { encodeQuery } from '../recall/keyword-encoder';
import type { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import type { VectorIndex } from '../vector-index/vector-index.port';
import { ContextualIndexer } from './contextual-indexer';
import { ForgetUseCase } from './forget.use-case';
import { type MemoryReplica, startMemoryReplicas } from './memory-replicas.fixture';

/**
 * Contextual indexing across two replicas of the memory service on the machine's PostgreSQL (fresh
 * database; real embedder, embedded index, filesystem blobs): forget takes back the context the forgotten
 * memory lent, also when a neighbour is written at the same moment on another replica, and a forget whose
 * re-indexing fails forgets nothing (so a crash there cannot leave the memory's words in a neighbour).
 */
describe('contextual indexing with two replicas over PostgreSQL', () => {
  let embedder: UseLiteEmbedder;
  let index: EmbeddedVectorIndex;
  let blobs: BlobStore;
  let replicas: MemoryReplica[];
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ replicas, embedder, index, blobs, close } = await startMemoryReplicas(2));
  }, 120_000);
  afterAll(() => close?.());

  const agentId = newId('agent');
  /** Made up: only M holds it. M, S and N are about one thing (neighbours lend above a cosine of 0.5). */
  const WORD = 'zorblaxian';
  const M = 'Which zorblaxian marmalade did the caterer bring to the picnic last week?';
  const S = 'The caterer brought the bitter orange marmalade to the picnic last week.';
  const N = 'The caterer also brought orange marmalade sandwiches to the picnic last week.';

  /** Ids of the record's entries that the keyword search finds for {@link WORD}. */
  async function holdersOfWord(recordId: string): Promise<string[]> {
    return (await index.searchSparse(encodeQuery(WORD), { tenant: recordId, limit: 10 })).map((h) => h.id).sort();
  }

  async function remember(replica: MemoryReplica, recordId: string, content: string, path: string): Promise<string> {
    return (await replica.remember.execute({ agentId, recordId, body: { content, path, type: 'episode' } })).result.id;
  }

  it('lends M\'s word to its successor, and a forget of M racing a new neighbour on another replica leaves it nowhere', async () => {
    for (let round = 0; round < 3; round++) {
      const recordId = newId('record');
      const m = await remember(replicas[0], recordId, M, 'm');
      const s = await remember(replicas[0], recordId, S, 's');
      expect(await holdersOfWord(recordId)).toEqual([m, s].sort());
      // N's predecessors are S and M: written while M is forgotten, it must not end up holding M's word.
      const [, n] = await Promise.all([
        replicas[0].forget.execute({ agentId, recordId, target: { path: 'm' } }),
        remember(replicas[1], recordId, N, 'n'),
      ]);
      expect(n).toBeDefined();
      expect(await holdersOfWord(recordId)).toEqual([]);
      expect(await index.count(recordId)).toBe(2);
    }
  }, 120_000);

  it('a forget whose re-indexing fails forgets nothing; done again, it leaves no trace of the word', async () => {
    const recordId = newId('record');
    const m = await remember(replicas[0], recordId, M, 'm');
    const s = await remember(replicas[0], recordId, S, 's');
    // The index refuses writes during this forget, as a crash at that point would stop it.
    const failing: VectorIndex = Object.assign(Object.create(index) as VectorIndex, { upsert: () => Promise.reject(new Error('index down')) });
    const broken = new ForgetUseCase(replicas[1].repository, replicas[1].purge, new ContextualIndexer(embedder, blobs, failing));
    await expect(broken.execute({ agentId, recordId, target: { path: 'm' } })).rejects.toThrow('index down');
    expect(await replicas[0].repository.findById(recordId, m)).not.toBeNull();
    expect(await holdersOfWord(recordId)).toEqual([m, s].sort());
    await replicas[1].forget.execute({ agentId, recordId, target: { path: 'm' } });
    expect(await replicas[0].repository.findById(recordId, m)).toBeNull();
    expect(await holdersOfWord(recordId)).toEqual([]);
  }, 120_000);
});
